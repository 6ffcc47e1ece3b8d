// The store's wait for Redis on a loaded host: the shared fleet (draft-8) run alternately with a fixed 250 ms wait
// (`timeout: 250`, as the store had before its wait adapted), the adaptive wait (the defaults), and the adaptive
// wait with a floor of 1 s (`minTimeout: 1000`), printing the 429s and fallbacks of each run. Run it under load:
// `node scripts/busy.mjs --workers 2 -- pnpm --filter @backoff/shared-store exec tsx src/wait-under-load.ts [runs]`.
import { startRedisServer } from '../../../packages/backoff-redis/test/support/redis-server.ts';
import type { StoreWait } from './fleet.ts';
import { pacing } from './scenarios.ts';

const WAITS: Record<string, StoreWait> = {
  'fixed 250 ms': { timeout: 250 },
  adaptive: {},
  'adaptive, floor 1 s': { minTimeout: 1000 },
};

const runs = Number(process.argv[2] ?? 3);
const redis = await startRedisServer();
try {
  const totals = Object.fromEntries(Object.keys(WAITS).map((name) => [name, { throttled: 0, fallbacks: 0 }]));
  for (let i = 0; i < runs; i++) {
    for (const [name, wait] of Object.entries(WAITS)) {
      const result = await pacing(redis.url, true, wait);
      const fallbacks = result.run.events.filter((event) => event.type === 'fallback').length;
      const total = totals[name] ?? { throttled: 0, fallbacks: 0 };
      total.throttled += result.throttled;
      total.fallbacks += fallbacks;
      console.log(`${name}: ${result.throttled} 429s, ${fallbacks} fallbacks, ${result.failed} failed`);
    }
  }
  console.log(JSON.stringify(totals));
} finally {
  await redis.stop();
}
