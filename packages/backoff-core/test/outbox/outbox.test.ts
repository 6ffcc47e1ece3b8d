import { API, API_2, FakeNetwork, ScriptedApi, VirtualClock } from '@backoff/test-utils';
import { type BackoffOptions, withBackoff } from 'backoff-core';
import {
  MemoryOutboxStore,
  type OutboxEvent,
  type OutboxOptions,
  QueuedError,
  withOutbox,
} from 'backoff-core/outbox';
import { HttpResponse, http } from 'msw';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const api = new ScriptedApi([API, API_2]);
const HOUR = 3_600_000;
const outboxes: Array<{ close(): void }> = [];

beforeAll(() => api.listen());
afterEach(() => {
  for (const outbox of outboxes.splice(0)) outbox.close();
  api.reset();
});
afterAll(() => api.close());

/** Lets the replay's promise callbacks and MSW's answers run, without moving virtual time. */
const settle = async (rounds = 20) => {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

function setup(options: Partial<OutboxOptions> = {}, policy: BackoffOptions<Response> = {}) {
  const clock = new VirtualClock();
  const network = new FakeNetwork();
  const store = (options.store as MemoryOutboxStore | undefined) ?? new MemoryOutboxStore();
  const events: OutboxEvent[] = [];
  const fetch = withBackoff(undefined, {
    random: () => 0.5,
    timers: clock.timers,
    now: clock.now,
    budget: false,
    retries: 1,
    network,
    // The token is current at each send, replays included: it is never written to the store.
    beforeAttempt: ({ headers }) => headers.set('Authorization', 'Bearer fresh'),
    ...policy,
  });
  const send = withOutbox(fetch, { replayOnStart: false, ...options, store });
  outboxes.push(send.outbox);
  send.outbox.on((event) => events.push(event));
  return { clock, network, store, events, send, outbox: send.outbox };
}

const post = (
  key: string | undefined,
  body: BodyInit = JSON.stringify({ key }),
  path = '/orders',
  origin = API,
) => ({
  url: `${origin}${path}`,
  init: {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: 'Bearer old',
      ...(key === undefined ? {} : { 'Idempotency-Key': key }),
    },
    body,
  } satisfies RequestInit,
});

async function queued(promise: Promise<Response>): Promise<QueuedError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the write to be queued');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(QueuedError);
  return error as QueuedError;
}

