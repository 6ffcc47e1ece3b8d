import { startRedisServer } from '../../../packages/backoff-redis/test/support/redis-server.ts';
import { runFleet } from './fleet.ts';

const redis = await startRedisServer();
const headers = process.argv[2] !== 'bare';
const shared = process.argv[3] !== 'own';
const run = await runFleet({
  processes: 8,
  calls: 200,
  rate: 50,
  limit: 20,
  window: 1000,
  headers,
  feature: 'pacer',
  redis: shared ? redis.url : undefined,
});
const calls = run.events.filter((e) => e.type === 'call');
console.log({
  headers,
  shared,
  throttled: run.throttled,
  requests: run.arrivals.length,
  last: run.last,
  calls: calls.length,
  errors: calls.filter((c) => 'error' in c && c.error).length,
  fallbacks: run.events
    .filter((e) => e.type === 'fallback')
    .map((e) => [(e as { at: number }).at - run.start, (e as { error?: string }).error]),
});
await redis.stop();
const perSecond: Record<number, string> = {};
for (const a of run.arrivals) {
  const s = Math.floor((a.at - run.start) / 1000);
  perSecond[s] = (perSecond[s] ?? '') + (a.status === 200 ? '.' : 'x');
}
for (const [s, v] of Object.entries(perSecond)) console.log(s, v.length, v);
