import { paceFleet } from '@backoff/test-utils';
import fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type NodeRedisLike, RedisStore } from '../src/index.ts';
import { type RedisServer, startRedisServer } from './support/redis-server.ts';

// Fleets of calls paced through a RedisStore on the caller's clock, in virtual time (`paceFleet`: the runner's
// part, one event at a time, what the limiter accepted counted on its side), with Redis made to fail between
// events by a client that stands between the store and Redis.

let server: RedisServer;
let redis: ReturnType<typeof createClient>;
let app = 0;

beforeAll(async () => {
  server = await startRedisServer();
  redis = createClient({ url: server.url });
  redis.on('error', () => {});
  await redis.connect();
});

afterAll(async () => {
  await redis?.close();
  await server?.stop();
});

type Fault = 'stall' | 'reset' | 'restart';

/**
 * A client to Redis that fails as told: `stall` holds every command until `up()` and then sends them in order
 * (a slow Redis, its data kept: what CLIENT PAUSE does), `reset` and `restart` refuse every command at once (the
 * connection reset; `restart`: Redis comes back empty).
 */
class Faulty implements NodeRedisLike {
  #fault: Fault | undefined;
  #held: Array<() => void> = [];
  constructor(readonly keys: string) {}

  #call<T>(run: () => Promise<T>): Promise<T> {
    if (this.#fault === 'stall')
      return new Promise((resolve, reject) => this.#held.push(() => run().then(resolve, reject)));
    if (this.#fault !== undefined) return Promise.reject(new Error('read ECONNRESET'));
    return run();
  }
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }) {
    return this.#call(() => redis.evalSha(sha, options));
  }
  eval(script: string, options: { keys: string[]; arguments: string[] }) {
    return this.#call(() => redis.eval(script, options));
  }
  down(fault: Fault) {
    this.#fault = fault;
  }
  async up() {
    if (this.#fault === 'restart') {
      for (const key of await redis.keys(`${this.keys}*`)) await redis.del(key);
    }
    this.#fault = undefined;
    for (const run of this.#held.splice(0)) run();
  }
}

/**
 * A RedisStore through `Faulty`, on the caller's clock, probing every 5 ms while Redis is gone. It gives up on a
 * command after its wait (250 ms on loopback, 1 s before its first answer): a stalled one is never answered
 * before `up()`, and a busy machine never makes a healthy one that slow.
 */
function faulty() {
  const prefix = `stalls${++app}:`;
  const client = new Faulty(prefix);
  const store = new RedisStore({ client, prefix, clock: 'caller', probeInterval: 5 });
  /** The fault over: once the store has seen Redis back, the next event comes. */
  const up = async () => {
    await client.up();
    await vi.waitFor(() => expect(store.local).toBe(false), { timeout: 5000, interval: 2 });
  };
  return { client, store, up };
}

describe('RedisStore, bare 429s after a quiet spell', () => {
  it('one call, 5 s of nothing, then 150 calls: paced as on a fresh key', async () => {
    const burst = Array.from({ length: 150 }, () => 5000);
    const run = (calls: number[]) =>
      paceFleet({
        store: new RedisStore({ client: redis, prefix: `quiet${++app}:`, clock: 'caller' }).pacer,
        limit: 20,
        window: 1000,
        headers: false,
        calls,
      });
    const fresh = await run(burst);
    const quiet = await run([0, ...burst]);
    expect(fresh).toMatchObject({ ok: 150, refused: 0, exhausted: 0 });
    // Counted over the quiet 5 s, the cut went to 4.2 a second: the last call took 33 s, not 8.
    expect(quiet).toMatchObject({ ok: 151, refused: 0, exhausted: 0, longest: fresh.longest });
    expect(quiet.throttled).toBe(fresh.throttled);
  });
});

describe('RedisStore under stalls, resets and restarts', () => {
  /** One call learns the quota (10 a second, draft-8), then 60 at once: 51 of them held in Redis. */
  const CALLS = [0, ...Array.from({ length: 60 }, () => 10)];

  it('a 1.5 s stall 1 s in: every call goes at the slot it had, the stall costing no more than itself', async () => {
    const control = await paceFleet({
      store: faulty().store.pacer,
      limit: 10,
      window: 1000,
      headers: true,
      calls: CALLS,
    });
    const { client, store, up } = faulty();
    const stalled = await paceFleet({
      store: store.pacer,
      limit: 10,
      window: 1000,
      headers: true,
      calls: CALLS,
      deadline: 10_000,
      during: [
        [1000, () => client.down('stall')],
        [2500, up],
      ],
    });
    store.close();
    expect(control).toMatchObject({ ok: 61, refused: 0, exhausted: 0, throttled: 0 });
    // Queued again behind their own slots, the sends held before the stall were refused past their deadline.
    // Here the store gives up on Redis in no virtual time: the stall costs nothing, every send goes as before.
    expect(stalled).toEqual(control);
  });

  it('any stalls, resets and restarts: no call refused the quota would take, few sends a call', async () => {
    const faults = fc.array(
      fc.record({
        at: fc.integer({ min: 0, max: 6000 }),
        length: fc.integer({ min: 50, max: 2000 }),
        fault: fc.constantFrom<Fault>('stall', 'stall', 'reset', 'restart'),
      }),
      { maxLength: 3 },
    );
    await fc.assert(
      fc.asyncProperty(faults, async (drawn) => {
        // Faults one after the other, each over before the next.
        const during: Array<readonly [number, () => unknown]> = [];
        const { client, store, up } = faulty();
        let free = 0;
        let lost = 0;
        for (const { at, length, fault } of [...drawn].sort((a, b) => a.at - b.at)) {
          const from = Math.max(at, free);
          during.push([from, () => client.down(fault)], [from + length, up]);
          free = from + length + 1;
          lost += length;
        }
        // The quota serves the 61 calls in 6 s; each call may take that, the faults' time and a window more.
        const run = await paceFleet({
          store: store.pacer,
          limit: 10,
          window: 1000,
          headers: true,
          calls: CALLS,
          deadline: 6000 + lost + 1000,
          during,
        });
        store.close();
        expect(run).toMatchObject({ ok: 61, refused: 0, exhausted: 0 });
        expect(run.mostSends).toBeLessThanOrEqual(3);
      }),
      { numRuns: 25, seed: 20_261_206 },
    );
  });
});