describe('a keyed write that cannot be completed now is queued', () => {
  it('offline: nothing is sent; the entry keeps method, URL, key, body and first-sent time, without secret headers', async () => {
    const { network, store, send, clock } = setup();
    const route = api.script('/orders', [201]);
    network.online = false;
    const { url, init } = post('k-1');
    const error = await queued(send(url, init));
    expect(error.reason).toBe('offline');
    expect(route.hits).toHaveLength(0);
    expect(store.list()).toEqual([
      expect.objectContaining({
        key: 'k-1',
        method: 'POST',
        url,
        group: API,
        body: { type: 'text', text: '{"key":"k-1"}' },
        firstSent: clock.now(),
        headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      }),
    ]);
    expect(error.entry).toEqual(store.list()[0]);
  });

  it('back online: replayed once with the same key, and the secret header set again by beforeAttempt', async () => {
    const { network, store, send, events } = setup();
    const route = api.script('/orders', [201]);
    network.online = false;
    const { url, init } = post('k-1');
    await queued(send(url, init));
    network.goOnline();
    await settle();
    expect(
      route.hits.map((hit) => [
        hit.headers.get('idempotency-key'),
        hit.headers.get('authorization'),
        hit.body,
      ]),
    ).toEqual([['k-1', 'Bearer fresh', '{"key":"k-1"}']]);
    expect(store.list()).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(['queued', 'replayed']);
    expect(events[1]).toMatchObject({ type: 'replayed', status: 201 });
  });

  it('a network failure past the retries: queued as failed, the failure as its cause; retry() sends it', async () => {
    const { send, outbox, store } = setup();
    const route = api.script('/orders', ['network-error', 'network-error', 201]);
    const { url, init } = post('k-2');
    const error = await queued(send(url, init));
    expect(error.reason).toBe('failed');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(route.hits).toHaveLength(2);
    expect(await outbox.retry()).toEqual({ replayed: 1, failed: 0, expired: 0, remaining: 0 });
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['k-2', 'k-2', 'k-2']);
    expect(store.list()).toEqual([]);
  });

  it('a 503 past the retries is queued; a replay answered 503 again stays queued', async () => {
    const { send, outbox, store } = setup();
    const route = api.script('/orders', [503, 503, 503, 503, 201]);
    const { url, init } = post('k-3');
    const error = await queued(send(url, init));
    expect(error.cause).toBeInstanceOf(Response);
    expect(await outbox.retry()).toEqual({ replayed: 0, failed: 0, expired: 0, remaining: 1 });
    expect(store.list()).toHaveLength(1);
    expect(await outbox.retry()).toEqual({ replayed: 1, failed: 0, expired: 0, remaining: 0 });
    expect(route.hits).toHaveLength(5);
  });

  it('a final answer that is not in queueStatuses goes to the caller as it is', async () => {
    const { send, store } = setup();
    api.script('/orders', [422]);
    const { url, init } = post('k-4');
    expect((await send(url, init)).status).toBe(422);
    expect(store.list()).toEqual([]);
  });

  it.each<[string, () => BodyInit | Request, string]>([
    ['bytes', () => new Uint8Array([0, 1, 2, 255, 10]), '0,1,2,255,10'],
    ['a Blob', () => new Blob([new Uint8Array([7, 8])], { type: 'application/octet-stream' }), '7,8'],
    ['URLSearchParams', () => new URLSearchParams({ a: '1 2' }), '97,61,49,43,50'],
  ])('%s: the body is kept and replayed byte for byte', async (_label, body, expected) => {
    const { send, network, outbox } = setup();
    const seen: string[] = [];
    api.server.use(
      http.post(`${API}/bytes`, async ({ request }) => {
        seen.push(
          `${[...new Uint8Array(await request.arrayBuffer())].join(',')} ${request.headers.get('content-type')}`,
        );
        return new HttpResponse(null, { status: 201 });
      }),
    );
    network.online = false;
    await queued(
      send(`${API}/bytes`, { method: 'POST', headers: { 'Idempotency-Key': 'b' }, body: body() as BodyInit }),
    );
    network.online = true;
    expect(await outbox.retry()).toMatchObject({ replayed: 1 });
    expect(seen.map((line) => line.split(' ')[0])).toEqual([expected]);
  });

  it("a Request with a body of its own: the body is kept from a copy, as the send would read the Request's", async () => {
    const { send, outbox, network } = setup();
    const route = api.script('/orders', [201]);
    network.online = false;
    const request = new Request(`${API}/orders`, {
      method: 'POST',
      headers: { 'Idempotency-Key': 'r' },
      body: 'from a Request',
    });
    await queued(send(request));
    network.online = true;
    await outbox.retry();
    expect(route.hits.map((hit) => [hit.headers.get('idempotency-key'), hit.body])).toEqual([
      ['r', 'from a Request'],
    ]);
  });

  it('a key the policy generates is made before the send, so the replay sends the key the server saw', async () => {
    const { send, outbox } = setup({}, { idempotencyKey: () => 'generated-1' });
    const route = api.script('/orders', ['network-error', 'network-error', 201]);
    const { url, init } = post(undefined);
    const error = await queued(send(url, init));
    expect(error.entry.key).toBe('generated-1');
    await outbox.retry();
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual([
      'generated-1',
      'generated-1',
      'generated-1',
    ]);
  });
});

