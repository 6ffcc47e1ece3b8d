import type { ResolvedResumeOptions, ResumeOptions } from '../features/resume/options.js';
import type { TracerLike } from '../features/tracing/otel.js';
import type { RetryBudget, RetryBudgetOptions } from '../run/budget.js';
import type {
  AttemptContext,
  DelayContext,
  HedgeEvent,
  PacerHoldEvent as HoldEvent,
  RetryEvent,
  ShouldRetryContext,
} from '../run/events.js';
import type { NetworkStatus } from '../run/offline.js';
import type { FeatureSource, StrategySource } from '../run/roles.js';
import type { TimerProvider } from '../run/sleep.js';
import type { PeerOptionNames } from './peer-names.js';

/** What the `circuitBreaker` option takes: a `CircuitBreaker`. */
export interface CircuitBreakerLike extends FeatureSource {
  /** Adds a listener to every state change. */
  listen(listener: (change: { readonly to: string }) => void): void;
  /** Every origin's circuit. */
  toJSON(): { readonly origins: Readonly<Record<string, { readonly state: string }>> };
}

/** What the `metrics` option takes: a `BackoffMetrics`. */
export interface MetricsLike extends FeatureSource {
  snapshot(): unknown;
}

/** What the `pacer` option takes: a `Pacer`. */
export interface PacerLike extends FeatureSource {
  nextSend(key: string, now?: number): number | PromiseLike<number>;
}

/** What the `hedge` option takes: a `Hedge`. */
export type HedgeLike = StrategySource;

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
 * what the callbacks get of the client: its response and error types, where the adapter knows them. Other retry
 * libraries' option names (`retryCondition`, `limit`, ...) are here too, deprecated and typed so that no value fits:
 * the editor's error says what to write instead, as the error at run time does.
 */
