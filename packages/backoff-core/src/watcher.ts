import type { Held } from './events.js';
import type { HeadersLike } from './headers.js';
import type { Outcome } from './outcome.js';

/** What a watcher sees of a call: the request and, when it ends, what was done. */
export interface WatchedCall {
  readonly method: string;
  readonly url: string | undefined;
  readonly attempts: number;
  readonly totalDelay: number;
  /** Hedges sent (copies beyond the first of each attempt). */
  readonly hedges: number;
  /** Whether the answer the caller got came from a hedge. */
  readonly hedgeWon: boolean;
}

/**
 * What an observer of a policy's calls hears (the circuit breaker, the metrics). The core composes the policy's
 * watchers in a list and tells each the same facts: it derives nothing a second time.
 */
export interface CallWatcher<Kept = unknown> {
  /**
   * A call starts, before its first attempt. Throws (a `CircuitOpenError`) to refuse it: nothing is sent. Returns
   * what the watcher keeps of the call, handed back to its other hooks.
   */
  admit?(call: WatchedCall, request?: { readonly headers?: HeadersLike | undefined }): Kept;
  /**
   * An attempt ended with `outcome`. For a 5xx response, `failing` says whether its status says the backend is
   * failing (one the policy retries, or one the server asks to retry: a server's `false` asks for no retry, it
   * does not say the backend is well) and `serverDelay` is the delay it asked for, in ms. Returns `true` when no
   * retry may wait (the origin's circuit is not closed): the call then stops with the reason `'circuit-open'`.
   * Every answer is told, successes included; `asked` is the delay any answer of 400 or above asked for.
   */
  attempt?(
    kept: Kept,
    outcome: Outcome,
    failing: boolean,
    serverDelay: number | undefined,
    asked: number | undefined,
  ): boolean;
  /**
   * An attempt is about to be sent: the hold it must wait first (its slot is reserved by answering), or none.
   * Throws (a `PacerDeadlineError`) when the hold would be longer than `within` ms, the deadline's rest.
   */
  hold?(kept: Kept, within: number): Held | undefined;
  /** A send is held for `delay` ms (every watcher hears it: the metrics count it). */
  held?(kept: Kept, delay: number, reason: Held['reason'], call: WatchedCall): void;
  /** A wait is over and the retry is about to go. Throws (a `CircuitOpenError`) to refuse it. */
  resume?(kept: Kept): void;
  /**
   * The call ended, with the reason it stopped (`'aborted'` when its wait was interrupted). `last` is the status
   * or error kind of the attempt it stopped on; none when it stopped without one (refused, aborted before it
   * began, or ended during a wait). `kept` is missing when the call was refused before this watcher admitted it.
   */
  end(call: WatchedCall, reason: string, kept: Kept | undefined, last?: number | string): void;
}

/** What a watcher is made from: the policy's clock and limits, and the other watchers' owners. */
export interface WatcherOptions {
  readonly now: () => number;
  readonly maxRetryAfter: number;
  readonly random: () => number;
  readonly circuitBreaker: CircuitBreakerLike | undefined;
}

/** Something that watches a policy's calls. */
export interface Watchable {
  /** The watcher for the policy with `options` (called by `createBackoff`). */
  watcher(options: WatcherOptions): CallWatcher;
  /**
   * Makes the call class that reports to `watchers` (watch.ts's `watched`). Reached through the watchers, so that a
   * bundle that never creates a breaker or metrics carries none of it.
   */
  readonly compose: (watchers: readonly CallWatcher[]) => unknown;
}

/** What the `circuitBreaker` option takes: a `CircuitBreaker`. */
export interface CircuitBreakerLike extends Watchable {
  /** Adds a listener to every state change. */
  listen(listener: (change: { readonly to: string }) => void): void;
  /** Every origin's circuit. */
  toJSON(): { readonly origins: Readonly<Record<string, { readonly state: string }>> };
}

/** What the `metrics` option takes: a `BackoffMetrics`. */
export interface MetricsLike extends Watchable {
  snapshot(): unknown;
}

/** What the `pacer` option takes: a `Pacer`. */
export type PacerLike = Watchable;
