import { startRedisServer } from '../../../packages/backoff-redis/test/support/redis-server.ts';
import { type FleetRun, runFleet, type StoreWait } from './fleet.ts';

/** The fleet of the measurements: 8 processes, 200 calls at 50/s in all, into a 20/s fixed-window limiter. */
export const FLEET = { processes: 8, calls: 200, rate: 50, limit: 20, window: 1000 } as const;
/** When the last call could be done at best: every window's quota used, from the first. */
export const IDEAL = (FLEET.calls / FLEET.limit) * FLEET.window;

export interface PacedRun {
  readonly run: FleetRun;
  /** 429s answered, requests sent, the last call's end as a ratio of the ideal. */
  readonly throttled: number;
  readonly requests: number;
  readonly lastRatio: number;
  readonly failed: number;
}

function paced(run: FleetRun): PacedRun {
  const calls = run.events.filter((event) => event.type === 'call');
  return {
    run,
    throttled: run.throttled,
    requests: run.arrivals.length,
    lastRatio: run.last / IDEAL,
    failed: calls.filter((call) => call.status !== 200).length,
  };
}

/** Pacers sharing one RedisStore, or one pacer per process. */
export async function pacing(
  redis: string | undefined,
  headers: boolean,
  wait?: StoreWait,
): Promise<PacedRun> {
  return paced(await runFleet({ ...FLEET, headers, feature: 'pacer', redis, wait }));
}

/**
 * Breakers sharing one RedisStore (or one per process); the backend goes down 1.5 s in. Answers how long after
 * the first trip (in any process) sends still arrived, and how many.
 */
export async function breaking(redis: string | undefined) {
  const run = await runFleet({
    ...FLEET,
    limit: 10_000,
    headers: true,
    feature: 'breaker',
    redis,
    retries: 2,
    during: (at, limiter) => at(1500, () => limiter.down(true)),
  });
  const trips = run.events.flatMap((event) =>
    event.type === 'state' && event.to === 'open' ? [event.at] : [],
  );
  const tripped = Math.min(...trips);
  const after = run.arrivals.filter((arrival) => arrival.at > tripped);
  const last = after.length === 0 ? 0 : Math.max(...after.map((arrival) => arrival.at)) - tripped;
  return { run, tripped: tripped - run.start, sendsAfter: after.length, lastSendAfter: last };
}

/**
 * Shared pacers (draft-8) with Redis killed 3 s in and started again (empty) 5 s in. Answers what each call
 * ended with and how long it took, the fallbacks and resumes, and the 429s before, during and after.
 */
export async function redisKilled(deadline: number) {
  const redis = await startRedisServer();
  try {
    const run = await runFleet({
      ...FLEET,
      headers: true,
      feature: 'pacer',
      redis: redis.url,
      deadline,
      during: (at) => {
        at(3000, () => redis.kill());
        at(5000, () => redis.restart());
      },
    });
    const calls = run.events.filter((event) => event.type === 'call');
    const count = (from: number, to: number) =>
      run.arrivals.filter(
        (arrival) => arrival.status === 429 && arrival.at - run.start >= from && arrival.at - run.start < to,
      ).length;
    return {
      run,
      calls: calls.length,
      ok: calls.filter((call) => call.status === 200).length,
      errors: calls.filter((call) => call.error !== undefined).map((call) => call.code ?? call.error),
      longest: Math.max(...calls.map((call) => call.ended - call.started)),
      fallbacks: run.events.filter((event) => event.type === 'fallback').length,
      resumes: run.events.filter((event) => event.type === 'resume').length,
      throttled: {
        before: count(0, 3000),
        during: count(3000, 5000),
        after: count(5000, 6000),
        later: count(6000, Infinity),
      },
    };
  } finally {
    await redis.stop();
  }
}
