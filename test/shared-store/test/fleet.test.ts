import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServer,
  startRedisServer,
} from '../../../packages/backoff-redis/test/support/redis-server.ts';
import { FLEET } from '../src/scenarios.ts';
import { clientsReady, storesShared, type VirtualFleetRun, virtualFleet } from '../src/virtual-fleet.ts';

// 8 apps as 8 processes have them (each its own Redis client, RedisStore, pacer or breaker, and jitter): 200 calls
// at 50/s in all into a 20/s fixed-window limiter, on one virtual clock, through the real redis-server. Every run
// is the same run, on an idle machine or a busy one: the numbers are exact. (src/report.ts runs the same fleets
// as real processes on the wall clock, for the benchmark's numbers.)
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

const pacing = (shared: boolean, headers: boolean) =>
  virtualFleet({ ...FLEET, headers, feature: 'pacer', redis: shared ? redis.url : undefined });

/** What the limiter answered and how the calls ended (ms after the start). */
const outcome = (run: VirtualFleetRun) => ({
  requests: run.arrivals.length,
  throttled: run.throttled,
  ok: run.calls.filter((call) => call.status === 200).length,
  last: run.last,
  fallbacks: run.fallbacks.length,
});

describe('one quota across 8 processes through Redis', () => {
  it('draft-8 headers: no 429 at all, the last call 8% after the ideal, where pacers per process meet 186', async () => {
    expect(outcome(await pacing(true, true))).toEqual({
      requests: 200,
      throttled: 0,
      ok: 200,
      last: 10_784,
      fallbacks: 0,
    });
    // Each process learns the quota on its own, and spends it as if it were alone.
    expect(outcome(await pacing(false, true))).toEqual({
      requests: 386,
      throttled: 186,
      ok: 200,
      last: 13_664,
      fallbacks: 0,
    });
  });

  it('bare 429s: 3 in all, over 20x fewer than pacers per process', async () => {
    expect(outcome(await pacing(true, false))).toEqual({
      requests: 203,
      throttled: 3,
      ok: 200,
      last: 10_724,
      fallbacks: 0,
    });
    expect(outcome(await pacing(false, false))).toEqual({
      requests: 265,
      throttled: 65,
      ok: 200,
      last: 11_885,
      fallbacks: 0,
    });
  });

  it('a breaker trip in one process stops the sends of all at once, where breakers of their own send on', async () => {
    // The backend answers 500 from 1.5 s in; the first breaker to trip is any process's.
    const breaking = async (shared: boolean) => {
      const run = await virtualFleet({
        ...FLEET,
        limit: 10_000,
        headers: true,
        feature: 'breaker',
        redis: shared ? redis.url : undefined,
        retries: 2,
        during: (at, fleet) => at(1500, fleet.down),
      });
      const tripped = Math.min(...run.trips);
      const after = run.arrivals.filter((arrival) => arrival.at > tripped).map((arrival) => arrival.at);
      return { tripped, sendsAfter: after.length, lastSendAfter: Math.max(tripped, ...after) - tripped };
    };
    // Shared: the failures of all count together, so the breaker trips sooner, and no process sends after it.
    expect(await breaking(true)).toEqual({ tripped: 2273, sendsAfter: 0, lastSendAfter: 0 });
    expect(await breaking(false)).toEqual({ tripped: 2433, sendsAfter: 110, lastSendAfter: 1526 });
  });

  it('Redis killed mid-run: every call ends within its deadline, each process falls back once and resumes, paced as one again', async () => {
    const own = await startRedisServer();
    try {
      const run = await virtualFleet({
        ...FLEET,
        headers: true,
        feature: 'pacer',
        redis: own.url,
        deadline: 15_000,
        during: (at, fleet) => {
          // Killed 3 s in, and started again (empty) 5 s in. Virtual time stands still while the clients see
          // Redis gone, and while the stores find it back: a busy machine slows these, it changes no event.
          at(3000, async () => {
            await own.kill();
            await clientsReady(fleet.clients, false);
          });
          at(5000, async () => {
            await own.restart();
            await clientsReady(fleet.clients, true);
            await storesShared(fleet.stores);
          });
        },
      });
      expect(run.calls.filter((call) => call.status === 200)).toHaveLength(200);
      expect(Math.max(...run.calls.map((call) => call.ended - call.started))).toBe(8510);
      // Each process falls back at its first call after the kill, and resumes once Redis is back.
      expect(run.fallbacks).toEqual([
        { worker: 3, at: 3011 },
        { worker: 7, at: 3020 },
        { worker: 0, at: 3040 },
        { worker: 1, at: 3060 },
        { worker: 4, at: 3063 },
        { worker: 2, at: 3080 },
        { worker: 5, at: 3116 },
        { worker: 6, at: 3160 },
      ]);
      const resumed = run.resumes.map((resume) => resume.worker).sort();
      expect(resumed).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(run.resumes.every((resume) => resume.at === 5000)).toBe(true);
      // 429s before the kill, while each process paced alone, in the first second back, and after: one queue
      // again from the restart, the holds from before the kill queued in it.
      const throttled = (from: number, to: number) =>
        run.arrivals.filter((arrival) => arrival.status === 429 && arrival.at >= from && arrival.at < to)
          .length;
      expect([
        throttled(0, 3000),
        throttled(3000, 5000),
        throttled(5000, 6000),
        throttled(6000, Infinity),
      ]).toEqual([0, 48, 0, 0]);
    } finally {
      await own.stop();
    }
  });
});
