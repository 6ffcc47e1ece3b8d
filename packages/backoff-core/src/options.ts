import type { RetryBudget, RetryBudgetOptions } from './budget.js';
import type {
  DelayContext,
  HedgeEvent,
  PacerHoldEvent as HoldEvent,
  RetryEvent,
  ShouldRetryContext,
} from './events.js';
import type { HedgeOptions, ResolvedHedge, ResponseTimes } from './hedge.js';
import type { NetworkStatus } from './network.js';
import type { TimerProvider } from './sleep.js';
import type { CircuitBreakerLike, MetricsLike, PacerLike } from './watcher.js';

/**
 * A callback option's type, checked as a method is: options typed with a client's own response and error types
 * (an `AxiosResponse`) are still options of the core, whose callbacks see `unknown`.
 */
type Callback<Arg, Result> = { bivariant(arg: Arg): Result }['bivariant'];

/** The `shouldRetry` option: a verdict on one outcome, now or as a Promise. */
export type ShouldRetry<Res = unknown, Err = unknown> = Callback<
  ShouldRetryContext<Res, Err>,
  boolean | undefined | PromiseLike<boolean | undefined>
>;

/** The `onRetry` option: told before every wait; a returned Promise is awaited before the wait starts. */
// `unknown`, not `void | PromiseLike<void>`: a union return type would reject `(e) => events.push(e)`.
export type OnRetry<Err = unknown> = Callback<RetryEvent<Err>, unknown>;

/** How a computed backoff delay is randomised. */
export type Jitter = 'full' | 'equal' | 'decorrelated' | 'none';

/**
 * The options shared by `createBackoff`, `withBackoff` and every adapter. All are optional. `Res` and `Err` type
 * what the callbacks get of the client: its response and error types, where the adapter knows them.
 */
