import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { type RedisClientLike, RedisStore } from '../src/index.ts';
import { LIMITS, RULES, spent, T } from './support/fixtures.ts';
import { freePort, type RedisServer, startRedisServer } from './support/redis-server.ts';

// The set-up the README shows: the client connects in the background (the app does not wait for Redis), and
// `store.check()` says at start whether the store shares through Redis, or rejects when Redis refuses it.

const closers: Array<() => unknown> = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Each library's client, connecting in the background as the README shows: nothing awaits Redis. */
const LIBRARIES = {
  'node-redis': (url: string): RedisClientLike => {
    const client = createClient({ url, socket: { reconnectStrategy: () => 50 } });
    client.on('error', () => {});
    client.connect().catch(() => {});
    closers.push(() => client.destroy());
    return client;
  },
  ioredis: (url: string): RedisClientLike => {
    const client = new Redis(url, { retryStrategy: () => 50 });
    client.on('error', () => {});
    closers.push(() => client.disconnect());
    return client;
  },
};

/** Whether `operation` settled without waiting on a timer or on I/O (before the next turn of the loop). */
async function atOnce(operation: unknown): Promise<boolean> {
  const waited = Symbol('waited');
  const first = await Promise.race([operation, new Promise((resolve) => setImmediate(resolve, waited))]);
  return first !== waited;
}

async function server(args: string[] = [], port?: number): Promise<RedisServer> {
  const started = await startRedisServer(port, args);
  closers.push(() => started.stop());
  return started;
}

