import type { RetryReason, StopReason } from '../decide/reasons.js';
import type { HeadersLike } from '../http/headers.js';
import type { Outcome } from '../http/outcome.js';

/**
 * What `shouldRetry` is asked about: one failed attempt. It is never asked about a success by the rules (a status
 * below 400 that `statusCodes` does not list), as axios-retry, retry-axios and ky never ask about one: axios-retry's
 * `retryCondition: (e) => e.response?.status !== 200` becomes `shouldRetry: ({ status }) => status !== 200`, and a
 * 201 is not retried. A 2xx that `statusCodes` lists (a 202 polled until it is a 200) is a failure, and is asked
 * about. `Res` and `Err` are the client's own response and error types, where the adapter knows them (axios:
 * `AxiosResponse`, `AxiosError`; ky and fetch: `Response`).
 */
export interface ShouldRetryContext<Res = unknown, Err = unknown> {
  /** The attempt that just finished, 1-based. */
  readonly attempt: number;
  /** The most retries this request may make (`retries`): attempt `retries + 1` is the last. */
  readonly retries: number;
  readonly method: string;
  readonly url: string | undefined;
  /** The response status, when the attempt got a response. */
  readonly status: number | undefined;
  /** The error, when the attempt failed without a response. */
  readonly error: Err | undefined;
  /**
   * The client's own response object, when the attempt got one: fetch's `Response` (withBackoff, ky) or the
   * `AxiosResponse`. A fetch `Response` body can be read once: read `response.clone()` to leave the caller theirs.
   */
  readonly response: Res | undefined;
  /** The response headers, when the attempt got a response (read them case-insensitively with `headerGetter`). */
  readonly headers: HeadersLike | undefined;
  readonly outcome: Outcome;
  /** What the default rules would say, before `shouldRetry`. */
  readonly retryable: boolean;
}

/** What the `delay` option is asked: the attempt that failed (as `shouldRetry` sees it) and the retry to come. */
export interface DelayContext<Res = unknown, Err = unknown> extends ShouldRetryContext<Res, Err> {
  /** Which retry the wait leads to, 1-based. */
  readonly retry: number;
  /** The delay the server asked for (Retry-After and the like), in ms, when it asked. */
  readonly serverDelay: number | undefined;
  /** The wait the policy would use without `delay`: the computed backoff, or the server's delay plus its jitter. */
  readonly computed: number;
}

/** Passed to `onRetry` before every wait. */
export interface RetryEvent<Err = unknown> {
  /** Which retry this wait leads to, 1-based (attempt `retry + 1` follows it). */
  readonly retry: number;
  /** The most retries this request may make (`retries`), for "attempt k of n" displays. */
  readonly retries: number;
  /** The wait about to start, in ms. */
  readonly delay: number;
  /** The server-requested delay the wait is based on, when there was one. */
  readonly serverDelay: number | undefined;
  readonly reason: RetryReason;
  readonly method: string;
  readonly url: string | undefined;
  readonly status: number | undefined;
  readonly error: Err | undefined;
  /**
   * `true` when the attempt failed with a network error while the device was offline: the wait lasts until it
   * is back online (and at least `delay`), so a page can say "Waiting for the network…".
   */
  readonly waitingForNetwork: boolean;
}

/** Passed to `onHedge` before a hedge (a copy of an attempt that has not answered yet) is sent. */
export interface HedgeEvent {
  /** Which copy of the attempt this is: 2 for the first hedge. */
  readonly copy: number;
  /** How long the attempt had gone unanswered when the copy was sent, in ms: the hedge delay. */
  readonly delay: number;
  readonly method: string;
  readonly url: string | undefined;
  /** The attempt the copy belongs to, 1-based (copies are not attempts). */
  readonly attempt: number;
}

/** One send's request headers, as `beforeAttempt` may change them: that send's alone, case-insensitive names. */
export interface AttemptHeaders {
  /** The header's value as it will be sent, `null` when absent. */
  get(name: string): string | null;
  /** Sets a header, replacing its value. */
  set(name: string, value: string): void;
  /** Removes a header. Removing the Idempotency-Key makes the request keyless: a POST is then never sent again. */
  delete(name: string): void;
}

/**
 * Passed to `beforeAttempt` before every send: the first attempt, each retry, each hedge's copy. Only the headers
 * may change: the method, the URL and the body stay what the retry rules were decided on (a body already sent
 * once may be gone).
 */
export interface AttemptContext<Err = unknown> {
  /** The attempt about to be sent, 1-based; a hedge's copy has its attempt's number. */
  readonly attempt: number;
  /** Which retry it is: 0 for the first attempt. */
  readonly retry: number;
  /** Which copy of the attempt: 1, or 2 and up for a hedge. */
  readonly copy: number;
  readonly method: string;
  readonly url: string | undefined;
  /** How the attempt before this one ended: its status, or its error. `undefined` before the first retry. */
  readonly previous: { readonly status: number | undefined; readonly error: Err | undefined } | undefined;
  /** This send's request headers: set a fresh token or signature, or remove one. */
  readonly headers: AttemptHeaders;
  /** Aborted when the call is (or, for a hedge's copy, when another copy won): hand it to your own requests. */
  readonly signal: AbortSignal;
}

/** What a finished call carries (on its response or its error): attempts made and time spent waiting. */
export interface BackoffResult {
  /** Attempts sent, including the first. */
  readonly attempts: number;
  /** Total time spent in backoff waits, in ms. */
  readonly totalDelay: number;
  /** The last decision's reason: why it stopped (`'aborted'` when the caller aborted, also during a wait). */
  readonly reason: StopReason | RetryReason;
  /** The server-requested delay on the last response, in ms, when it had one (e.g. one above maxRetryAfter). */
  readonly serverDelay: number | undefined;
  /** Hedges sent (copies of an attempt beyond the first, counted apart from attempts); 0 without `hedge`. */
  readonly hedges: number;
  /** Whether the answer the caller got came from a hedge rather than the attempt's first copy. */
  readonly hedgeWon: boolean;
  /** Time the `pacer` held sends of this call, in ms; absent when it held none. Not part of `totalDelay`. */
  readonly held?: number;
  /**
   * Continuations of the body after a cut (`resume`): each sent the rest (a range, an event stream's
   * reconnection) or, when nothing had been read, the whole request again. Present on a call with `resume`'s body;
   * read it when the body is done: the result shows each continuation as it happens.
   */
  readonly resumes?: number;
}

/** A hold before a send: `'rate-limit'` when the server's quota is spent, `'throttled'` when 429s slowed the key. */
export interface Held {
  readonly delay: number;
  readonly reason: 'rate-limit' | 'throttled';
  readonly key: string;
}

/** Passed to `onHold` before a send is held. */
export interface PacerHoldEvent {
  /** The hold about to start, in ms. */
  readonly delay: number;
  /**
   * `'rate-limit'`: the server's quota is spent (its headers or a 429's Retry-After); `'throttled'`: 429s slowed
   * the key.
   */
  readonly reason: Held['reason'];
  /** The quota's key (the origin by default). */
  readonly key: string;
  readonly method: string;
  readonly url: string | undefined;
  /** The attempt the hold comes before, 1-based. */
  readonly attempt: number;
}
