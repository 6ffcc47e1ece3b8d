import { type BackoffOptions, createBackoff } from 'backoff-core';
import { type Outcome, startCall } from 'backoff-core/adapter';
import { EventQueue } from './event-queue.js';
import { drive, Network, OK, response } from './request.js';
import { deriveSeed, mulberry32, type Random } from './rng.js';
import { Histogram, quantile } from './stats.js';

/** One way of retrying, run against the same herd. */
export interface HerdStrategy {
  /** A short id: chart file names and CLI output. */
  readonly id: string;
  readonly label: string;
  /** What each client passes to `createBackoff` (the simulator adds `random` and `now`). */
  readonly options: BackoffOptions;
  /** Whether the server's 503s carry a Retry-After header in this run. */
  readonly retryAfter: boolean;
  /**
   * With Retry-After, the server spreads it itself: each 503 adds a random whole number of seconds below
   * `clients / capacity` (the time it needs to serve the herd it turned away). @default false
   */
  readonly serverSpread?: boolean | undefined;
}

export interface HerdConfig {
  /** Independent clients, one request each, all sent at t = 0 (or spread over `startSpread`). */
  readonly clients: number;
  /** How long the server is down (every request gets a 503), in ms. */
  readonly downFor: number;
  /** Requests per second the server serves once it is back; the rest get a 503. */
  readonly capacity: number;
  /** The network's one-way delay (request or response), mean in ms: a call takes about twice that. */
  readonly latency: number;
  readonly seed: number;
  /** The clients' first sends are spread uniformly over this many ms from t = 0. @default 0 (all at t = 0) */
  readonly startSpread?: number | undefined;
}

/** What one strategy did to the herd. Times are ms from t = 0; `load` counts arrivals at the server. */
export interface HerdResult {
  readonly strategy: HerdStrategy;
  readonly clients: number;
  /** Requests that reached the server (counted there). */
  readonly calls: number;
  /** Attempts as the clients' calls counted them; equals `calls` (a conservation check). */
  readonly attempts: number;
  readonly succeeded: number;
  readonly gaveUp: number;
  /** How many times each client finished: exactly once each (a conservation check). */
  readonly finishes: readonly number[];
  /** Why the clients that gave up stopped (the core's stop reasons), with counts. */
  readonly stopReasons: Readonly<Record<string, number>>;
  /** Completion times of the clients that succeeded. */
  readonly completion: { readonly p50?: number; readonly p99?: number; readonly max?: number };
  readonly load: Histogram;
  /** The most requests that reached the server in one 100 ms bucket, over the whole run and once it is up. */
  readonly peak: { readonly count: number; readonly at: number };
  readonly peakAfterRecovery: { readonly count: number; readonly at: number };
  /** What the server serves in 100 ms once it is back. */
  readonly capacityPer100ms: number;
  /** When the last client finished. */
  readonly end: number;
}

/** Delays shared by the strategies of other libraries: the project's own base and cap, so only the shape differs. */
const BASE = 1000;
const CAP = 30_000;

/**
 * The strategies of the herd scenario. The first six stand for what other retry code does (no budget, the same
 * number of retries, so only the timing differs); the next two are `createBackoff()` with no options at all
 * (full jitter, 3 retries, the budget on, Retry-After honoured) against a server without and with Retry-After;
 * the last is the defaults with the first six rows' retry count, against the server with Retry-After.
 */
export function herdStrategies(retries: number): HerdStrategy[] {
  const common = { retries, budget: false } as const;
  return [
    {
      id: 'immediate',
      label: 'immediate retry',
      options: { ...common, baseDelay: 0, maxDelay: 0, jitter: 'none' },
      retryAfter: false,
    },
    {
      id: 'fixed',
      label: 'fixed 1 s',
      options: { ...common, baseDelay: BASE, maxDelay: BASE, factor: 1, jitter: 'none' },
      retryAfter: false,
    },
    {
      id: 'exponential',
      label: 'exponential, no jitter',
      options: { ...common, baseDelay: BASE, maxDelay: CAP, jitter: 'none' },
      retryAfter: false,
    },
    {
      id: 'full',
      label: 'full jitter',
      options: { ...common, baseDelay: BASE, maxDelay: CAP, jitter: 'full' },
      retryAfter: false,
    },
    {
      id: 'equal',
      label: 'equal jitter',
      options: { ...common, baseDelay: BASE, maxDelay: CAP, jitter: 'equal' },
      retryAfter: false,
    },
    {
      id: 'decorrelated',
      label: 'decorrelated jitter',
      options: { ...common, baseDelay: BASE, maxDelay: CAP, jitter: 'decorrelated' },
      retryAfter: false,
    },
    { id: 'defaults', label: 'backoff defaults', options: {}, retryAfter: false },
    { id: 'defaults-retry-after', label: 'backoff defaults + Retry-After', options: {}, retryAfter: true },
    {
      // The same retry count as the first six rows. Without Retry-After this is exactly the full-jitter row:
      // a client's own budget (20 retries) never runs out on one request.
      id: 'retries-retry-after',
      label: `backoff, retries: ${retries} + Retry-After`,
      options: { retries },
      retryAfter: true,
    },
    // What the server's own spread buys: for clients that come back exactly when told, and for the defaults.
    {
      id: 'exact-retry-after',
      label: 'retryAfterSpread: 0 + Retry-After',
      options: { retryAfterSpread: 0 },
      retryAfter: true,
    },
    {
      id: 'exact-server-spread',
      label: 'retryAfterSpread: 0 + server-spread Retry-After',
      options: { retryAfterSpread: 0 },
      retryAfter: true,
      serverSpread: true,
    },
    {
      id: 'defaults-server-spread',
      label: 'backoff defaults + server-spread Retry-After',
      options: {},
      retryAfter: true,
      serverSpread: true,
    },
  ];
}

