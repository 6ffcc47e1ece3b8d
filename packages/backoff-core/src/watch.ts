import type { RetryBudget, RetryKind } from './budget.js';
import {
  type Decision,
  type RequestDescription,
  type RetryDecision,
  type RetryGate,
  RetryState,
  type StopDecision,
  serverSaid,
} from './decision.js';
import type { BackoffResult } from './events.js';
import type { ResolvedOptions } from './options.js';
import type { Outcome } from './outcome.js';
import type { StopReason } from './reasons.js';
import { parseRetryAfter } from './server-timing.js';
import { isThenable } from './sleep.js';

/**
 * What a policy's optional observer of its calls hears (the circuit breaker and the metrics), from the
 * retry states of its calls (`WatchedState`). The core reaches it only through `Watchable.watcher`, so a bundle
 * that never creates a `CircuitBreaker` or a `BackoffMetrics` carries none of it: `RetryState` itself watches
 * nothing.
 */
export interface CallWatcher<Call = unknown> {
  /**
   * A call starts, before its first attempt. Throws (a `CircuitOpenError`) to refuse it: nothing is sent. Returns
   * what the watcher keeps of the call, handed back to its other hooks.
   */
  admit?(state: RetryState): Call;
  /**
   * An attempt ended with `outcome`; for a 5xx response, `retryable` says whether its status is one the policy
   * retries (in `statusCodes`, or the server's `x-should-retry: true`; a server's `false` does not clear it: it
   * asks for no retry, it does not say the backend is well) and `serverDelay` is its Retry-After in ms. Returns
   * `true` when no retry may wait (the origin's circuit is not closed): the call then stops with the reason
   * `'circuit-open'`.
   */
  attempt?(call: Call, outcome: Outcome, retryable: boolean, serverDelay: number | undefined): boolean;
  /** A wait is over and the retry is about to go. Throws (a `CircuitOpenError`) to refuse it. */
  resume?(call: Call): void;
  /**
   * The call ended, with the reason it stopped (`'aborted'` when its wait was interrupted). `last` is the status
   * or error kind of the attempt it stopped on; none when it stopped without one (refused, aborted before it
   * began, or ended during a wait).
   */
  end(state: RetryState, reason: string, call?: Call, last?: number | string): void;
}

/** The retry state class of a watched policy: `Backoff.start` makes its calls' states with it. */
export interface WatchedState {
  new (options: ResolvedOptions, budget: RetryBudget | undefined, request?: RequestDescription): RetryState;
  /** The watcher its states report to. */
  readonly watch: CallWatcher;
}

/** Something that watches a policy's calls: a `CircuitBreaker` or a `BackoffMetrics`. */
export interface Watchable {
  /** The retry state class for the policy with `options` (called by `createBackoff`). */
  watcher(options: ResolvedOptions): WatchedState;
}

/** The retry state class whose states report to `watch`. */
export function watched<Call>(watch: CallWatcher<Call>): WatchedState {
  return class extends WatchedRetryState {
    static readonly watch = watch;
    constructor(options: ResolvedOptions, budget: RetryBudget | undefined, request?: RequestDescription) {
      super(options, budget, request, watch);
    }
  };
}

/**
 * The budget as a watched call sees it, when its watcher can refuse retries (a breaker): a retry into a circuit
 * that is not closed is refused right before the budget, so the gates keep their order and it spends no token.
 */
class CircuitGate implements RetryGate {
  /** What the watcher said of the attempt being decided: its origin's circuit is not closed. */
  open: boolean | undefined;
  /** The call was refused: a retry at the gate, or after its wait. */
  refused = false;
  readonly #budget: RetryBudget | undefined;

  constructor(budget: RetryBudget | undefined) {
    this.#budget = budget;
  }

  tryAcquire(kind?: RetryKind): boolean {
    if (!this.open) return this.#budget?.tryAcquire(kind) ?? true;
    this.refused = true;
    return false;
  }

  recordSuccess(): void {
    this.#budget?.recordSuccess();
  }
}

/**
 * A retry state that reports its call to a watcher: admitted at the start, each attempt told before it is
 * decided (so a failed probe re-opens its circuit first), refused after a wait into an open circuit, and the end
 * told once (a ky attempt decided again does not count twice).
 */