describe('what is never queued', () => {
  it('a keyless POST: its network failure goes to the caller, nothing is stored, nothing sent again', async () => {
    const { send, store, outbox } = setup();
    const route = api.script('/orders', ['network-error', 201]);
    const { url, init } = post(undefined);
    await expect(send(url, init)).rejects.toBeInstanceOf(TypeError);
    expect(store.list()).toEqual([]);
    await outbox.retry();
    expect(route.hits).toHaveLength(1);
  });

  it('a blank Idempotency-Key is no key: the write is not queued', async () => {
    const { send, store, outbox } = setup();
    const route = api.script('/orders', [503, 503, 201]);
    const { url, init } = post('   ');
    expect((await send(url, init)).status).toBe(503);
    expect(store.list()).toEqual([]);
    await outbox.retry();
    expect(route.hits).toHaveLength(1);
  });

  it('a keyless POST while offline is not queued: it is sent as it is', async () => {
    // The outbox sees the device offline; the policy does not wait for the network, so the send is what a keyless
    // write gets.
    const offline = new FakeNetwork();
    offline.online = false;
    const { send, store } = setup({ network: offline }, { network: false });
    const route = api.script('/orders', [201]);
    const { url, init } = post(undefined);
    expect((await send(url, init)).status).toBe(201);
    expect(route.hits).toHaveLength(1);
    expect(store.list()).toEqual([]);
  });

  it('a stream body is refused at queue time with an error that names it and the fix', async () => {
    const { send, store, network } = setup();
    network.online = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('chunk'));
        controller.close();
      },
    });
    const { url, init } = post('k-5', stream);
    const error = await send(url, { ...init, duplex: 'half' } as RequestInit).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error as Error).message)).toMatch(
      /cannot be queued.*ReadableStream.*a string, bytes, a Blob/,
    );
    expect(store.list()).toEqual([]);
  });

  it('a key that cannot travel is refused at queue time: it would fail every replay and hold back its origin', async () => {
    const { send, store, network } = setup();
    network.online = false;
    const { url, init } = post('café-1');
    const error = await send(url, init).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/cannot be queued.*"café-1".*not visible ASCII/);
    expect(store.list()).toEqual([]);
  });

  it('a write the caller aborted is not queued', async () => {
    const { send, store } = setup();
    api.script('/orders', ['no-answer']);
    const controller = new AbortController();
    const { url, init } = post('k-6');
    const pending = send(url, { ...init, signal: controller.signal });
    await settle();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(store.list()).toEqual([]);
  });

  it('bad options: a clear error naming the option and the fix', () => {
    const fetch = withBackoff();
    expect(() => withOutbox(fetch, {} as OutboxOptions)).toThrow(/`store`.*MemoryOutboxStore/);
    expect(() => withOutbox(fetch, { store: new MemoryOutboxStore(), maxAge: -1 })).toThrow(
      /`maxAge`.*above 0.*got -1/,
    );
    expect(() => withOutbox(fetch, { store: new MemoryOutboxStore(), queueStatuses: [200] })).toThrow(
      /`queueStatuses`.*400 to 599.*got 200/,
    );
    expect(() => withOutbox(fetch, { store: new MemoryOutboxStore(), group: 'origin' as never })).toThrow(
      /`group`.*function.*got string/,
    );
    expect(() =>
      withOutbox(fetch, { store: new MemoryOutboxStore(), secretHeaders: 'authorization' as never }),
    ).toThrow(/`secretHeaders`.*list of header names/);
    expect(() => withOutbox(fetch, { store: new MemoryOutboxStore(), retryEvery: 0 })).toThrow(
      /`retryEvery`.*above 0.*got 0/,
    );
    expect(() => withOutbox('fetch' as never, { store: new MemoryOutboxStore() })).toThrow(
      /`fetch`.*got string/,
    );
  });
});