/**
 * The server: down (503 to everything) until `downFor`, then a token bucket that serves `capacity` requests
 * per second with a burst of 100 ms worth, answering 503 to the excess. With `retryAfter`, a 503 during the
 * outage says when it ends (a maintenance window the load balancer knows) and an overload 503 says 1 s; with
 * `serverSpread`, each adds a random whole number of seconds below `clients / capacity`, the server's recipe.
 */
class HerdServer {
  readonly #config: HerdConfig;
  readonly #retryAfter: boolean;
  /** The server's own spread, in whole seconds (0: none), and its random stream. */
  readonly #spread: number;
  readonly #random: Random;
  readonly #burst: number;
  #tokens: number;
  #refilledAt: number;

  constructor(config: HerdConfig, strategy: HerdStrategy) {
    this.#config = config;
    this.#retryAfter = strategy.retryAfter;
    this.#spread = strategy.serverSpread ? Math.ceil(config.clients / config.capacity) : 0;
    this.#random = mulberry32(deriveSeed(config.seed, 'herd', 'server'));
    this.#burst = Math.max(1, config.capacity / 10);
    this.#tokens = this.#burst;
    this.#refilledAt = config.downFor;
  }

  handle(now: number): Outcome {
    const { downFor, capacity } = this.#config;
    if (now < downFor) return this.#unavailable(Math.max(1, Math.ceil((downFor - now) / 1000)));
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#refilledAt) * capacity) / 1000);
    this.#refilledAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return OK;
    }
    return this.#unavailable(1);
  }

  #unavailable(seconds: number): Outcome {
    if (!this.#retryAfter) return response(503);
    const spread = this.#spread > 0 ? Math.floor(this.#random() * this.#spread) : 0;
    return response(503, { 'retry-after': String(seconds + spread) });
  }
}

/** Runs the herd once with one strategy. Deterministic for a given config and seed. */
export function runHerd(config: HerdConfig, strategy: HerdStrategy): HerdResult {
  const queue = new EventQueue();
  const server = new HerdServer(config, strategy);
  const network = new Network(queue, config.latency, mulberry32(deriveSeed(config.seed, 'herd', 'network')));
  const load = new Histogram(100);
  const finishes = new Array<number>(config.clients).fill(0);
  const stopReasons: Record<string, number> = {};
  const completions: number[] = [];
  let calls = 0;
  let attempts = 0;
  let end = 0;
  // Its own stream, so that spreading the starts leaves the jitter and network draws as they were.
  const starts = mulberry32(deriveSeed(config.seed, 'herd', 'start'));
  const startSpread = config.startSpread ?? 0;

  const launch = (i: number): void => {
    // One policy per client, so each has its own budget, as N separate processes would.
    const policy = createBackoff({
      ...strategy.options,
      random: mulberry32(deriveSeed(config.seed, 'herd', 'jitter', i)),
      now: () => queue.now,
    });
    // Started when the client sends, so that a deadline counts from its first attempt.
    const state = startCall(policy, { method: 'GET', url: '/status' });
    drive(
      queue,
      state,
      (respond) =>
        network.call((now) => {
          calls++;
          load.add(now);
          return server.handle(now);
        }, respond),
      {
        onFinish: (decision, outcome) => {
          finishes[i] = (finishes[i] ?? 0) + 1;
          attempts += state.attempts;
          end = Math.max(end, queue.now);
          if (outcome.type === 'response' && outcome.status === 200) {
            completions.push(queue.now);
          } else {
            stopReasons[decision.reason] = (stopReasons[decision.reason] ?? 0) + 1;
          }
        },
      },
    );
  };
  for (let i = 0; i < config.clients; i++) {
    if (startSpread > 0) queue.at(starts() * startSpread, () => launch(i));
    else launch(i);
  }
  queue.run();

  return {
    strategy,
    clients: config.clients,
    calls,
    attempts,
    succeeded: completions.length,
    gaveUp: config.clients - completions.length,
    finishes,
    stopReasons,
    completion: definedOnly({
      p50: quantile(completions, 0.5),
      p99: quantile(completions, 0.99),
      max: quantile(completions, 1),
    }),
    load,
    peak: load.peak(),
    peakAfterRecovery: load.peak(config.downFor),
    capacityPer100ms: config.capacity / 10,
    end,
  };
}

/** Drops undefined values (exactOptionalPropertyTypes: an absent key, not an explicit undefined). */
function definedOnly<T extends Record<string, number | undefined>>(values: T): { [K in keyof T]?: number } {
  const out: { [K in keyof T]?: number } = {};
  for (const key of Object.keys(values) as Array<keyof T>) {
    const value = values[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
