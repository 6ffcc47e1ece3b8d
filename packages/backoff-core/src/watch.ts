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
import type { BackoffResult, Held } from './events.js';
import type { ResolvedOptions } from './options.js';
import type { Outcome } from './outcome.js';
import type { StopReason } from './reasons.js';
import { isThenable } from './sleep.js';
import type { CallWatcher } from './watcher.js';

/** The call class of a watched policy: `Backoff.start` makes its calls with it. */
export type WatchedState = new (
  options: ResolvedOptions,
  budget: RetryBudget | undefined,
  request?: RequestDescription,
) => RetryState;

/** The call class whose calls report to every watcher in `watchers`, in their order. */
export function watched(watchers: readonly CallWatcher[]): WatchedState {
  return class extends WatchedRetryState {
    constructor(options: ResolvedOptions, budget: RetryBudget | undefined, request?: RequestDescription) {
      super(options, budget, request, watchers);
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
  /** Gone once they were told that the call ended: they hear nothing more of this call. */
  #watchers: readonly CallWatcher[] | undefined;
  /** What each watcher keeps of this call (its `admit`'s answer), by its place in the list. */
  readonly #kept: unknown[] = [];
  readonly #options: ResolvedOptions;
  readonly #gate: CircuitGate | undefined;
  /** The place of the watcher that paces sends (a pacer) in the list, or -1. */
  readonly #pacer: number;

  constructor(
    options: ResolvedOptions,
    budget: RetryBudget | undefined,
    request: RequestDescription | undefined,
    watchers: readonly CallWatcher[],
  ) {
    const gate = watchers.some((watcher) => watcher.attempt) ? new CircuitGate(budget) : undefined;
    super(options, gate ?? budget, request);
    this.#options = options;
    this.#gate = gate;
    this.#watchers = watchers;
    this.#pacer = watchers.findIndex((watcher) => watcher.hold);
    try {
      for (const watcher of watchers) this.#kept.push(watcher.admit?.(this, request));
    } catch (refusal) {
      // Refused (an open circuit): nothing is sent, and every watcher hears that the call ended so.
      this.#end('circuit-open');
      throw refusal;
    }
  }

  /** The status or error kind of the attempt being decided: what the call stopped on, if it stops. */
  #last: number | string | undefined;

  #end(reason: string, last?: number | string): void {
    const watchers = this.#watchers;
    this.#watchers = undefined;
    watchers?.forEach((watcher, i) => {
      watcher.end(this, reason, this.#kept[i], last);
    });
  }

  /** Tells the watchers of an attempt, before the core decides it (an abort says nothing about the server). */
  protected override attempted(outcome: Outcome, serverDelay: number | undefined): void {
    this.#last = outcome.type === 'response' ? outcome.status : outcome.kind;
    const gate = this.#gate;
    if (gate === undefined) return;
    gate.refused = false;
    gate.open = undefined;
    if (outcome.type === 'error' && outcome.kind === 'abort') return;
    // Whether the status says the backend is failing: one of statusCodes, or one the server asks to retry. A
    // server's `false` is about retrying, not about its health: a 503 that says it is still a failure.
    const options = this.#options;
    const failing =
      outcome.type === 'response' &&
      outcome.status >= 500 &&
      (options.statusCodes.has(outcome.status) || serverSaid(options, outcome) === true);
    const delay = outcome.type === 'response' && outcome.status >= 500 ? serverDelay : undefined;
    this.#watchers?.forEach((watcher, i) => {
      if (watcher.attempt?.(this.#kept[i], outcome, failing, delay, serverDelay)) gate.open = true;
    });
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
    return this.#decided(super.next(outcome));
  }

  override decide(outcome: Outcome, signal?: AbortSignal | null): Decision | Promise<Decision> {
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

  /**
   * A hedge goes only when it can go at once: never into a circuit that is not closed, nor past a pacer's hold (a
   * hedge exists to answer sooner, and a held one would spend the quota for nothing). It then takes its slot.
   */
  protected override hedgeGoes(): boolean {
    try {
      this.#watchers?.forEach((watcher, i) => {
        watcher.resume?.(this.#kept[i]);
      });
      return this.#watchers?.[this.#pacer]?.hold?.(this.#kept[this.#pacer], 0) === undefined;
    } catch {
      return false;
    }
  }

  protected override hedgeCopy(copy: number, delay: number): boolean {
    try {
      return super.hedgeCopy(copy, delay);
    } catch (error) {
      this.#end('aborted');
      throw error;
    }
  }

  override wait(decision: RetryDecision, signal?: AbortSignal | null): Promise<void> {
    return this.#ending(super.wait(decision, signal)).then(this.#resume);
  }

  /** The send is about to go: not into a circuit that opened meanwhile. */
  readonly #resume = (): void => {
    try {
      this.#watchers?.forEach((watcher, i) => {
        watcher.resume?.(this.#kept[i]);
      });
    } catch (refusal) {
      (this.#gate as CircuitGate).refused = true;
      this.#end('circuit-open');
      throw refusal;
    }
  };

  override hold(): Held | undefined {
    const watchers = this.#watchers;
    const at = this.#pacer;
    const pacer = watchers?.[at];
    if (pacer === undefined) return undefined;
    let held: Held | undefined;
    try {
      held = pacer.hold?.(this.#kept[at], this.left());
    } catch (refusal) {
      // Held past the deadline: the call stops here, nothing more sent.
      this.stopped('deadline');
      this.#end('deadline');
      throw refusal;
    }
    if (held === undefined) return undefined;
    const { delay, reason, key } = held;
    watchers?.forEach((watcher, i) => {
      watcher.held?.(this.#kept[i], delay, reason, this);
    });
    const attempt = this.attempts + 1;
    this.#options.onHold?.({ delay, reason, key, method: this.method, url: this.url, attempt });
    return held;
  }

  override ready(signal?: AbortSignal | null): Promise<void> | undefined {
    const ready = super.ready(signal);
    // An open circuit fails fast after a hold too.
    return ready === undefined ? undefined : this.#ending(ready).then(this.#resume);
  }

  override announce(decision: RetryDecision, signal?: AbortSignal | null): Promise<void> {
    return this.#ending(super.announce(decision, signal));
  }
}
