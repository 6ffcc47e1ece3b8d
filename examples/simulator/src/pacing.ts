import { type BackoffOptions, Pacer, withBackoff } from 'backoff-core';
import type { TimerProvider } from 'backoff-core/adapter';
import { EventQueue } from './event-queue.js';
import { Network } from './request.js';
import { deriveSeed, mulberry32 } from './rng.js';
import { Histogram } from './stats.js';

export interface PacingConfig {
  /** Requests the server serves per window; the rest get a 429. */
  readonly limit: number;
  /** The server's fixed window, ms (windows start at t = 0). */
  readonly windowMs: number;
  /** New calls per second, evenly spaced. */
  readonly rate: number;
  /** How long new calls keep coming, ms. */
  readonly duration: number;
  /** Retries each call may make. */
  readonly retries: number;
  /** The network's one-way delay, mean in ms. */
  readonly latency: number;
  readonly seed: number;
}

/** One way of calling the limited server. */
export interface PacingStrategy {
  readonly id: string;
  readonly label: string;
  /** Whether the server's answers carry draft-8 RateLimit fields (and a 429's Retry-After) or nothing at all. */
  readonly headers: boolean;
  /**
   * `own`: every request on its own, as the peers retry: a 429 waits exactly its Retry-After (1 s without one),
   * with no budget, no jitter and nothing shared between requests. `backoff`: withBackoff, with or without a Pacer.
   */
  readonly client: 'own' | 'backoff';
  readonly pacer: boolean;
}

export const PACING_STRATEGIES: readonly PacingStrategy[] = [
  { id: 'own', label: 'every request on its own (Retry-After)', headers: true, client: 'own', pacer: false },
  { id: 'backoff', label: 'backoff, no pacer (headers)', headers: true, client: 'backoff', pacer: false },
  { id: 'pacer', label: 'backoff + Pacer (headers)', headers: true, client: 'backoff', pacer: true },
  {
    id: 'backoff-bare',
    label: 'backoff, no pacer (bare 429s)',
    headers: false,
    client: 'backoff',
    pacer: false,
  },
  { id: 'pacer-bare', label: 'backoff + Pacer (bare 429s)', headers: false, client: 'backoff', pacer: true },
];

export interface PacingResult {
  readonly strategy: PacingStrategy;
  readonly calls: number;
  readonly ok: number;
  /** Requests that reached the server, and the 429s among them (counted there). */
  readonly requests: number;
  readonly throttled: number;
  /** Per second: 429s answered, and calls completed (by the time they ended). */
  readonly throttledPerSecond: Histogram;
  readonly completedPerSecond: Histogram;
  /** When the last call ended, ms. */
  readonly last: number;
  /** Calls that ended, each exactly once (a conservation check). */
  readonly finished: number;
}

/** The waits of withBackoff (and of the Pacer, through the same options) as events in the queue. */
function virtualTimers(queue: EventQueue): TimerProvider {
  return {
    setTimeout: (callback, ms) => {
      const handle = { cleared: false };
      queue.after(Math.max(0, ms), () => {
        if (!handle.cleared) callback();
      });
      return handle;
    },
    clearTimeout: (handle) => {
      (handle as { cleared: boolean }).cleared = true;
    },
  };
}

/**
 * A fixed-window limiter (`limit` per `windowMs`, windows from t = 0), as express-rate-limit is with
 * `standardHeaders: 'draft-8'`: every answer states the policy and what is left, and a 429 says when to come
 * back. Without headers it answers a bare 429.
 */
function limitedServer(config: PacingConfig, headers: boolean) {
  let window = -1;
  let used = 0;
  const windowSeconds = config.windowMs / 1000;
  return (now: number): { status: number; headers: Record<string, string> } => {
    const current = Math.floor(now / config.windowMs);
    if (current !== window) {
      window = current;
      used = 0;
    }
    used++;
    const status = used > config.limit ? 429 : 200;
    if (!headers) return { status, headers: {} };
    const reset = Math.max(1, Math.ceil(((current + 1) * config.windowMs - now) / 1000));
    const fields: Record<string, string> = {
      'ratelimit-policy': `"limit"; q=${config.limit}; w=${windowSeconds}`,
      ratelimit: `"limit"; r=${Math.max(0, config.limit - used)}; t=${reset}`,
    };
    if (status === 429) fields['retry-after'] = String(reset);
    return { status, headers: fields };
  };
}

/**
 * A steady stream of calls into a fixed-window rate limit, in virtual time. The backoff rows run the real
 * `withBackoff` over a fetch whose answers are events in the queue, with the queue's timers and clock, so every
 * hold, wait and rate the Pacer decides is its own.
 */
export async function runPacing(config: PacingConfig, strategy: PacingStrategy): Promise<PacingResult> {
  const queue = new EventQueue();
  const network = new Network(
    queue,
    config.latency,
    mulberry32(deriveSeed(config.seed, 'pacing', 'network')),
  );
  const server = limitedServer(config, strategy.headers);
  const throttledPerSecond = new Histogram(1000);
  const completedPerSecond = new Histogram(1000);
  let requests = 0;
  let throttled = 0;
  let ok = 0;
  let finished = 0;
  let last = 0;

  const handle = (now: number) => {
    requests++;
    const reply = server(now);
    if (reply.status === 429) {
      throttled++;
      throttledPerSecond.add(now);
    }
    return reply;
  };
  const send = () =>
    new Promise<{ status: number; headers: Record<string, string> }>((resolve) =>
      network.call(handle, resolve),
    );

  const timers = virtualTimers(queue);
  let get: () => Promise<number>;
  if (strategy.client === 'own') {
    get = async () => {
      for (let attempt = 0; ; attempt++) {
        const reply = await send();
        if (reply.status !== 429 || attempt === config.retries) return reply.status;
        const seconds = Number(reply.headers['retry-after'] ?? 1);
        await new Promise<void>((resolve) => timers.setTimeout(resolve, seconds * 1000));
      }
    };
  } else {
    const options: BackoffOptions<Response> = {
      retries: config.retries,
      budget: false,
      random: mulberry32(deriveSeed(config.seed, 'pacing', strategy.id, 'jitter')),
      now: () => queue.now,
      timers,
      ...(strategy.pacer ? { pacer: new Pacer() } : {}),
    };
    const fetchWith = withBackoff(async () => {
      const reply = await send();
      return new Response(null, { status: reply.status, headers: reply.headers });
    }, options);
    get = async () => (await fetchWith('https://api.example/items')).status;
  }

  const call = async () => {
    const status = await get().catch(() => 0);
    if (status === 200) ok++;
    finished++;
    completedPerSecond.add(queue.now);
    last = Math.max(last, queue.now);
  };
  const spacing = 1000 / config.rate;
  let calls = 0;
  for (let i = 0; i * spacing < config.duration; i++) {
    calls++;
    queue.at(i * spacing, () => void call());
  }
  // Each event may resolve promises (an answer, a wait's end): let their continuations run before the next one.
  while (queue.step()) await new Promise<void>((resolve) => setImmediate(resolve));

  return { strategy, calls, ok, requests, throttled, throttledPerSecond, completedPerSecond, last, finished };
}