class WatchedRetryState extends RetryState {
  /** Gone once it was told that the call ended: it hears nothing more of this call. */
  #watch: CallWatcher | undefined;
  /** What the watcher keeps of this call (`admit`'s answer). */
  readonly #call: unknown;
  readonly #options: ResolvedOptions;
  readonly #gate: CircuitGate | undefined;

  constructor(
    options: ResolvedOptions,
    budget: RetryBudget | undefined,
    request: RequestDescription | undefined,
    watch: CallWatcher,
  ) {
    const gate = watch.attempt && new CircuitGate(budget);
    super(options, gate || budget, request);
    this.#options = options;
    this.#gate = gate;
    this.#watch = watch;
    this.#call = watch.admit?.(this);
  }

  /** The status or error kind of the attempt being decided: what the call stopped on, if it stops. */
  #last: number | string | undefined;

  #end(reason: string, last?: number | string): void {
    this.#watch?.end(this, reason, this.#call, last);
    this.#watch = undefined;
  }

  /** Tells the watcher of an attempt, before the core decides it (an abort says nothing about the server). */
  #attempt(outcome: Outcome): void {
    this.#last = outcome.type === 'response' ? outcome.status : outcome.kind;
    const gate = this.#gate;
    if (gate === undefined) return;
    gate.refused = false;
    gate.open = undefined;
    if (outcome.type === 'error' && outcome.kind === 'abort') return;
    let retryable = false;
    let serverDelay: number | undefined;
    if (outcome.type === 'response' && outcome.status >= 500) {
      // Whether the status says the backend is failing: one of statusCodes, or one the server asks to retry. A
      // server's `false` is about retrying, not about its health: a 503 that says it is still a failure.
      const options = this.#options;
      serverDelay = parseRetryAfter(outcome.headers, options.now());
      retryable = options.statusCodes.has(outcome.status) || serverSaid(options, outcome) === true;
    }
    gate.open = this.#watch?.attempt?.(this.#call, outcome, retryable, serverDelay);
  }

  /** A decision made: a refused retry becomes the stop `'circuit-open'`, and a stop is told to the watcher. */
  #decided(decision: Decision): Decision {
    if (decision.retry) return decision;
    const stop: Decision = this.#gate?.refused
      ? { retry: false, reason: 'circuit-open', serverDelay: decision.serverDelay }
      : decision;
    this.#end(stop.reason, this.#last);
    return stop;
  }

  /** `promise`, telling the watcher that the call ended if it rejects (with the reason the core stopped for). */
  #ending<T>(promise: Promise<T>): Promise<T> {
    return promise.catch((error: unknown) => {
      this.#end(this.result().reason);
      throw error;
    });
  }

  override next(outcome: Outcome): Decision {
    this.#attempt(outcome);
    return this.#decided(super.next(outcome));
  }

  override decide(outcome: Outcome, signal?: AbortSignal | null): Decision | Promise<Decision> {
    this.#attempt(outcome);
    const decision = super.decide(outcome, signal);
    if (!isThenable(decision)) return this.#decided(decision);
    return decision.then(
      (made) => this.#decided(made),
      (error: unknown) => {
        // Only an abort ends the call here (a shouldRetry that rejected leaves it to its caller).
        if (signal?.aborted) this.#end('aborted');
        throw error;
      },
    );
  }

  override end(outcome: Outcome, reason: StopReason): StopDecision {
    const decision = super.end(outcome, reason);
    this.#end(reason, outcome.type === 'response' ? outcome.status : outcome.kind);
    return decision;
  }

  override abandon(): StopDecision {
    const decision = super.abandon();
    this.#end('aborted');
    return decision;
  }

  override result(): BackoffResult {
    const result = super.result();
    return this.#gate?.refused ? Object.freeze({ ...result, reason: 'circuit-open' }) : result;
  }

  override wait(decision: RetryDecision, signal?: AbortSignal | null): Promise<void> {
    return this.#ending(super.wait(decision, signal)).then(() => {
      try {
        // The retry is about to go: not into a circuit that opened meanwhile.
        this.#watch?.resume?.(this.#call);
      } catch (refusal) {
        (this.#gate as CircuitGate).refused = true;
        this.#end('circuit-open');
        throw refusal;
      }
    });
  }

  override announce(decision: RetryDecision, signal?: AbortSignal | null): Promise<void> {
    return this.#ending(super.announce(decision, signal));
  }
}