describe('replay', () => {
  it('keeps the order per origin; a failure stops its origin only, and the rest wait in order', async () => {
    const { send, network, outbox, store } = setup();
    network.online = false;
    for (const key of ['a1', 'a2', 'a3']) {
      const { url, init } = post(key);
      await queued(send(url, init));
    }
    const { url, init } = post('b1', undefined, '/orders', API_2);
    await queued(send(url, init));
    network.online = true;
    const a = api.script('/orders', [201, 503, 503, 201]);
    const b = api.script('/orders', [201], API_2);
    // Retries of the policy are spent on a2's 503s: 2 sends, then it stays.
    expect(await outbox.retry()).toEqual({ replayed: 2, failed: 0, expired: 0, remaining: 2 });
    expect(a.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['a1', 'a2', 'a2']);
    expect(b.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['b1']);
    expect(store.list().map((entry) => entry.key)).toEqual(['a2', 'a3']);
    expect(await outbox.retry()).toEqual({ replayed: 2, failed: 0, expired: 0, remaining: 0 });
    expect(a.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['a1', 'a2', 'a2', 'a2', 'a3']);
  });

  it('a group of your own: writes of one origin in two groups keep their order within each, and one does not hold back the other', async () => {
    const { send, network, outbox } = setup({
      group: ({ url }) => new URL(url).pathname.split('/')[1] ?? '',
    });
    network.online = false;
    for (const [key, path] of [
      ['o1', '/orders'],
      ['p1', '/payments'],
      ['o2', '/orders'],
      ['p2', '/payments'],
    ] as const) {
      const { url, init } = post(key, undefined, path);
      await queued(send(url, init));
    }
    network.online = true;
    const orders = api.script('/orders', [503]);
    const payments = api.script('/payments', [201]);
    expect(await outbox.retry()).toMatchObject({ replayed: 2, remaining: 2 });
    expect(payments.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['p1', 'p2']);
    expect(orders.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['o1', 'o1']);
  });

  it('a 4xx ends the entry as failed, and the next one goes', async () => {
    const { send, network, outbox, events } = setup();
    network.online = false;
    await queued(send(post('x1').url, post('x1').init));
    await queued(send(post('x2').url, post('x2').init));
    network.online = true;
    api.script('/orders', [422, 201]);
    expect(await outbox.retry()).toEqual({ replayed: 1, failed: 1, expired: 0, remaining: 0 });
    expect(events.filter((event) => event.type !== 'queued')).toEqual([
      expect.objectContaining({ type: 'failed', status: 422, entry: expect.objectContaining({ key: 'x1' }) }),
      expect.objectContaining({
        type: 'replayed',
        status: 201,
        entry: expect.objectContaining({ key: 'x2' }),
      }),
    ]);
  });

  it('an entry older than maxAge is reported as expired and never sent', async () => {
    const { send, network, outbox, events, clock } = setup({ maxAge: 24 * HOUR });
    const route = api.script('/orders', [201]);
    network.online = false;
    await queued(send(post('old').url, post('old').init));
    clock.advance(24 * HOUR + 1);
    network.online = true;
    expect(await outbox.retry()).toEqual({ replayed: 0, failed: 0, expired: 1, remaining: 0 });
    expect(route.hits).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ type: 'expired', age: 24 * HOUR + 1 });
  });

  it('an entry exactly maxAge old is still sent', async () => {
    const { send, network, outbox, clock } = setup({ maxAge: HOUR });
    const route = api.script('/orders', [201]);
    network.online = false;
    await queued(send(post('edge').url, post('edge').init));
    clock.advance(HOUR);
    network.online = true;
    expect(await outbox.retry()).toMatchObject({ replayed: 1, expired: 0 });
    expect(route.hits).toHaveLength(1);
  });

  it('a write made while earlier ones wait queues behind them, and goes after them', async () => {
    const { send, network, outbox } = setup();
    network.online = false;
    await queued(send(post('first').url, post('first').init));
    network.online = true;
    const route = api.script('/orders', [201]);
    const error = await queued(send(post('second').url, post('second').init));
    expect(error.reason).toBe('behind');
    await settle();
    await outbox.retry();
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['first', 'second']);
  });

  it('replays at start what the store already holds', async () => {
    const store = new MemoryOutboxStore();
    const first = setup({ store });
    first.network.online = false;
    await queued(first.send(post('saved').url, post('saved').init));
    first.outbox.close();
    const route = api.script('/orders', [201]);
    const second = setup({ store, replayOnStart: true });
    await settle();
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['saved']);
    expect(second.events.map((event) => event.type)).toEqual(['replayed']);
  });

  it('two outboxes on one store replaying at once send each entry once', async () => {
    const store = new MemoryOutboxStore();
    const one = setup({ store });
    const two = setup({ store });
    one.network.online = false;
    for (const key of ['t1', 't2', 't3']) await queued(one.send(post(key).url, post(key).init));
    one.network.online = true;
    const route = api.script('/orders', [201]);
    await Promise.all([one.outbox.retry(), two.outbox.retry(), one.outbox.retry()]);
    await one.outbox.retry();
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['t1', 't2', 't3']);
  });

  it('list and drop: a dropped entry is never sent', async () => {
    const { send, network, outbox } = setup();
    network.online = false;
    await queued(send(post('keep').url, post('keep').init));
    await queued(send(post('drop').url, post('drop').init));
    const [, dropped] = await outbox.list();
    expect(await outbox.drop(dropped?.id ?? '')).toBe(true);
    expect(await outbox.drop(dropped?.id ?? '')).toBe(false);
    network.online = true;
    const route = api.script('/orders', [201]);
    await outbox.retry();
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['keep']);
  });

  it('a listener that throws stops neither the replay nor the other listeners', async () => {
    const { send, network, outbox, events } = setup();
    outbox.on(() => {
      throw new Error('listener bug');
    });
    network.online = false;
    await queued(send(post('l1').url, post('l1').init));
    network.online = true;
    api.script('/orders', [201]);
    expect(await outbox.retry()).toMatchObject({ replayed: 1 });
    expect(events.map((event) => event.type)).toEqual(['queued', 'replayed']);
  });

  it('retryEvery replays on a timer where no online event comes (Node); close() stops it', async () => {
    const clock = new VirtualClock();
    clock.auto = false;
    const store = new MemoryOutboxStore();
    const fetch = withBackoff(undefined, {
      timers: clock.timers,
      now: clock.now,
      retries: 0,
      network: false,
    });
    const send = withOutbox(fetch, { store, replayOnStart: false, retryEvery: 60_000 });
    outboxes.push(send.outbox);
    const route = api.script('/orders', [503, 503, 201]);
    await queued(send(post('t').url, post('t').init));
    clock.advance(59_999);
    await settle();
    expect(route.hits).toHaveLength(1);
    clock.advance(1);
    await settle();
    // The first replay got a 503 again: kept; the next minute's got its 201.
    expect(route.hits).toHaveLength(2);
    expect(store.list()).toHaveLength(1);
    clock.advance(60_000);
    await settle();
    expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['t', 't', 't']);
    expect(store.list()).toEqual([]);
    send.outbox.close();
    expect(clock.pendingCount).toBe(0);
  });

  it('close() removes the online listener: coming back online replays nothing', async () => {
    const { send, network, outbox } = setup();
    network.online = false;
    await queued(send(post('c1').url, post('c1').init));
    expect(network.listeners).toBe(1);
    outbox.close();
    expect(network.listeners).toBe(0);
    const route = api.script('/orders', [201]);
    network.goOnline();
    await settle();
    expect(route.hits).toHaveLength(0);
  });
});
