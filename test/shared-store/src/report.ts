// Runs every fleet once and prints the numbers for benchmarks/RESULTS.md: `pnpm --filter @backoff/shared-store fleet`.
import { startRedisServer } from '../../../packages/backoff-redis/test/support/redis-server.ts';
import { breaking, IDEAL, pacing, redisKilled } from './scenarios.ts';

const redis = await startRedisServer();
try {
  const rows: string[] = [];
  for (const headers of [true, false]) {
    for (const shared of [true, false]) {
      const result = await pacing(shared ? redis.url : undefined, headers);
      rows.push(
        `| ${headers ? 'draft-8 headers' : 'bare 429s'} | ${shared ? 'one RedisStore' : 'a Pacer per process'} | ${result.throttled} | ${result.requests} | ${(result.run.last / 1000).toFixed(2)} s (${result.lastRatio.toFixed(2)}x) | ${result.failed} |`,
      );
    }
  }
  console.log(`Ideal last call: ${IDEAL / 1000} s\n`);
  console.log('| answers | pacing | 429s | requests | last call done | calls failed |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  for (const row of rows) console.log(row);
  for (const shared of [true, false]) {
    const trip = await breaking(shared ? redis.url : undefined);
    console.log(
      `\nbreaker, ${shared ? 'one RedisStore' : 'one per process'}: first trip ${trip.tripped} ms in; ${trip.sendsAfter} sends after it, the last ${trip.lastSendAfter} ms after`,
    );
  }
  const killed = await redisKilled(15_000);
  console.log(
    `\nRedis killed at 3 s, back at 5 s: ${killed.ok}/${killed.calls} calls ok, errors ${JSON.stringify(killed.errors)}, longest call ${killed.longest} ms (deadline 15 s), fallbacks ${killed.fallbacks}, resumes ${killed.resumes}, 429s ${JSON.stringify(killed.throttled)}`,
  );
} finally {
  await redis.stop();
}