export interface BackoffOptions<Res = unknown, Err = unknown> {
  /**
   * How many times a failed request may be retried (so at most `retries + 1` attempts).
   * @default 3
   */
  retries?: number | undefined;
  /**
   * The delay before the first retry, in ms, before jitter.
   * @default 1000
   */
  baseDelay?: number | undefined;
  /**
   * The cap on a computed delay, in ms. Applied before jitter, so jitter never exceeds it.
   * @default 30000
   */
  maxDelay?: number | undefined;
  /**
   * Growth factor between retries: retry n waits up to `baseDelay * factor ** (n - 1)`.
   * @default 2
   */
  factor?: number | undefined;
  /**
   * `'full'`: uniform in [0, v]. `'equal'`: v/2 plus uniform in [0, v/2]. `'decorrelated'`: uniform in
   * [baseDelay, 3 x previous], capped. `'none'`: exactly v.
   * @default 'full'
   */
  jitter?: Jitter | undefined;
  /**
   * A wait of your own before each retry, in ms (a linear delay, one per status, a fixed one in tests). It gets
   * what `shouldRetry` gets plus `retry` (1-based), `serverDelay` and `computed` (the wait the policy would use).
   * The server's delay stays a floor (a shorter answer waits `serverDelay`), and `maxRetryAfter`, `deadline`, the
   * budget and an abort still hold. It must return a finite number of ms, at least 0.
   * @default undefined (the computed backoff)
   */
  delay?: Callback<DelayContext<Res, Err>, number> | undefined;
  /**
   * Response statuses that are retried. 409 (with an Idempotency-Key) and 413 (with a server timing header)
   * are handled by their own rules and need not be listed.
   * @default [408, 429, 500, 502, 503, 504]
   */
  statusCodes?: readonly number[] | undefined;
  /**
   * Methods retried without an Idempotency-Key. Any other method (POST, PATCH, ...) is retried only when the
   * request carries the `idempotencyKeyHeader`.
   * @default ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE', 'QUERY']
   */
  methods?: readonly string[] | undefined;
  /**
   * The header whose presence makes a non-idempotent request retryable (matched case-insensitively).
   * @default 'Idempotency-Key'
   */
  idempotencyKeyHeader?: string | undefined;
  /**
   * `'auto'` adds a fresh key (a quoted UUID, as the IETF draft asks) to every request whose method is not in
   * `methods` and that has no key yet; a function returns the key to use. The same key is sent on every attempt
   * of one logical request. Off by default, because an added header can trigger a CORS preflight.
   * @default false
   */
  idempotencyKey?: 'auto' | (() => string) | false | undefined;
  /**
   * The longest server-requested delay (Retry-After and friends) that is honoured, in ms. A longer one means
   * no retry: the call ends at once and reports the server's delay.
   * @default 60000
   */
  maxRetryAfter?: number | undefined;
  /**
   * A bound on the whole call, in ms from the first attempt: no wait is started that would end after it.
   * @default undefined (no deadline)
   */
  deadline?: number | undefined;
  /**
   * Retry attempts that ended in the client's own per-attempt timeout. A connect timeout (undici's, or the OS's)
   * proves nothing was sent: it is a `'not-sent'` failure, retried whatever this says.
   * @default true
   */
  retryOnTimeout?: boolean | undefined;
  /**
   * Obey the server's own word on a failed response: `x-should-retry` and `Stripe-Should-Retry` set to `false`
   * mean no retry whatever the status; `true` makes the response retryable even if its status is not in
   * `statusCodes`. The method gate, `retries`, `deadline`, `maxRetryAfter` and the budget still apply, and
   * `shouldRetry` still has the last word. `false` ignores both headers.
   * @default true
   */
  shouldRetryHeaders?: boolean | undefined;
  /**
   * Where the device's online state comes from. When an attempt fails with a network error while it is
   * offline, the wait lasts until it is back online (and at least the computed delay): offline time spends no
   * retries and is not capped by `maxDelay`; `deadline` and an abort still end the wait at once. `false` turns
   * this off. Node has no online state, so there nothing waits.
   * @default the browser's (`navigator.onLine` and the `online` event) in a browser or worker; none in Node
   */
  network?: NetworkStatus | false | undefined;
  /**
   * The retry budget: a shared `RetryBudget`, options for a new one, or `false` for none. Each `createBackoff`
   * (each adapter instance) gets its own budget unless one is passed in.
   * @default a new RetryBudget({ reserve: 20, ratio: 0.1 })
   */
  budget?: RetryBudget | RetryBudgetOptions | false | undefined;
  /**
   * A circuit breaker per origin: `new CircuitBreaker(options)`, for this client alone or shared between
   * clients, or `false` for none. While an origin's circuit is open, calls to it fail at once with a
   * `CircuitOpenError` and nothing is sent; a retry never waits into an open circuit (reason `'circuit-open'`).
   * An instance, not `true`: so a bundle that never imports `CircuitBreaker` does not carry its code.
   * @default false
   */
  circuitBreaker?: CircuitBreakerLike | false | undefined;
  /**
   * Counters of calls, attempts, retries, waits, stop reasons and circuit changes: a `BackoffMetrics`, shareable
   * between clients (`metrics.snapshot()` reads them; it can record into an OpenTelemetry Meter too).
   * @default undefined (nothing counted)
   */
  metrics?: MetricsLike | false | undefined;
  /**
   * Pacing from the server's rate limit: a `new Pacer()`, for this client alone or shared between clients, or
   * `false` for none. It learns each key's (origin's) quota from every answer and holds new sends, retries
   * included, while it is spent, then lets them go no faster than the server's stated rate; without rate-limit
   * headers, 429s slow the key's send rate. A hold counts against `deadline` (one that would pass it fails at once
   * with a `PacerDeadlineError`), ends at once on abort, and is no attempt.
   * @default false
   */
  pacer?: PacerLike | false | undefined;
  /**
   * Called before every hold of the `pacer`, with its length, its reason (`'rate-limit'` or `'throttled'`), the
   * key, the request and the attempt it comes before: "rate limited, sending in 2.0 s".
   * @default undefined
   */
  onHold?: Callback<HoldEvent, unknown> | undefined;
  /**
   * Overrides the verdict on one outcome: `true` retries it, `false` does not, `undefined` keeps the default
   * rules. It may return a Promise of one of those (it is awaited; an abort still ends the call at once). It gets
   * the client's own response object for a response. A throw or a rejection ends the call with that error. The
   * method gate, body replayability, `retries`, `deadline`, `maxRetryAfter` and the budget still apply.
   * @default undefined
   */
  shouldRetry?: ShouldRetry<Res, Err> | undefined;
  /**
   * Called before every wait. If it returns a Promise, the wait starts once it resolves (an abort still ends the
   * call at once). If it throws or rejects, the call ends with that error and no retry is made.
   * @default undefined
   */
  onRetry?: OnRetry<Err> | undefined;
  /**
   * Hedged requests: when an attempt has not answered after `delay` ms, send a copy of it (up to `max` copies
   * per attempt), take the first answer and abort the others. `delay: 'auto'` learns it per origin from this
   * policy's recent response times (their p95, at least 10 ms, once 20 answers are known; no hedge before that).
   * Only a request that may be sent twice is hedged (an idempotent method or an Idempotency-Key, and a body that
   * can be sent again); each copy takes a retry-budget token, and no copy goes into an open circuit, past a
   * pacer's hold or after the deadline.
   * @default false
   */
  hedge?: HedgeOptions | false | undefined;
  /**
   * Called before each hedge (a copy of an attempt that has not answered yet) is sent. If it throws, the call
   * ends with that error and every copy in flight is aborted.
   * @default undefined
   */
  onHedge?: Callback<HedgeEvent, unknown> | undefined;
  /**
   * The source of randomness for jitter and generated keys' fallback: returns a number in [0, 1).
   * A value outside that range is treated as 1 (the longest wait).
   * @default Math.random
   */
  random?: (() => number) | undefined;
  /**
   * The clock, in ms since the epoch. Used for the deadline and HTTP-date headers.
   * @default Date.now
   */
  now?: (() => number) | undefined;
  /**
   * The timers used for waits (inject fake ones in tests).
   * @default globalThis.setTimeout / clearTimeout
   */
  timers?: TimerProvider | undefined;
}

