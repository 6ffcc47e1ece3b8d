import type { RetryBudget } from './budget.js';
import { computeDelay, serverDelayWithJitter } from './delay.js';
import type { BackoffResult, RetryEvent } from './events.js';
import { type HeadersLike, headerGetter } from './headers.js';
import { generateIdempotencyKey } from './idempotency.js';
import type { ResolvedOptions } from './options.js';
import type { Outcome } from './outcome.js';
import type { RetryReason, StopReason } from './reasons.js';
import { parseRetryAfter } from './server-timing.js';
import { sleep } from './sleep.js';
import type { CallWatcher } from './watch.js';

/** One logical request, as the core needs to know it. */
export interface RequestDescription {
  /** @default 'GET' */
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  /** The request's headers, to find an Idempotency-Key the caller set. */
  readonly headers?: HeadersLike | undefined;
  /** `false` when the body is a one-shot stream that cannot be sent twice. @default true */
  readonly replayable?: boolean | undefined;
}

/** Retry: wait `delay` ms, then send attempt `retry + 1`. */
export interface RetryDecision {
  readonly retry: true;
  /** Which retry this is, 1-based. */
  readonly retryNumber: number;
  readonly delay: number;
  readonly reason: RetryReason;
  readonly serverDelay: number | undefined;
}

/** Stop: hand the caller this attempt's outcome. */
export interface StopDecision {
  readonly retry: false;
  readonly reason: StopReason;
  readonly serverDelay: number | undefined;
}

export type Decision = RetryDecision | StopDecision;

type Verdict = { retryable: true; reason: RetryReason } | { retryable: false; reason: StopReason };

/**
 * The retry state of one logical request: call `next(outcome)` after each attempt, and `wait(decision)` before
 * re-sending when it says to retry. Holds the attempt count, the total wait and the generated Idempotency-Key.
 */
export class RetryState {
  readonly #options: ResolvedOptions;
  readonly #budget: RetryBudget | undefined;
  readonly #started: number;
  readonly #hasKey: boolean;
  readonly #idempotent: boolean;
  readonly #replayable: boolean;
  #attempts = 0;
  #totalDelay = 0;
  #previousDelay: number | undefined;
  #last: Decision | undefined;
  #outcome: Outcome | undefined;
  /** The circuit breaker and metrics of the policy, when it has any (issue 15). */
  readonly #watch: CallWatcher | undefined;

  readonly method: string;
  readonly url: string | undefined;
  /**
   * The key generated for this request by `idempotencyKey`, when one was needed. The adapter sends it as
   * `idempotencyKeyHeader` on every attempt.
   */
  readonly idempotencyKey: string | undefined;

  /**
   * Throws a `CircuitOpenError` when the policy has a circuit breaker and the request's origin is open: the
   * call must fail with it, nothing sent.
   */
  constructor(
    options: ResolvedOptions,
    budget: RetryBudget | undefined,
    request: RequestDescription = {},
    watch?: CallWatcher,
  ) {
    this.#options = options;
    this.#budget = budget;
    this.#watch = watch;
    this.#started = options.now();
    this.method = (request.method ?? 'GET').toUpperCase();
    this.url = request.url;
    this.#replayable = request.replayable !== false;
    this.#idempotent = options.methods.has(this.method);
    // An empty value is no key: a server cannot deduplicate on it.
    const existing = headerGetter(request.headers)(options.idempotencyKeyHeader)?.trim() || undefined;
    const setting = options.idempotencyKey;
    this.idempotencyKey =
      existing === undefined && !this.#idempotent && setting !== false
        ? generateIdempotencyKey(setting)
        : undefined;
    this.#hasKey = existing !== undefined || this.idempotencyKey !== undefined;
    watch?.start(this);
  }

  /** Attempts recorded so far. */
  get attempts(): number {
    return this.#attempts;
  }

  /** Time spent in waits so far, in ms. */
  get totalDelay(): number {
    return this.#totalDelay;
  }

  /** Attempts, total wait and the last reason: what the caller's response or error carries. */
  result(): BackoffResult {
    return {
      attempts: this.#attempts,
      totalDelay: this.#totalDelay,
      reason: this.#last?.reason ?? 'success',
      serverDelay: this.#last?.serverDelay,
    };
  }

  /** The default verdict on an outcome, before `shouldRetry`. */
  #classify(outcome: Outcome, serverDelay: number | undefined): Verdict {
    const options = this.#options;
    if (outcome.type === 'response') {
      const { status } = outcome;
      if (options.statusCodes.has(status)) return { retryable: true, reason: 'status' };
      if (status === 409 && this.#hasKey) return { retryable: true, reason: 'idempotency-conflict' };
      if (status === 413 && serverDelay !== undefined)
        return { retryable: true, reason: 'payload-too-large-with-timing' };
      return { retryable: false, reason: status < 400 ? 'success' : 'not-retryable-status' };
    }
    switch (outcome.kind) {
      case 'network':
        return { retryable: true, reason: 'network-error' };
      case 'timeout':
        return options.retryOnTimeout
          ? { retryable: true, reason: 'timeout' }
          : { retryable: false, reason: 'timeout-not-retried' };
      default:
        return { retryable: false, reason: 'not-retryable-error' };
    }
  }

