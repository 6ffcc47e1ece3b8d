import { VirtualClock } from '@backoff/test-utils';
import { CircuitBreaker, Pacer, withBackoff } from 'backoff-core';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RedisStore } from '../src/index.ts';
import { LIMITS, RULES, spent, T } from './support/fixtures.ts';
import { type RedisServer, startRedisServer } from './support/redis-server.ts';

// The time the tests give: stores that are to answer exact waits run on it (`clock: 'caller'`), so that a busy
// machine between two operations changes nothing. One test keeps Redis's own clock, the default.
const CALLER = { clock: 'caller' } as const;

let server: RedisServer;
const clients: Array<{ destroy(): void }> = [];
let app = 0;

/** A connected client of its own, as each process has. */
async function connect() {
  const client = createClient({ url: server.url, socket: { reconnectStrategy: () => 50 } });
  client.on('error', () => {});
  await client.connect();
  clients.push(client);
  return client;
}

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await server?.stop();
});

describe('RedisStore', () => {
  it('two processes share one quota: what one learns holds the sends of the other', async () => {
    const prefix = `share${++app}:`;
    const one = new RedisStore({ client: await connect(), prefix, ...CALLER });
    const other = new RedisStore({ client: await connect(), prefix, ...CALLER });
    await one.pacer.learn('https://api.test', spent(T), T, LIMITS);
    expect(await other.pacer.read('https://api.test', T)).toBe(2000);
    const reserved = await other.pacer.reserve('https://api.test', T, Infinity, () => 0, LIMITS);
    expect(reserved).toMatchObject({ type: 'held', reason: 'rate-limit', slot: T + 2000, delay: 2000 });
  });

  it('a process on node-redis and one on ioredis share one quota', async () => {
    const prefix = `mixed${++app}:`;
    const io = new Redis(server.url);
    io.on('error', () => {});
    clients.push({ destroy: () => io.disconnect() });
    const one = new RedisStore({ client: await connect(), prefix, ...CALLER });
    const other = new RedisStore({ client: io, prefix, ...CALLER });
    expect(await other.check()).toBe('shared');
    await one.pacer.learn('https://api.test', spent(T), T, LIMITS);
    expect(await other.pacer.reserve('https://api.test', T, Infinity, () => 0, LIMITS)).toMatchObject({
      type: 'held',
      slot: T + 2000,
    });
    expect(await one.pacer.reserve('https://api.test', T, Infinity, () => 0, LIMITS)).toMatchObject({
      type: 'held',
      slot: T + 2105,
    });
  });

  it("on Redis's own clock (the default) too: what one process learns holds the other's sends", async () => {
    const prefix = `redis-clock${++app}:`;
    const one = new RedisStore({ client: await connect(), prefix });
    const other = new RedisStore({ client: await connect(), prefix });
    // Redis's clock runs in real time between the two operations: a quota spent for a minute is still spent.
    const now = Date.now();
    await one.pacer.learn('https://api.test', spent(now, 60_000), now, LIMITS);
    const reserved = await other.pacer.reserve('https://api.test', now, Infinity, () => 0, LIMITS);
    expect(reserved).toMatchObject({ type: 'held', reason: 'rate-limit' });
  });

  it('ten processes reserving together get ten slots, none shared', async () => {
    const prefix = `slots${++app}:`;
    const stores = await Promise.all(
      Array.from({ length: 10 }, async () => new RedisStore({ client: await connect(), prefix, ...CALLER })),
    );
    await stores[0]?.pacer.learn('k', spent(T), T, LIMITS);
    const reserved = await Promise.all(
      stores.map((store) => store.pacer.reserve('k', T, Infinity, () => 0, LIMITS)),
    );
    const slots = reserved.map((one) => (one as Pacer.StoreHold).slot);
    expect(new Set(slots).size).toBe(10);
  });

  it('keys carry the prefix and expire', async () => {
    const client = await connect();
    const store = new RedisStore({ client, prefix: `ttl${++app}:`, ...CALLER });
    await store.pacer.learn('k', spent(T), T, LIMITS);
    await store.breaker.record('https://a.test', T, true, undefined, false, RULES);
    const keys = (await client.keys(`ttl${app}:*`)).sort();
    expect(keys).toEqual([`ttl${app}:circuit:https://a.test`, `ttl${app}:pace:k`]);
    for (const key of keys) {
      const ttl = await client.pTTL(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(86_400_000);
    }
  });

  it('a breaker tripped by one process refuses the calls of another', async () => {
    const prefix = `trip${++app}:`;
    const one = new CircuitBreaker({
      store: new RedisStore({ client: await connect(), prefix, ...CALLER }).breaker,
    });
    const other = new CircuitBreaker({
      store: new RedisStore({ client: await connect(), prefix, ...CALLER }).breaker,
    });
    const now = () => T;
    const down = vi.fn(() => Promise.resolve(new Response('down', { status: 500 })));
    const send = withBackoff(down, { circuitBreaker: one, retries: 0, now });
    for (let i = 0; i < 5; i++) await send('https://api.test/a');
    expect(await other.state('https://api.test', T)).toBe('open');
    const fetch = vi.fn(() => Promise.resolve(new Response('ok')));
    await expect(
      withBackoff(fetch, { circuitBreaker: other, now })('https://api.test/a'),
    ).rejects.toMatchObject({
      code: 'ERR_CIRCUIT_OPEN',
    });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('a script Redis forgot (a restart, SCRIPT FLUSH) is loaded again', async () => {
    const client = await connect();
    const store = new RedisStore({ client, prefix: `flush${++app}:`, ...CALLER });
    await store.pacer.learn('k', spent(T), T, LIMITS);
    await client.scriptFlush();
    expect(await store.pacer.read('k', T)).toBe(2000);
    expect(store.local).toBe(false);
  });
});

describe('RedisStore when Redis is gone', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a server that never answers: each operation falls back at the timeout, told once', async () => {
    // The store's timers are fake: the timeout runs out when the test says, not when a busy machine lets it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // A client whose every command hangs, as one to a server that stopped answering.
    const hang = () => new Promise<never>(() => {});
    const onFallback = vi.fn();
    const store = new RedisStore({
      client: { evalSha: hang, eval: hang },
      timeout: 100,
      onFallback,
      ...CALLER,
    });
    let reserved: unknown;
    void Promise.resolve(store.pacer.reserve('k', T, Infinity, () => 0, LIMITS)).then((answer) => {
      reserved = answer;
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(reserved).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(reserved).toBe(0);
    expect(store.local).toBe(true);
    // Local from then on: answered with no timer run out at all.
    await store.pacer.learn('k', spent(T), T, LIMITS);
    expect(await store.pacer.read('k', T)).toBe(2000);
    expect(await store.breaker.admit('o', T, RULES)).toMatchObject({ admitted: true });
    expect(onFallback).toHaveBeenCalledTimes(1);
    store.close();
  });

  it('Redis killed mid-run: calls complete, paced locally; once it is back, the store is shared again', async () => {
    const own = await startRedisServer();
    try {
      const client = createClient({ url: own.url, socket: { reconnectStrategy: () => 50 } });
      client.on('error', () => {});
      await client.connect();
      clients.push(client);
      const onFallback = vi.fn();
      const onResume = vi.fn();
      const store = new RedisStore({
        client,
        prefix: 'killed:',
        onFallback,
        onResume,
        probeInterval: 100,
        ...CALLER,
      });
      const pacer = new Pacer({ store: store.pacer });
      const fetch = vi.fn(() => Promise.resolve(new Response('ok')));
      // The calls' own time is virtual; the store's timeout and probes run in real time, as the socket needs.
      const clock = new VirtualClock(T);
      const send = withBackoff(fetch, { pacer, now: clock.now, timers: clock.timers });
      await expect(send('https://api.test/a')).resolves.toMatchObject({ status: 200 });
      await own.kill();
      const answers = await Promise.all(Array.from({ length: 20 }, () => send('https://api.test/a')));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect(store.local).toBe(true);
      expect(onFallback).toHaveBeenCalledTimes(1);
      await own.restart();
      await vi.waitFor(() => expect(onResume).toHaveBeenCalledTimes(1), { timeout: 5000, interval: 50 });
      expect(store.local).toBe(false);
      // Shared again: what this process learns is in Redis for the others.
      await store.pacer.learn('https://api.test', spent(T), T, LIMITS);
      const other = new RedisStore({ client, prefix: 'killed:', ...CALLER });
      expect(await other.pacer.read('https://api.test', T)).toBe(2000);
      store.close();
    } finally {
      await own.stop();
    }
  });

  it('a hold reserved in Redis before it restarted takes a place in the new queue, not a slot another send holds', async () => {
    const own = await startRedisServer();
    try {
      const client = createClient({ url: own.url, socket: { reconnectStrategy: () => 50 } });
      client.on('error', () => {});
      await client.connect();
      clients.push(client);
      const onResume = vi.fn();
      const options = { prefix: 'restarted:', clock: 'caller', probeInterval: 100 } as const;
      const store = new RedisStore({ client, onResume, ...options });
      await store.pacer.learn('k', spent(T), T, LIMITS);
      const before = await store.pacer.reserve('k', T, Infinity, () => 0, LIMITS);
      expect(before).toMatchObject({ type: 'held', slot: T + 2000 });
      await own.kill();
      // The store falls back at its next operation, and comes back once Redis does (empty: nothing was saved).
      await store.pacer.read('k', T);
      expect(store.local).toBe(true);
      await own.restart();
      await vi.waitFor(() => expect(onResume).toHaveBeenCalledTimes(1), { timeout: 5000, interval: 50 });
      // Another process learns the quota again and takes the new queue's first slot.
      const other = new RedisStore({ client, ...options });
      await other.pacer.learn('k', spent(T), T, LIMITS);
      expect(await other.pacer.reserve('k', T, Infinity, () => 0, LIMITS)).toMatchObject({ slot: T + 2000 });
      // The hold from before the restart, come due, queues behind it instead of going in the same slot.
      const hold = before as Pacer.StoreHold;
      const again = await store.pacer.confirm('k', hold, hold.slot, Infinity, () => 0, LIMITS);
      expect(again).toMatchObject({ type: 'held', slot: T + 2105 });
      store.close();
      other.close();
    } finally {
      await own.stop();
    }
  });
});

describe('RedisStore after a stall (Redis slow, its data kept)', () => {
  /** A store on the caller's clock, and a client to stall Redis with, for longer than the store waits. */
  async function stalling(prefix: string) {
    const client = await connect();
    const admin = await connect();
    const onResume = vi.fn();
    const onFallback = vi.fn();
    const store = new RedisStore({
      client,
      prefix,
      clock: 'caller',
      probeInterval: 20,
      onResume,
      onFallback,
    });
    /** Every command waits `ms` (CLIENT PAUSE), as behind a slow disk or a busy script; nothing is lost. */
    const stall = (ms: number) => admin.sendCommand(['CLIENT', 'PAUSE', String(ms), 'ALL']);
    const resumed = () =>
      vi.waitFor(() => expect(onResume).toHaveBeenCalledTimes(1), { timeout: 5000, interval: 10 });
    return { store, stall, resumed, onFallback };
  }

  it('a send held in Redis before the stall goes at its own slot once Redis is back, not behind the queue', async () => {
    const { store, stall, resumed, onFallback } = await stalling(`stall${++app}:`);
    const T = Date.now();
    await store.pacer.learn('k', spent(T), T, LIMITS);
    const holds: Pacer.StoreHold[] = [];
    for (let i = 0; i < 10; i++)
      holds.push((await store.pacer.reserve('k', T, Infinity, () => 0, LIMITS)) as Pacer.StoreHold);
    expect(holds.map((hold) => hold.slot)).toEqual(holds.map((_, i) => T + 2000 + i * 105));
    await stall(1000);
    // The first hold comes due while Redis is stalled: the store gives up on it and lets it go.
    const [first, ...rest] = holds as [Pacer.StoreHold, ...Pacer.StoreHold[]];
    expect(await store.pacer.confirm('k', first, first.slot, Infinity, () => 0, LIMITS)).toBe(first.ticket);
    expect(onFallback).toHaveBeenCalledTimes(1);
    await resumed();
    // Back, with its queue: every other hold goes at its own slot, as if Redis had never stalled.
    for (const hold of rest)
      expect(await store.pacer.confirm('k', hold, hold.slot, Infinity, () => 0, LIMITS)).toBe(hold.ticket);
    store.close();
  });

  it('a reservation Redis ran after the store gave up on it gives its slot back', async () => {
    const { store, stall, resumed } = await stalling(`phantom${++app}:`);
    const T = Date.now();
    await store.pacer.learn('k', spent(T), T, LIMITS);
    const first = (await store.pacer.reserve('k', T, Infinity, () => 0, LIMITS)) as Pacer.StoreHold;
    await stall(1000);
    // Answered locally at once (this process knows nothing of the quota): Redis runs it when the stall ends.
    expect(typeof (await store.pacer.reserve('k', T + 10, Infinity, () => 0, LIMITS))).toBe('number');
    await resumed();
    // The slot Redis reserved for it nobody uses: the next send takes it, not the one after.
    const next = (await store.pacer.reserve('k', T + 20, Infinity, () => 0, LIMITS)) as Pacer.StoreHold;
    expect(next.slot).toBe(first.slot + 105);
    store.close();
  });
});

describe('RedisStore: a key holding another writer’s value', () => {
  it('keeps that key local, says so once, and leaves every other key shared', async () => {
    const client = await connect();
    const prefix = `foreign${++app}:`;
    const onFallback = vi.fn();
    // On the caller's clock, 10 ms a round; Redis healthy, so no timeout a busy machine could reach.
    const store = new RedisStore({
      client,
      prefix,
      onFallback,
      timeout: 10_000,
      minTimeout: 10_000,
      ...CALLER,
    });
    const random = () => 0.5;
    await store.pacer.learn('https://spent.test', spent(T), T, LIMITS);
    await client.set(`${prefix}pace:https://other.test`, 'not ours');
    await client.hSet(`${prefix}pace:https://hash.test`, 'field', 'value');
    await client.set(`${prefix}circuit:https://other.test`, 'not ours');
    let atOnce = 0;
    for (let i = 0; i < 10; i++) {
      const now = T + i * 10;
      for (const origin of ['https://other.test', 'https://hash.test']) {
        await store.pacer.reserve(origin, now, Infinity, random, LIMITS);
        await store.pacer.learn(origin, spent(now), now, LIMITS);
      }
      expect(await store.breaker.admit('https://other.test', now, RULES)).toMatchObject({
        admitted: true,
      });
      const reserved = await store.pacer.reserve('https://spent.test', now, Infinity, random, LIMITS);
      if (typeof reserved === 'number') atOnce++;
    }
    // The spent origin stayed shared: every send to it was held.
    expect(atOnce).toBe(0);
    expect(store.local).toBe(false);
    // Told once per key, naming it; the foreign values are left as they were.
    expect(onFallback.mock.calls.map(([event]) => event.key)).toEqual([
      `${prefix}pace:https://other.test`,
      `${prefix}pace:https://hash.test`,
      `${prefix}circuit:https://other.test`,
    ]);
    expect(String(onFallback.mock.calls[0]?.[0].error.message)).toMatch(
      /holds a value this store did not write .* every other key stays shared\. Give this store a `prefix` of its own, or delete the key\./,
    );
    expect(await client.get(`${prefix}pace:https://other.test`)).toBe('not ours');
    // Paced locally meanwhile: what this process learnt of it holds its sends.
    expect(
      typeof (await store.pacer.reserve('https://other.test', T + 100, Infinity, random, LIMITS)),
    ).not.toBe('number');
    // Once the key is gone, it is shared again (and would be told again if it went bad again).
    await client.del(`${prefix}pace:https://other.test`);
    expect(await store.pacer.read('https://other.test', T + 100)).toBe(0);
    store.close();
  });
});