/** The options after defaults and validation: what the policy actually runs on. */
export interface ResolvedOptions {
  readonly retries: number;
  readonly baseDelay: number;
  readonly maxDelay: number;
  readonly factor: number;
  readonly jitter: Jitter;
  readonly delay: ((context: DelayContext) => number) | undefined;
  readonly statusCodes: ReadonlySet<number>;
  readonly methods: ReadonlySet<string>;
  readonly idempotencyKeyHeader: string;
  readonly idempotencyKey: 'auto' | (() => string) | false;
  readonly maxRetryAfter: number;
  readonly deadline: number | undefined;
  readonly retryOnTimeout: boolean;
  readonly shouldRetryHeaders: boolean;
  readonly network: NetworkStatus | undefined;
  readonly circuitBreaker: CircuitBreakerLike | undefined;
  readonly metrics: MetricsLike | undefined;
  readonly pacer: PacerLike | undefined;
  readonly onHold: ((event: HoldEvent) => unknown) | undefined;
  readonly shouldRetry: ShouldRetry | undefined;
  readonly onRetry: OnRetry | undefined;
  readonly hedge: ResolvedHedge | undefined;
  readonly onHedge: ((event: HedgeEvent) => unknown) | undefined;
  /** The recent response times of the policy (for `hedge: { delay: 'auto' }`), shared by its extensions. */
  readonly responseTimes: ResponseTimes;
  readonly random: () => number;
  readonly now: () => number;
  readonly timers: TimerProvider;
}

/** The statuses retried by default. */
export const DEFAULT_STATUS_CODES: readonly number[] = [408, 429, 500, 502, 503, 504];

/** Methods that are idempotent by RFC 9110 (plus QUERY), so retried without a key. */
export const DEFAULT_METHODS: readonly string[] = [
  'GET',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PUT',
  'DELETE',
  'QUERY',
];

/** The defaults of every numeric and boolean option, in one place. */
export const DEFAULTS = {
  retries: 3,
  baseDelay: 1000,
  maxDelay: 30_000,
  factor: 2,
  jitter: 'full',
  idempotencyKeyHeader: 'Idempotency-Key',
  maxRetryAfter: 60_000,
  retryOnTimeout: true,
  shouldRetryHeaders: true,
} as const;