describe.each(Object.entries(LIBRARIES))('RedisStore on %s, at start-up', (_library, connect) => {
  it('Redis down at start: calls go at once, paced locally; once Redis is up, the store is shared', async () => {
    const port = await freePort();
    const onFallback = vi.fn();
    const onResume = vi.fn();
    const client = connect(`redis://127.0.0.1:${port}`);
    const store = new RedisStore({
      client,
      prefix: 'late:',
      clock: 'caller',
      probeInterval: 50,
      onFallback,
      onResume,
    });
    expect(await store.check()).toBe('local');
    expect(onFallback).toHaveBeenCalledTimes(1);
    // Local: what this process learns paces its own sends, and no call waits for Redis.
    expect(await atOnce(store.pacer.learn('k', spent(T), T, LIMITS))).toBe(true);
    const held = store.pacer.reserve('k', T, Infinity, () => 0, LIMITS);
    expect(await atOnce(held)).toBe(true);
    expect(await held).toMatchObject({ type: 'held', slot: T + 2000 });
    await server([], port);
    await vi.waitFor(() => expect(onResume).toHaveBeenCalledTimes(1), { timeout: 10_000, interval: 20 });
    expect(await store.check()).toBe('shared');
    // Shared: another process sees what this one learns.
    await store.pacer.learn('other', spent(T), T, LIMITS);
    const other = new RedisStore({
      client: connect(`redis://127.0.0.1:${port}`),
      prefix: 'late:',
      clock: 'caller',
    });
    await vi.waitFor(async () => expect(await other.check()).toBe('shared'), { timeout: 10_000 });
    expect(await other.pacer.read('other', T)).toBe(2000);
    expect(store.stats()).toMatchObject({ fallbacks: 1, resumes: 1 });
    store.close();
    other.close();
  });

  it('a wrong password: check() rejects, naming what Redis said and what to fix', async () => {
    const redis = await server(['--requirepass', 'secret']);
    const store = new RedisStore({ client: connect(`redis://:wrong@127.0.0.1:${redis.port}`) });
    await expect(store.check()).rejects.toThrow(
      /^Redis refused the store's client: WRONGPASS .* Check the user and password in the client's options/,
    );
    store.close();
  });

  it('no password where one is needed: check() rejects (NOAUTH), not "local"', async () => {
    const redis = await server(['--requirepass', 'secret']);
    const store = new RedisStore({ client: connect(redis.url) });
    await expect(store.check()).rejects.toThrow(/^Redis refused the store's client: .*NOAUTH/);
    store.close();
  });
});

describe('RedisStore on an ioredis client made with lazyConnect', () => {
  it('its first command connects it: check() answers shared, and a spent quota holds the next send', async () => {
    const redis = await server();
    const client = new Redis(redis.url, { lazyConnect: true, retryStrategy: () => 50 });
    client.on('error', () => {});
    closers.push(() => client.disconnect());
    const store = new RedisStore({ client, clock: 'caller' });
    await expect(store.check()).resolves.toBe('shared');
    await store.pacer.learn('k', spent(T), T, LIMITS);
    expect(await store.pacer.read('k', T)).toBe(2000);
    store.close();
  });
});

/** The least the store needs, as the README states it, for keys under `app:`. */
const ACL = ['~app:*', '+evalsha', '+eval', '+get', '+set', '+time'];

describe.each(Object.entries(LIBRARIES))('RedisStore on %s, under an ACL', (_library, connect) => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('the least-privilege ACL is enough: shared, scripts loaded again after a flush, back after a drop', async () => {
    const redis = await server([
      '--maxmemory',
      '100mb',
      '--maxmemory-policy',
      'allkeys-lru',
      '--user',
      'store',
      'on',
      '>pw',
      ...ACL,
    ]);
    const warn = vi.spyOn(process, 'emitWarning');
    const onResume = vi.fn();
    const client = connect(`redis://store:pw@127.0.0.1:${redis.port}`);
    const admin = createClient({ url: redis.url });
    admin.on('error', () => {});
    await admin.connect();
    closers.push(() => admin.destroy());
    const store = new RedisStore({ client, prefix: 'app:', timeout: 300, probeInterval: 20, onResume });
    await vi.waitFor(async () => expect(await store.check()).toBe('shared'), { timeout: 10_000 });
    // INFO is not in the ACL: the eviction check says nothing rather than fail.
    expect(warn).not.toHaveBeenCalled();
    const now = Date.now();
    await store.pacer.learn('k', spent(now), now, LIMITS);
    await admin.scriptFlush();
    expect(await store.pacer.reserve('k', now, Infinity, () => 0, LIMITS)).toMatchObject({ type: 'held' });
    expect(await store.breaker.admit('o', now, RULES)).toMatchObject({ admitted: true });
    expect(store.local).toBe(false);
    // Redis paused past the store's wait: local, and back through the probe, which needs no PING.
    await admin.sendCommand(['CLIENT', 'PAUSE', '1000', 'ALL']);
    await store.pacer.read('k', Date.now());
    expect(store.local).toBe(true);
    await vi.waitFor(() => expect(onResume).toHaveBeenCalledTimes(1), { timeout: 10_000, interval: 20 });
    expect(await store.pacer.read('k', Date.now())).toBeGreaterThan(0);
    store.close();
  });

  it('an ACL without a command the store runs: check() rejects, saying what the store needs', async () => {
    const redis = await server(['--user', 'store', 'on', '>pw', ...ACL.filter((rule) => rule !== '+set')]);
    const store = new RedisStore({
      client: connect(`redis://store:pw@127.0.0.1:${redis.port}`),
      prefix: 'app:',
    });
    await expect(store.check()).rejects.toThrow(
      /can't run this command.*\+evalsha \+eval \+get \+set \+time ~<prefix>\*/,
    );
    store.close();
  });
});

describe('RedisStore on a Redis that evicts keys', () => {
  it('warns once per process (BACKOFF_REDIS_EVICTION) when its keys may be evicted', async () => {
    const redis = await server(['--maxmemory', '100mb', '--maxmemory-policy', 'volatile-lru']);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    for (let i = 0; i < 2; i++) {
      const store = new RedisStore({ client: LIBRARIES['node-redis'](redis.url) });
      await vi.waitFor(async () => expect(await store.check()).toBe('shared'), { timeout: 10_000 });
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(/maxmemory-policy volatile-lru.* noeviction/);
    expect(warn.mock.calls[0]?.[1]).toMatchObject({ code: 'BACKOFF_REDIS_EVICTION' });
    warn.mockRestore();
  });
});