export interface BackoffOptions<Res = unknown, Err = unknown> extends PeerOptionNames {
  /**
   * How many times a failed request may be retried by its own backoff. A wait the server asked for (Retry-After
   * and friends) does not count against it: `serverRetries` and `deadline` bound those (without a deadline, 2 x
   * `maxRetryAfter` from the first ask), with `maxRetryAfter` and the budget. `0` means no retry at all, asked for
   * or not.
   * @default 3
   */
  retries?: number | undefined;
  /**
   * How many retries of one call may wait a delay the server asked for (Retry-After and friends), apart from
   * `retries`: asked once more, the call ends with the reason `'server-retries-exhausted'`. A cap you can raise
   * but not remove (an integer from 0 to 100; `Infinity` is refused): a server that keeps answering
   * `Retry-After: 0` must not keep a call going. Each repeated ask also waits at least 100 ms, doubled each time.
   * @default 10
   */
  serverRetries?: number | undefined;
  /**
   * The delay before the first retry, in ms, before jitter.
   * @default 1000
   */
  baseDelay?: number | undefined;
  /**
   * The cap on a computed delay, in ms. Applied before jitter, so jitter never exceeds it. `Infinity` (ky's and
   * exponential-backoff's "no cap") is the longest wait a timer can make, 2147483647 ms (about 24.8 days).
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
   * [baseDelay, 3 x previous], capped. `'none'`: exactly v. ky's `jitter: true` is `'full'`, its `false` `'none'`.
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
   * no retry: the call ends at once and reports the server's delay. `Infinity` honours any delay a timer can wait,
   * up to 2147483647 ms (about 24.8 days); a longer one still ends the call.
   * @default 60000
   */
  maxRetryAfter?: number | undefined;
  /**
   * How widely a wait the server asked for (Retry-After and friends) is spread, so that clients told the same
   * moment do not all come back at it: the wait is the server's delay plus a random share of a window of
   * `retryAfterSpread x min(1.5 x the delay, 3.5 s)`, doubled each time the same call is told to wait again (up to
   * 30 s), and starting no sooner than the previous window closes. `0` waits exactly what the server said. The
   * window never passes `maxRetryAfter` or `deadline`.
   * @default 1
   */
  retryAfterSpread?: number | undefined;
  /**
   * A bound on the whole call, in ms from the first attempt: no wait is started that would end after it.
   * Without one, the waits a server asks for still end within 2 x `maxRetryAfter` of its first ask.
   * `Infinity` is no deadline.
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
   * Overrides the verdict on one failed attempt: `true` retries it, `false` does not, `undefined` keeps the
   * default rules. It is not asked about a success (a status below 400 that `statusCodes` does not list), as no
   * peer's condition is; a 2xx listed there is asked about. It may return a Promise of one of those (it is
   * awaited; an abort still ends the call at once, and the deadline stops it on the attempt's answer). It gets the client's own response object for a response. A
   * throw or a rejection ends the call with that error (a rejection with no Error, `undefined` or a string, as a
   * TypeError naming `shouldRetry`), reason `'callback-error'`. The method gate, body replayability, `retries`,
   * `deadline`, `maxRetryAfter` and the budget still apply.
   * @default undefined
   */
  shouldRetry?: ShouldRetry<Res, Err> | undefined;
  /**
   * Called before every send: the first attempt, each retry and each hedge's copy, with the attempt's and retry's
   * numbers, how the previous attempt ended, and this send's headers to change (a fresh token or signature, an
   * attempt-number header). The first attempt too, so that one hook shapes every request the same way. It may
   * return a Promise: its time counts against `deadline` (one still pending at the deadline ends the call there,
   * aborting its `signal`; a send whose hook ends past it does not go) and an abort ends it at once. The Idempotency-Key is read after it: a retry of a non-idempotent request that lost its key (or
   * got another) is not sent. A throw or a rejection ends the call with that error, reason `'callback-error'`.
   * @default undefined
   */
  beforeAttempt?: Callback<AttemptContext<Err>, unknown> | undefined;
  /**
   * A timeout for each attempt, in ms: an attempt not answered by then is aborted and is a `'timeout'` failure,
   * retried by the usual rules (a non-idempotent request without a key only when it provably never left). The
   * caller's signal and `deadline` still bound the whole call, and an attempt never runs past the deadline.
   * `withBackoff` only: axios's and ky's own `timeout` already is per attempt.
   * @default undefined (no timeout of its own)
   */
  attemptTimeout?: number | undefined;
  /**
   * Spans for every call: an OpenTelemetry `Tracer` (`trace.getTracer('my-app')`). One span per call and one
   * client span per attempt (and per hedge's copy) after the HTTP client conventions, each wait, hold and hedge an
   * event on the call's span; the trace context goes to the server on every attempt. Its code loads the first time
   * a call uses it: a bundle that never sets it pays only for the load.
   * @default undefined
   */
  tracer?: TracerLike | undefined;
  /**
   * More query parameters whose values are secrets, redacted in the spans' `url.full` (`?token=REDACTED`): matched
   * by name, case-sensitively. The OpenTelemetry HTTP conventions' own list is always redacted (`AWSAccessKeyId`,
   * `Signature`, `sig`, `X-Goog-Signature`, `X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`), and so
   * are a user and password in the URL.
   * @default []
   */
  redactQueryParams?: readonly string[] | undefined;
  /**
   * Called before every wait. If it returns a Promise, the wait starts once it resolves (an abort still ends the
   * call at once, and the deadline at its time). If it throws or rejects, the call ends with that error and no retry is made.
   * @default undefined
   */
  onRetry?: OnRetry<Err> | undefined;
  /**
   * Hedged requests: a `new Hedge({ delay, max })`, for this client alone or shared between clients, or `false`
   * for none. When an attempt has not answered after `delay` ms, a copy of it is sent (up to `max` copies per
   * attempt); the first answer wins and the others are aborted. Only a request that may be sent twice is hedged
   * (an idempotent method or an Idempotency-Key, and a body that can be sent again); each copy takes a
   * retry-budget token, and no copy goes into an open circuit, past a pacer's hold or after the deadline. An
   * instance, not options: so a bundle that never imports `Hedge` does not carry its code.
   * @default false
   */
  hedge?: HedgeLike | false | undefined;
  /**
   * Called before each hedge (a copy of an attempt that has not answered yet) is sent. A returned Promise is
   * awaited before the copy goes (an abort or the deadline ends it). If it throws or rejects, the call ends with
   * that error and every copy in flight is aborted.
   * @default undefined
   */
  onHedge?: Callback<HedgeEvent, unknown> | undefined;
  /**
   * Bodies that survive a cut: when the body of a GET breaks after the headers (`TypeError: terminated`, a reset
   * mid-download, an event stream cut by a proxy), the call goes on where it stopped, and your stream never sees
   * the cut. A download continues with `Range` and `If-Range` when the server proves the rest is of the same
   * representation (a strong ETag, or a Last-Modified); an event stream reconnects with `Last-Event-ID` after the
   * wait its `retry:` field asked for, handing you whole events only; a body cut before any byte reached you is
   * requested again whole. A body that cannot go on safely (the file changed, the server ignores ranges, the body
   * is gzip-encoded) fails with a `ResumeError` whose `code` says why, never with spliced bytes. Each resume is a
   * retry of the same call: it waits (an event stream's `retry:` instead of the backoff), takes a budget token,
   * counts against `retries` and `deadline`, and shows in the result (`attempts`, `resumes`) and the metrics. Only
   * GET and HEAD bodies; with axios, only `responseType: 'stream'` (a buffered body is retried whole). Its code is
   * loaded with `import()` by the first call that needs it.
   * @default false
   */
  resume?: boolean | ResumeOptions | undefined;
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
  readonly serverRetries: number;
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
  readonly retryAfterSpread: number;
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
  readonly hedge: HedgeLike | undefined;
  readonly onHedge: ((event: HedgeEvent) => unknown) | undefined;
  readonly beforeAttempt: ((context: AttemptContext) => unknown) | undefined;
  readonly attemptTimeout: number | undefined;
  readonly tracer: TracerLike | undefined;
  readonly redactQueryParams: ReadonlySet<string>;
  readonly resume: ResolvedResumeOptions | undefined;
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
  serverRetries: 10,
  baseDelay: 1000,
  maxDelay: 30_000,
  factor: 2,
  jitter: 'full',
  idempotencyKeyHeader: 'Idempotency-Key',
  maxRetryAfter: 60_000,
  retryAfterSpread: 1,
  retryOnTimeout: true,
  shouldRetryHeaders: true,
} as const;