  #stop(reason: StopDecision['reason'], serverDelay: number | undefined): StopDecision {
    const decision: StopDecision = { retry: false, reason, serverDelay };
    this.#last = decision;
    this.#watch?.end(this, reason);
    return decision;
  }

  /** Records one finished attempt and decides whether to retry it (R1, R2, R4, R5, R6). */
  next(outcome: Outcome): Decision {
    const options = this.#options;
    this.#attempts++;
    this.#outcome = outcome;
    // A caller's abort ends the call: not even shouldRetry is asked.
    if (outcome.type === 'error' && outcome.kind === 'abort') return this.#stop('aborted', undefined);

    const serverDelay =
      outcome.type === 'response' && outcome.status >= 400
        ? parseRetryAfter(outcome.headers, options.now())
        : undefined;
    let verdict = this.#classify(outcome, serverDelay);
    // Issue 15: the breaker learns from every attempt; `true` means its circuit is not closed.
    const circuitOpen = this.#watch?.attempt(this, outcome, verdict.retryable, serverDelay);
    if (!verdict.retryable && (outcome.type === 'response' ? outcome.status < 500 : false)) {
      // The server answered: from the budget's point of view this request did not fail.
      this.#budget?.recordSuccess();
    }
    if (options.shouldRetry) {
      const override = options.shouldRetry({
        attempt: this.#attempts,
        method: this.method,
        url: this.url,
        status: outcome.type === 'response' ? outcome.status : undefined,
        error: outcome.type === 'error' ? outcome.error : undefined,
        outcome,
        retryable: verdict.retryable,
      });
      if (override === true && !verdict.retryable) verdict = { retryable: true, reason: 'should-retry' };
      if (override === false && verdict.retryable) verdict = { retryable: false, reason: 'should-retry' };
    }
    if (!verdict.retryable) return this.#stop(verdict.reason, serverDelay);
    if (!this.#idempotent && !this.#hasKey) return this.#stop('method-not-idempotent', serverDelay);
    if (!this.#replayable) return this.#stop('body-not-replayable', serverDelay);

    const retryNumber = this.#attempts;
    if (retryNumber > options.retries) return this.#stop('retries-exhausted', serverDelay);
    if (serverDelay !== undefined && serverDelay > options.maxRetryAfter) {
      return this.#stop('retry-after-too-long', serverDelay);
    }

    const remaining =
      options.deadline === undefined
        ? Number.POSITIVE_INFINITY
        : options.deadline - (options.now() - this.#started);
    let delay: number;
    if (serverDelay === undefined) {
      delay = computeDelay(retryNumber, options, options.random, this.#previousDelay);
    } else {
      // The server's delay is a floor; its jitter may not push the wait past maxRetryAfter or the deadline.
      delay = serverDelayWithJitter(serverDelay, Math.min(options.maxRetryAfter, remaining), options.random);
    }
    if (delay > remaining) return this.#stop('deadline', serverDelay);
    // A retry never waits into an open circuit (issue 15).
    if (circuitOpen) return this.#stop('circuit-open', serverDelay);
    if (this.#budget && !this.#budget.tryAcquire()) return this.#stop('budget-exhausted', serverDelay);

    this.#previousDelay = delay;
    const decision: RetryDecision = { retry: true, retryNumber, delay, reason: verdict.reason, serverDelay };
    this.#last = decision;
    return decision;
  }

  /**
   * Fires `onRetry`, then waits the decision's delay. Rejects at once with the signal's reason when it aborts
   * (R7), or with a `CircuitOpenError` when the origin's circuit opened during the wait (issue 15); the caller
   * then must not send another attempt.
   */
  async wait(decision: RetryDecision, signal?: AbortSignal | null): Promise<void> {
    const outcome = this.#outcome;
    const event: RetryEvent = {
      retry: decision.retryNumber,
      retries: this.#options.retries,
      delay: decision.delay,
      serverDelay: decision.serverDelay,
      reason: decision.reason,
      method: this.method,
      url: this.url,
      status: outcome?.type === 'response' ? outcome.status : undefined,
      error: outcome?.type === 'error' ? outcome.error : undefined,
    };
    this.#options.onRetry?.(event);
    const started = this.#options.now();
    try {
      await sleep(decision.delay, signal, this.#options.timers);
      this.#totalDelay += decision.delay;
      this.#watch?.resume(this);
    } catch (reason) {
      // Aborted: count only the part of the wait that passed.
      this.#totalDelay += Math.min(decision.delay, Math.max(0, this.#options.now() - started));
      this.#watch?.end(this, 'aborted');
      throw reason;
    }
  }
}
