import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServer,
  startRedisServer,
} from '../../../packages/backoff-redis/test/support/redis-server.ts';
import { breaking, pacing, redisKilled } from '../src/scenarios.ts';

// 8 Node processes, 200 calls at 50/s in all, into a 20/s limiter on 127.0.0.1; Redis on a free port.
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

describe('one quota across 8 processes through Redis', () => {
  it('draft-8 headers: at most 25 answers 429 in all, the last call within 1.15x of the ideal', async () => {
    const shared = await pacing(redis.url, true);
    expect(shared.throttled).toBeLessThanOrEqual(25);
    expect(shared.lastRatio).toBeLessThanOrEqual(1.15);
    expect(shared.failed).toBe(0);
  });

  it('bare 429s: at least 4x fewer than pacers per process, the last call within 1.15x of the ideal', async () => {
    const shared = await pacing(redis.url, false);
    const own = await pacing(undefined, false);
    expect(shared.throttled * 4).toBeLessThanOrEqual(own.throttled);
    // The first window's 429s (the first, and those that widen its pause to the reset): 3 in every run measured.
    expect(shared.throttled).toBeLessThanOrEqual(8);
    expect(shared.lastRatio).toBeLessThanOrEqual(1.15);
    expect(shared.failed).toBe(0);
  });

  it('a breaker trip in one process stops the sends of all within 100 ms', async () => {
    const { lastSendAfter } = await breaking(redis.url);
    expect(lastSendAfter).toBeLessThan(100);
  });

  it('Redis killed mid-run: every call ends within its deadline, each process falls back once and resumes, paced as one again', async () => {
    const killed = await redisKilled(15_000);
    expect(killed.calls).toBe(200);
    expect(killed.ok + killed.errors.length).toBe(200);
    expect(killed.longest).toBeLessThanOrEqual(15_000 + 100);
    // Each process fell back (a busy process may fall back once more, and come back), and each is shared again.
    expect(killed.fallbacks).toBeGreaterThanOrEqual(8);
    expect(killed.resumes).toBe(killed.fallbacks);
    // Back (empty) at 5 s: one queue again within a window, the holds from before the kill queued in it; a clean
    // run meets no 429 there, nor did any run measured after Redis came back.
    expect(killed.throttled.after).toBeLessThanOrEqual(4);
    expect(killed.throttled.later).toBeLessThanOrEqual(2);
  });
});
