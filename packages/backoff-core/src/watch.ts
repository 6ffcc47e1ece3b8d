import type { RetryState } from './decision.js';
import type { ResolvedOptions } from './options.js';
import type { Outcome } from './outcome.js';

/**
 * What the core tells a policy's optional observer of its calls (issue 15: the circuit breaker and the metrics).
 * The core reaches them only through this interface, on the object a `CircuitBreaker` or `BackoffMetrics` hands
 * out, so a bundle that never creates either carries none of their code.
 */
export interface CallWatcher {
  /** A call starts, before its first attempt. Throws (a `CircuitOpenError`) to refuse it: nothing is sent. */
  start(state: RetryState): void;
  /**
   * An attempt ended with `outcome`; `retryable` is the default rules' verdict on it. Returns `true` when no
   * retry may wait (the origin's circuit is not closed): the call then stops with the reason `'circuit-open'`.
   */
  attempt(state: RetryState, outcome: Outcome, retryable: boolean, serverDelay: number | undefined): boolean;
  /** A wait is over and the retry is about to go. Throws (a `CircuitOpenError`) to refuse it. */
  resume(state: RetryState): void;
  /** The call ended, with the reason it stopped (`'aborted'` when its wait was interrupted). */
  end(state: RetryState, reason: string): void;
}

/** Something that hands out a `CallWatcher` for a policy: a `CircuitBreaker` or a `BackoffMetrics`. */
export interface Watchable {
  watcher(options: ResolvedOptions, metrics?: Watchable): CallWatcher;
}
