// What one quota across processes costs and buys: a shared reservation's round trip against the in-memory one,
// then the fleets (8 processes into one rate limit: one RedisStore, or a pacer or breaker per process). Writes the
// `shared-store` section of RESULTS.md: `pnpm --filter @backoff/benchmarks shared-store`.
import { Pacer } from 'backoff-core';
import { RedisStore } from 'backoff-redis';
import { createClient } from 'redis';
import { startRedisServer } from '../../packages/backoff-redis/test/support/redis-server.ts';
import { breaking, FLEET, IDEAL, pacing, redisKilled } from '../../test/shared-store/src/scenarios.ts';
import { writeSection } from './results-sections.js';

const LIMITS = { maxRetryAfter: 60_000, stated: undefined };
/** Fleets on the wall clock spread from run to run: each runs this many times. */
const RUNS = 3;
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;

/** µs per reservation, one at a time (each waits for its answer, as a send waits for its slot). */
async function time(reserve: () => unknown, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await reserve();
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return samples.sort((a, b) => a - b);
}

const began = Date.now();
const redis = await startRedisServer();
const lines: string[] = [];
try {
  const client = createClient({ url: redis.url });
  client.on('error', () => {});
  await client.connect();
  const shared = new RedisStore({ client, prefix: 'bench:' });
  const memory = new Pacer.MemoryStore();
  // A key whose quota was counted (draft-8): every reservation runs the whole rule, as under load.
  const counted = {
    status: 200,
    ticket: 0,
    sentAt: Date.now(),
    serverDelay: undefined,
    remaining: 1e9,
    reset: 3_600_000,
    interval: 1,
  };
  memory.learn('k', counted, Date.now(), LIMITS);
  await shared.pacer.learn('k', counted, Date.now(), LIMITS);
  const reserveMemory = () => memory.reserve('k', Date.now(), Number.POSITIVE_INFINITY, Math.random, LIMITS);
  const reserveShared = () =>
    shared.pacer.reserve('k', Date.now(), Number.POSITIVE_INFINITY, Math.random, LIMITS);
  await time(reserveMemory, 20_000);
  await time(reserveShared, 2_000);
  const inMemory = await time(reserveMemory, 100_000);
  const inRedis = await time(reserveShared, 10_000);
  const ping = await time(() => client.ping(), 10_000);
  await client.close();
  const us = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} µs`;
  lines.push(
    '### What a shared reservation costs',
    '',
    'One reservation at a time on a key whose quota is counted (the whole rule runs), wall time per reservation as the caller waits for it; redis-server (Debian) on 127.0.0.1, node-redis 6.4.0, one connection.',
    '',
    '| reservation | median | p99 | vs in memory (median) |',
    '| --- | ---: | ---: | ---: |',
    `| \`Pacer.MemoryStore\` (in process) | ${us(quantile(inMemory, 0.5))} | ${us(quantile(inMemory, 0.99))} | 1x |`,
    `| \`RedisStore\` (one EVALSHA on loopback) | ${us(quantile(inRedis, 0.5))} | ${us(quantile(inRedis, 0.99))} | ${(quantile(inRedis, 0.5) / quantile(inMemory, 0.5)).toFixed(0)}x |`,
    `| a bare PING on the same connection (the floor) | ${us(quantile(ping, 0.5))} | ${us(quantile(ping, 0.99))} | ${(quantile(ping, 0.5) / quantile(inMemory, 0.5)).toFixed(0)}x |`,
    '',
  );

  // Each fleet runs RUNS times: a cell lists every run's number, in order (runs on the wall clock spread).
  const rows: string[] = [];
  const each = <T>(results: T[], cell: (result: T) => string) => results.map(cell).join(' / ');
  for (const headers of [true, false]) {
    for (const sharedRun of [true, false]) {
      const results = [];
      for (let i = 0; i < RUNS; i++) results.push(await pacing(sharedRun ? redis.url : undefined, headers));
      rows.push(
        `| ${headers ? 'draft-8 headers' : 'bare 429s'} | ${sharedRun ? 'one `RedisStore`' : 'a `Pacer` per process'} | ${each(results, (r) => String(r.throttled))} | ${each(results, (r) => String(r.requests))} | ${each(results, (r) => `${(r.run.last / 1000).toFixed(2)} s`)} | ${each(results, (r) => `${r.lastRatio.toFixed(2)}x`)} | ${each(results, (r) => String(r.failed))} |`,
      );
    }
  }
  lines.push(
    '### 8 processes, one quota',
    '',
    `${FLEET.processes} Node processes (\`test/shared-store\`), ${FLEET.calls} calls at ${FLEET.rate}/s in all (each process its share, evenly spaced), \`retries: 20\`, into a fixed-window limiter of ${FLEET.limit} per ${FLEET.window} ms on 127.0.0.1 (windows on the wall clock; the run starts on a window's edge). "draft-8 headers" answers as express-rate-limit does with \`standardHeaders: 'draft-8'\`; "bare 429s" answers 429 with no header. Counts are the limiter's; the ideal last call is ${IDEAL / 1000} s. Each fleet ran ${RUNS} times: a cell lists the runs in order.`,
    '',
    '| answers | pacing | 429s | requests | last call done | vs ideal | calls not ok |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  );
  for (const sharedRun of [true, false]) {
    const trip = await breaking(sharedRun ? redis.url : undefined);
    lines.push(
      `- Breaker, ${sharedRun ? 'one `RedisStore`' : 'a `CircuitBreaker` per process'} (\`retries: 2\`, the backend answering 500 from 1.5 s on): the first trip ${trip.tripped} ms in; ${trip.sendsAfter} sends reached the backend after it, the last ${trip.lastSendAfter} ms after.`,
    );
  }
  lines.push(
    `- Redis killed 3 s into the draft-8 run and started again (empty) at 5 s, \`deadline: 15000\`, ${RUNS} runs (a clean run meets no 429 after 5 s):`,
  );
  for (let i = 0; i < RUNS; i++) {
    const killed = await redisKilled(15_000);
    lines.push(
      `  - ${killed.ok} of ${killed.calls} calls ok, ${killed.errors.length} failed, the longest took ${(killed.longest / 1000).toFixed(2)} s; ${killed.fallbacks} fallbacks and ${killed.resumes} resumes told (one each per process, more when a busy process missed its wait for Redis once). 429s: ${killed.throttled.before} before the kill, ${killed.throttled.during} while each process paced alone, ${killed.throttled.after} in the first second after Redis came back, ${killed.throttled.later} later.`,
    );
  }
} finally {
  await redis.stop();
}
const section = [
  '## One quota across processes: a shared store',
  '',
  `- Command: \`pnpm --filter @backoff/benchmarks shared-store\` (${Math.round((Date.now() - began) / 1000)} s), ${new Date().toISOString()}`,
  '',
  ...lines,
].join('\n');
console.log(section);
if (!process.argv.includes('--quick')) writeSection('shared-store', section);
