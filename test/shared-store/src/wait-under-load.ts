// The store's wait for Redis on a loaded host: the shared fleet (draft-8) run with the store's adaptive wait (its
// default) and with a fixed 250 ms one (`timeout: 250`, as the store had before), alternately, printing the 429s
// and fallbacks of each run. Run it under load:
// `node scripts/busy.mjs --workers 2 -- pnpm --filter @backoff/shared-store exec tsx src/wait-under-load.ts [runs]`.
import { startRedisServer } from '../../../packages/backoff-redis/test/support/redis-server.ts';
import { pacing } from './scenarios.ts';

const runs = Number(process.argv[2] ?? 3);
const redis = await startRedisServer();
try {
  const totals = { fixed: { throttled: 0, fallbacks: 0 }, adaptive: { throttled: 0, fallbacks: 0 } };
  for (let i = 0; i < runs; i++) {
    for (const [name, timeout] of [
      ['fixed', 250],
      ['adaptive', undefined],
    ] as const) {
      const result = await pacing(redis.url, true, timeout);
      const fallbacks = result.run.events.filter((event) => event.type === 'fallback').length;
      totals[name].throttled += result.throttled;
      totals[name].fallbacks += fallbacks;
      console.log(`${name}: ${result.throttled} 429s, ${fallbacks} fallbacks, ${result.failed} failed`);
    }
  }
  console.log(JSON.stringify(totals));
} finally {
  await redis.stop();
}
