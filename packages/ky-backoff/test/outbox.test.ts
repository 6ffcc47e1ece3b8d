import { API, FakeNetwork, ScriptedApi, serveTests, VirtualClock } from '@backoff/test-utils';
import { kyBackoff } from 'ky-backoff';
import { describe, expect, it } from 'vitest';
import { kyOutbox, MemoryOutboxStore, type OutboxEvent, QueuedError } from '../src/outbox.ts';
import { CLIENTS, type LooseKy } from './support/clients.ts';

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the request resolved'),
    (error: unknown) => error,
  );

/** ky's `post` shortcut, which LooseKy does not declare. */
const post = (api: LooseKy, url: string, options: Record<string, unknown>) =>
  (api as unknown as { post(url: string, options: Record<string, unknown>): Promise<Response> }).post(
    url,
    options,
  );

describe.each(CLIENTS.map((client) => [client.name, client] as const))('kyOutbox: %s', (_name, client) => {
  const server = new ScriptedApi();
  let clock: VirtualClock;
  serveTests(server, () => clock);
  const closing: Array<() => void> = [];

  function setup() {
    for (const close of closing.splice(0)) close();
    clock = new VirtualClock();
    const network = new FakeNetwork();
    const store = new MemoryOutboxStore();
    const api = kyOutbox(
      kyBackoff(client.ky.create({}), {
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
        budget: false,
        retries: 1,
        network,
        beforeAttempt: ({ headers }) => headers.set('Authorization', 'Bearer fresh'),
      }) as LooseKy,
      { store, replayOnStart: false, network, now: clock.now },
    );
    closing.push(() => api.outbox.close());
    const events: OutboxEvent[] = [];
    api.outbox.on((event) => events.push(event));
    return { network, store, api, outbox: api.outbox, events };
  }
  const keyed = (key: string, json: unknown) => ({
    json,
    headers: { 'Idempotency-Key': key, Authorization: 'Bearer old' },
  });

  it('offline: queued unsent with its JSON body and key, without the secret header; replayed once with the same key', async () => {
    const { network, api, store, outbox, events } = setup();
    const route = server.script('/orders', [201]);
    network.online = false;
    const error = await rejection(post(api, `${API}/orders`, keyed('k-1', { item: 1 })));
    expect(error).toBeInstanceOf(QueuedError);
    expect((error as QueuedError).reason).toBe('offline');
    expect(route.hits).toHaveLength(0);
    const [entry] = store.list();
    expect(entry).toMatchObject({ key: 'k-1', method: 'POST', url: `${API}/orders` });
    expect(Object.keys(entry?.headers ?? {})).not.toContain('authorization');
    network.online = true;
    expect(await outbox.retry()).toEqual({ replayed: 1, failed: 0, expired: 0, remaining: 0 });
    expect(
      route.hits.map((hit) => [
        hit.headers.get('idempotency-key'),
        hit.headers.get('authorization'),
        hit.body,
      ]),
    ).toEqual([['k-1', 'Bearer fresh', '{"item":1}']]);
    expect(events.map((event) => event.type)).toEqual(['queued', 'replayed']);
  });

  it('a network failure past the retries is queued, the next write waits behind it; a 4xx at replay ends an entry as failed', async () => {
    const { api, outbox, events } = setup();
    const route = server.script('/orders', ['network-error', 'network-error', 422, 201]);
    expect(await rejection(post(api, `${API}/orders`, keyed('a', 1)))).toMatchObject({ reason: 'failed' });
    expect(await rejection(post(api, `${API}/orders`, keyed('b', 2)))).toMatchObject({ reason: 'behind' });
    expect(route.hits).toHaveLength(2);
    // Queued behind while online, b started a replay of its own: retry() answers after it.
    expect(await outbox.retry()).toMatchObject({ remaining: 0 });
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['a', 'a', 'a', 'b']);
    expect(events.filter((event) => event.type !== 'queued').map((event) => event.type)).toEqual([
      'failed',
      'replayed',
    ]);
  });

  it('a 503 past the retries is queued with the response as its cause', async () => {
    const { api, store } = setup();
    server.script('/orders', [503]);
    const error = await rejection(post(api, `${API}/orders`, keyed('c', 3)));
    expect(error).toBeInstanceOf(QueuedError);
    expect(store.list()).toHaveLength(1);
  });

  it("the answer keeps ky's body shortcuts: `.json()` on the call", async () => {
    const { api } = setup();
    server.script('/orders', [{ status: 201, body: '{"id":7}' }]);
    const answer = post(api, `${API}/orders`, keyed('j', 1)) as Promise<Response> & {
      json(): Promise<unknown>;
    };
    expect(await answer.json()).toEqual({ id: 7 });
  });

  it("an instance with a prefix: the replay goes to the write's own URL, not the prefix's again", async () => {
    clock = new VirtualClock();
    const network = new FakeNetwork(false);
    const store = new MemoryOutboxStore();
    const prefix = client.major === 1 ? { prefixUrl: API } : { prefix: API };
    const api = kyOutbox(
      kyBackoff(client.ky.create(prefix), { timers: clock.timers, now: clock.now, network }) as LooseKy,
      { store, replayOnStart: false, network },
    );
    closing.push(() => api.outbox.close());
    const route = server.script('/orders', [201]);
    expect(await rejection(post(api, 'orders', keyed('p', 1)))).toBeInstanceOf(QueuedError);
    expect(store.list().map((entry) => entry.url)).toEqual([`${API}/orders`]);
    network.online = true;
    expect(await api.outbox.retry()).toMatchObject({ replayed: 1 });
    expect(route.hits.map((hit) => hit.url)).toEqual([`${API}/orders`]);
  });

  it('a keyless POST is never queued: its failure goes to the caller as ky gives it', async () => {
    const { api, store } = setup();
    server.script('/orders', ['network-error']);
    const error = await rejection(post(api, `${API}/orders`, { json: 1 }));
    expect(error).not.toBeInstanceOf(QueuedError);
    expect(store.list()).toEqual([]);
  });

  it('a stream body is refused at queue time with an error that says how to pass it', async () => {
    const { api, store, network } = setup();
    network.online = false;
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('chunk'));
        controller.close();
      },
    });
    const error = await rejection(
      post(api, `${API}/orders`, { body, duplex: 'half', headers: { 'Idempotency-Key': 's' } }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/cannot be queued.*a string, bytes, a Blob/);
    expect(store.list()).toEqual([]);
  });
});
