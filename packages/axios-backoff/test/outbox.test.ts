import { Readable } from 'node:stream';
import { API, FakeNetwork, ScriptedApi, VirtualClock } from '@backoff/test-utils';
import axios, { type AxiosInstance, type AxiosStatic } from 'axios';
import axios1134 from 'axios-1.13.4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axiosBackoff } from '../src/index.ts';
import { axiosOutbox, MemoryOutboxStore, type OutboxEvent, QueuedError } from '../src/outbox.ts';

const api = new ScriptedApi();
const closing: Array<() => void> = [];
beforeAll(() => api.listen());
afterEach(() => {
  for (const close of closing.splice(0)) close();
  api.reset();
});
afterAll(() => api.close());

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the request resolved'),
    (error: unknown) => error,
  );

describe.each([
  ['axios 1.21.1', axios],
  ['axios 1.13.4', axios1134 as unknown as AxiosStatic],
])('axiosOutbox: %s', (_name, ax) => {
  function setup() {
    const clock = new VirtualClock();
    const network = new FakeNetwork();
    const instance: AxiosInstance = ax.create({ baseURL: API });
    axiosBackoff(instance, {
      timers: clock.timers,
      now: clock.now,
      random: () => 0.5,
      budget: false,
      retries: 1,
      network,
      beforeAttempt: ({ headers }) => headers.set('Authorization', 'Bearer fresh'),
    });
    const store = new MemoryOutboxStore();
    const outbox = axiosOutbox(instance, { store, replayOnStart: false });
    closing.push(() => outbox.close());
    const events: OutboxEvent[] = [];
    outbox.on((event) => events.push(event));
    return { clock, network, instance, store, outbox, events };
  }
  const keyed = (key: string) => ({ headers: { 'Idempotency-Key': key, Authorization: 'Bearer old' } });

  it('offline: queued unsent with its transformed body and key, without the secret header; replayed once with the same key', async () => {
    const { network, instance, store, outbox, events } = setup();
    const route = api.script('/orders', [201]);
    network.online = false;
    const error = await rejection(instance.post('/orders', { item: 1 }, keyed('k-1')));
    expect(error).toBeInstanceOf(QueuedError);
    expect((error as QueuedError).reason).toBe('offline');
    expect(route.hits).toHaveLength(0);
    const [entry] = store.list();
    expect(entry).toMatchObject({
      key: 'k-1',
      method: 'POST',
      url: `${API}/orders`,
      body: { type: 'text', text: '{"item":1}' },
    });
    expect(Object.keys(entry?.headers ?? {})).not.toContain('authorization');
    expect(await outbox.retry()).toEqual({ replayed: 0, failed: 0, expired: 0, remaining: 1 });
    network.online = true;
    expect(await outbox.retry()).toEqual({ replayed: 1, failed: 0, expired: 0, remaining: 0 });
    expect(
      route.hits.map((hit) => [
        hit.headers.get('idempotency-key'),
        hit.headers.get('authorization'),
        hit.headers.get('content-type'),
        hit.body,
      ]),
    ).toEqual([['k-1', 'Bearer fresh', 'application/json', '{"item":1}']]);
    expect(events.map((event) => event.type)).toEqual(['queued', 'replayed']);
  });

  it('a network failure past the retries is queued, and a write behind it waits; a 503 at replay keeps both, a 4xx then fails the first and the next goes', async () => {
    const { instance, outbox, events } = setup();
    const route = api.script('/orders', ['network-error', 'network-error', 503, 503, 422, 201]);
    expect(await rejection(instance.post('/orders', 'a', keyed('a')))).toMatchObject({ reason: 'failed' });
    expect(await rejection(instance.post('/orders', 'b', keyed('b')))).toMatchObject({ reason: 'behind' });
    expect(route.hits).toHaveLength(2);
    // Queued behind while online, b starts a replay: a: 503, 503 (kept). retry() answers with the pass after it:
    // a: 422 (failed), b: 201. Nothing is left for the next.
    expect(await outbox.retry()).toEqual({ replayed: 1, failed: 1, expired: 0, remaining: 0 });
    expect(await outbox.retry()).toEqual({ replayed: 0, failed: 0, expired: 0, remaining: 0 });
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual([
      'a',
      'a',
      'a',
      'a',
      'a',
      'b',
    ]);
    expect(events.filter((event) => event.type !== 'queued').map((event) => event.type)).toEqual([
      'failed',
      'replayed',
    ]);
  });

  it('a keyless POST is never queued: its failure goes to the caller as an AxiosError', async () => {
    const { instance, store } = setup();
    api.script('/orders', ['network-error']);
    const error = await rejection(instance.post('/orders', 'x'));
    expect(ax.isAxiosError(error)).toBe(true);
    expect(store.list()).toEqual([]);
  });

  it('a key header set to false is not sent by axios, so the write is not queued, even with a key generator', async () => {
    const clock = new VirtualClock();
    const instance: AxiosInstance = ax.create({ baseURL: API });
    axiosBackoff(instance, {
      timers: clock.timers,
      now: clock.now,
      budget: false,
      idempotencyKey: () => 'generated-1',
    });
    const store = new MemoryOutboxStore();
    const outbox = axiosOutbox(instance, { store, replayOnStart: false });
    closing.push(() => outbox.close());
    const route = api.script('/orders', [503, 201]);
    const error = await rejection(instance.post('/orders', 'x', { headers: { 'Idempotency-Key': false } }));
    expect(ax.isAxiosError(error)).toBe(true);
    expect(store.list()).toEqual([]);
    await outbox.retry();
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual([null]);
  });

  it('a GET is never queued', async () => {
    const { instance, store, network } = setup();
    api.script('/orders', [503]);
    network.online = true;
    expect((await rejection(instance.get('/orders', keyed('g')))) as object).not.toBeInstanceOf(QueuedError);
    expect(store.list()).toEqual([]);
  });

  it('a stream body is refused at queue time with an error that says how to pass it', async () => {
    const { instance, store, network } = setup();
    network.online = false;
    const error = await rejection(instance.post('/orders', Readable.from(['chunk']), keyed('s')));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/cannot be queued.*a string, bytes, a Blob/);
    expect(store.list()).toEqual([]);
  });

  it('without axiosBackoff on the instance: a clear error saying what to call first', () => {
    expect(() => axiosOutbox(ax.create(), { store: new MemoryOutboxStore() })).toThrow(/axiosBackoff.*first/);
  });
});
