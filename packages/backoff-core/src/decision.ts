import type { RetryBudget } from './budget.js';
import { MAX_TIMER_DELAY } from './check.js';
import { computeDelay, serverDelayWithJitter, throttlingDelayOptions } from './delay.js';
import type { BackoffResult, Held, RetryEvent, ShouldRetryContext } from './events.js';
import { type HeadersLike, headerGetter } from './headers.js';
import type { HedgePlan } from './hedge.js';
import { checkKey, generateIdempotencyKey, idempotencyKeyProblem } from './idempotency.js';
import { type NetworkStatus, waitForNetwork } from './network.js';
import { provesNotSent } from './not-sent.js';
import type { ResolvedOptions } from './options.js';
import type { Outcome } from './outcome.js';
import type { RetryReason, StopReason } from './reasons.js';
import { parseRetryAfter } from './server-timing.js';
import { serverShouldRetry } from './should-retry-header.js';
import { describeValue } from './show.js';
import { isThenable, sleep, untilAborted } from './sleep.js';

/**
 * What a retry state asks of the retry budget: a `RetryBudget`, or the circuit breaker's gate in front of one
 * (watch.ts), which refuses a retry into an open circuit before the budget spends a token on it.
 */
export type RetryGate = Pick<RetryBudget, 'tryAcquire' | 'recordSuccess'>;

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

/** Retry: wait `delay` ms, then send attempt `retryNumber + 1`. */
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

/** What the call object makes of an attempt's outcome: retry after a wait, or stop. */
export type Decision = RetryDecision | StopDecision;

type Verdict = { retryable: true; reason: RetryReason } | { retryable: false; reason: StopReason };

/** The result of every call that succeeded at its first attempt, the most common one: one frozen object. */
const FIRST_TRY: BackoffResult = Object.freeze({
  attempts: 1,
  totalDelay: 0,
  reason: 'success',
  serverDelay: undefined,
  hedges: 0,
  hedgeWon: false,
});

/** `shouldRetry`'s answer laid over the default verdict: only `true` and `false` change it. */
function overridden(verdict: Verdict, override: unknown): Verdict {
  if (override === true && !verdict.retryable) return { retryable: true, reason: 'should-retry' };
  if (override === false && verdict.retryable) return { retryable: false, reason: 'should-retry' };
  return verdict;
}

/**
 * The server's explicit word on a failed answer (`x-should-retry`, `Stripe-Should-Retry`) when the policy reads
 * it, else `undefined`; an answer below 400 is a success whatever it says. Shared with the breaker's watch
 * (watch.ts), so that both judge a status by one rule.
 */
export function serverSaid(
  options: ResolvedOptions,
  outcome: { readonly status: number; readonly headers?: HeadersLike | undefined },
): boolean | undefined {
  return outcome.status >= 400 && options.shouldRetryHeaders ? serverShouldRetry(outcome.headers) : undefined;
}

/** A call's hedging and pacing: `held` ms held by the pacer, the attempt count when `ready` last asked for a hold. */
interface Paced {
  held: number;
  readyFor: number;
  hedges: number;
  hedgeWon: boolean;
  /** The request's origin, for learned hedge delays (read once, when first needed). */
  origin: string | undefined;
}

/**
 * The call object of one logical request, what every adapter drives (`policy.start(request, stamp)` makes it):
 * tell it each attempt's outcome with `decide(outcome, signal)` (at once unless `shouldRetry` returns a Promise),
 * and before re-sending either let it wait (`wait(decision, signal)`) or, when the client waits itself, tell it
 * (`announce`). `sendAttempts` runs that loop for a client whose adapter sends every attempt. It holds the attempt
 * count, the total wait and the generated Idempotency-Key; `result()` is what the caller's response or error
 * carries.
 */
export class RetryState {
  readonly #options: ResolvedOptions;
  readonly #budget: RetryGate | undefined;
  readonly #started: number;
  /**
   * Whether the request as sent carries a usable key: the caller's, or one the adapter reported via `sent()`.
   * `undefined` until read from `#sentHeaders` (an idempotent request needs it only to judge a 409).
   */
  #keySent: boolean | undefined;
  #sentHeaders: HeadersLike | undefined | null;
  readonly #idempotent: boolean;
  readonly #replayable: boolean;
  #attempts = 0;
  #totalDelay = 0;
  #previousDelay: number | undefined;
  #last: Decision | undefined;
  #outcome: Outcome | undefined;
  /** The server-requested delay of the attempt being decided. */
  #serverDelay: number | undefined;
  /** What the pacer and hedging keep of the call: made when first used, so a call without them holds none of it. */
  #paced: Paced | undefined;

  /** The request's method, upper-case (`'GET'` when it had none). */
  readonly method: string;
  /** The request's URL, if the adapter gave one: events, the pacer, hedging and the never-sent proof read it. */
  readonly url: string | undefined;
  /**
   * The key generated for this request by `idempotencyKey`, when one was needed. The adapter sends it as
   * `idempotencyKeyHeader` on every attempt, and reports the outgoing headers with `sent()`.
   */
  readonly idempotencyKey: string | undefined;

  /** Adapters get one from `policy.start(request, stamp)`, which also stamps a generated key on the request. */
  constructor(options: ResolvedOptions, budget: RetryGate | undefined, request: RequestDescription = {}) {
    this.#options = options;
    this.#budget = budget;
    // Read only for a deadline: a clock read per request is not free.
    this.#started = options.deadline === undefined ? 0 : options.now();
    this.method = request.method?.toUpperCase() ?? 'GET';
    this.url = request.url;
    this.#replayable = request.replayable !== false;
    this.#idempotent = options.methods.has(this.method);
    // An empty value is no key: a server cannot deduplicate on it.
    const existing = headerGetter(request.headers)(options.idempotencyKeyHeader)?.trim() || undefined;
    // Thrown before anything is sent: a mangled key could make two different requests look like one.
    if (existing !== undefined) {
      checkKey(existing, `The request's \`${options.idempotencyKeyHeader}\` header cannot be sent as it is`);
    }
    const setting = options.idempotencyKey;
    this.idempotencyKey =
      existing === undefined && !this.#idempotent && setting !== false
        ? generateIdempotencyKey(setting)
        : undefined;
    // A generated key counts only once the adapter reports it on the outgoing request (`sent`).
    this.#keySent = existing !== undefined;
  }

  /**
   * Reports the headers of the request as it is actually sent, read after the adapter set `idempotencyKey` on it.
   * A non-idempotent request is retried only if its key header is on the request that went out: this is
   * the core's only source for a generated key, so a client that silently drops or refuses the header (axios
   * keeps a `false` it was given) can never make the core believe a key is there. Call it before `next` /
   * `decide`; calling it for every attempt is fine (the last report counts).
   */
  sent(headers: HeadersLike | undefined | null): void {
    this.#keySent = undefined;
    this.#sentHeaders = headers;
    // An idempotent request needs no key: its headers are read only if a 409 asks (a GET's success path
    // then never scans them).
    if (!this.#idempotent) this.#hasKey();
  }

  /** Whether the headers last reported by `sent()` carry a usable key (read once per report). */
  #hasKey(): boolean {
    if (this.#keySent === undefined) {
      const key = headerGetter(this.#sentHeaders)(this.#options.idempotencyKeyHeader)?.trim();
      this.#keySent = key !== undefined && key !== '' && idempotencyKeyProblem(key) === undefined;
      this.#sentHeaders = undefined;
    }
    return this.#keySent;
  }

  /** Attempts recorded so far. */
  get attempts(): number {
    return this.#attempts;
  }

  /** Time spent in waits so far, in ms. */
  get totalDelay(): number {
    return this.#totalDelay;
  }

  /** Hedges sent so far (copies beyond the first of each attempt). */
  get hedges(): number {
    return this.#paced?.hedges ?? 0;
  }

  /** Whether the latest attempt's answer came from a hedge. */
  get hedgeWon(): boolean {
    return this.#paced?.hedgeWon ?? false;
  }

  /** Attempts, total wait and the last reason: what the caller's response or error carries (frozen). */
  result(): BackoffResult {
    const last = this.#last;
    const paced = this.#paced;
    const held = paced?.held ?? 0;
    const plain = last?.reason === 'success' && last.serverDelay === undefined && held === 0;
    if (this.#attempts === 1 && plain && !paced?.hedges) return FIRST_TRY;
    const result: BackoffResult = {
      attempts: this.#attempts,
      totalDelay: this.#totalDelay,
      reason: last?.reason ?? 'success',
      serverDelay: last?.serverDelay,
      hedges: paced?.hedges ?? 0,
      hedgeWon: paced?.hedgeWon ?? false,
    };
    return Object.freeze(held > 0 ? { ...result, held } : result);
  }

  /**
   * The pacer's hold before the next send (first attempt or retry), its slot reserved and `onHold` told; none
   * without a pacer, or when the key's pace lets the send go now. Throws a `PacerDeadlineError` when the hold would
   * end past `deadline` (the call then stops with the reason `'deadline'`). For a client that schedules the hold
   * itself (a simulator); `ready` holds.
   */
  hold(): Held | undefined {
    return undefined;
  }

  /**
   * Call right before each send: `undefined` (at once, nothing allocated) when the send may go now, else a
   * Promise that resolves when it may. It rejects at once with the signal's reason when the caller aborts (the
   * call stops `'aborted'`: send nothing), and with a `PacerDeadlineError` when the hold would pass `deadline`.
   * A hold counts no attempt; its time is the result's `held`, not `totalDelay`. Asked again before the attempt
   * is recorded, it holds nothing.
   */
  ready(signal?: AbortSignal | null): Promise<void> | undefined {
    if (this.#options.pacer === undefined) return undefined;
    // Once per attempt: a client whose hooks both run before one send (ky 1) is held once.
    const paced = this.#pacing();
    if (paced.readyFor === this.#attempts) return undefined;
    paced.readyFor = this.#attempts;
    let held: Held | undefined;
    try {
      held = this.hold();
    } catch (error) {
      return Promise.reject(error);
    }
    if (held === undefined) return undefined;
    const { delay } = held;
    const started = this.#options.now();
    return sleep(delay, signal, this.#options.timers).then(
      () => {
        paced.held += delay;
      },
      (reason: unknown) => {
        paced.held += Math.min(delay, Math.max(0, this.#options.now() - started));
        this.#stop('aborted', undefined);
        throw reason;
      },
    );
  }

  /** The rest of the deadline at this moment, in ms (infinite without one). */
  protected left(): number {
    const { deadline } = this.#options;
    return deadline === undefined
      ? Number.POSITIVE_INFINITY
      : deadline - (this.#options.now() - this.#started);
  }

  /** Stops the call for `reason` with no attempt of its own (a hold past the deadline). */
  protected stopped(reason: StopReason): void {
    this.#stop(reason, this.#last?.serverDelay);
  }

  /**
   * How the next attempt may be hedged, or `undefined` when it may not (no `hedge`, or a request that must not
   * be sent twice: a method that is not idempotent without a key, or a body that cannot be sent again). With
   * `delay: 'auto'` before a delay is learned, the plan has no delay: the attempt is only timed.
   */
  hedging(): HedgePlan | undefined {
    const options = this.#options;
    const { hedge } = options;
    if (hedge === undefined) return undefined;
    this.#pacing().hedgeWon = false;
    if (!this.#replayable || (!this.#idempotent && !this.#hasKey())) return undefined;
    const delay = hedge.delay === 'auto' ? options.responseTimes.delay(this.#originOf()) : hedge.delay;
    const { timers, now } = options;
    return {
      delay,
      max: hedge.max,
      timers,
      now,
      hedge: (copy, wait) => this.hedgeCopy(copy, wait),
      retryable: (outcome) => this.#retryable(outcome),
      won: (copy, outcome, elapsed) => this.#won(copy, outcome, elapsed),
    };
  }

  #pacing(): Paced {
    this.#paced ??= { held: 0, readyFor: -1, hedges: 0, hedgeWon: false, origin: undefined };
    return this.#paced;
  }

  #originOf(): string {
    const paced = this.#pacing();
    if (paced.origin === undefined) {
      try {
        const { location } = globalThis as { location?: { href?: string } };
        paced.origin = new URL(this.url ?? '', location?.href).origin;
      } catch {
        paced.origin = '';
      }
    }
    return paced.origin;
  }

  /**
   * Asks to send copy `copy` (2: the first hedge) of the attempt in flight, unanswered after `delay` ms:
   * `false` when the deadline has passed, the origin's circuit is not closed or the budget has no token (a hedge
   * takes one, as a retry does); else it fires `onHedge` and counts the hedge. When `onHedge` throws, the call
   * ends with its error (every copy is aborted: the reason is `'aborted'`) and this rethrows it.
   */
  protected hedgeCopy(copy: number, delay: number): boolean {
    const options = this.#options;
    if (options.deadline !== undefined && options.now() - this.#started >= options.deadline) return false;
    if (!this.hedgeGoes()) return false;
    if (this.#budget && !this.#budget.tryAcquire('hedge')) return false;
    this.#pacing().hedges++;
    try {
      options.onHedge?.({ copy, delay, method: this.method, url: this.url, attempt: this.#attempts + 1 });
    } catch (error) {
      this.#attempts++;
      this.#stop('aborted', undefined);
      throw error;
    }
    return true;
  }

  /** Whether the watchers let a hedge go now (a watched call asks its breaker and its pacer). */
  protected hedgeGoes(): boolean {
    return true;
  }

  /**
   * Whether an outcome is one another copy of the same attempt might improve on: a failure the default rules
   * retry (`shouldRetry` is asked only about the attempt's final outcome). The caller's abort never is.
   */
  #retryable(outcome: Outcome): boolean {
    if (outcome.type === 'error' && outcome.kind === 'abort') return false;
    const serverDelay =
      outcome.type === 'response' && outcome.status >= 400
        ? parseRetryAfter(outcome.headers, this.#options.now())
        : undefined;
    return this.#classify(outcome, serverDelay).retryable;
  }

  /**
   * Records which copy answered the attempt, and with `delay: 'auto'` how long a successful answer took (a sample
   * of the origin's response times).
   */
  #won(copy: number, outcome: Outcome, elapsed: number): void {
    this.#pacing().hedgeWon = copy > 1;
    const { hedge, responseTimes } = this.#options;
    if (hedge?.delay === 'auto' && outcome.type === 'response' && outcome.status < 400) {
      responseTimes.record(this.#originOf(), elapsed);
    }
  }

  /** The default verdict on an outcome, before `shouldRetry`. */
  #classify(outcome: Outcome, serverDelay: number | undefined): Verdict {
    const options = this.#options;
    if (outcome.type === 'response') {
      const { status } = outcome;
      // The server's explicit word decides first; a response below 400 is a success whatever it says.
      const said = serverSaid(options, outcome);
      if (said !== undefined) {
        return said
          ? { retryable: true, reason: 'should-retry-header' }
          : { retryable: false, reason: 'should-retry-header' };
      }
      if (options.statusCodes.has(status)) return { retryable: true, reason: 'status' };
      if (status === 409 && this.#hasKey()) return { retryable: true, reason: 'idempotency-conflict' };
      if (status === 413 && serverDelay !== undefined)
        return { retryable: true, reason: 'payload-too-large-with-timing' };
      return { retryable: false, reason: status < 400 ? 'success' : 'not-retryable-status' };
    }
    switch (outcome.kind) {
      case 'network':
        return { retryable: true, reason: 'network-error' };
      case 'not-sent':
        // Nothing left the client, unless a redirect took the request to a server first.
        return provesNotSent(outcome.error, this.url, outcome.redirected)
          ? { retryable: true, reason: 'not-sent' }
          : { retryable: true, reason: 'network-error' };
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
    return decision;
  }

  /**
   * Records one finished attempt and decides whether to retry it, synchronously. Use it
   * when `shouldRetry` is not set or returns its verdict at once; a `shouldRetry` that returns a Promise makes it
   * throw a TypeError (use `decide`).
   */
  next(outcome: Outcome): Decision {
    return this.#ask(outcome, undefined, true) as Decision;
  }

  /**
   * `next` for adapters: the same decision, returned at once unless `shouldRetry` returned a Promise; then a
   * Promise of it, which rejects at once with the signal's reason if the caller aborts meanwhile (the decision
   * is then `'aborted'`), and with `shouldRetry`'s own error if it rejects.
   */
  decide(outcome: Outcome, signal?: AbortSignal | null): Decision | Promise<Decision> {
    return this.#ask(outcome, signal);
  }

  /** `decide`, or `next` when `sync` says so: a `shouldRetry` that returns a Promise is then a TypeError. */
  #ask(
    outcome: Outcome,
    signal: AbortSignal | null | undefined,
    sync?: boolean,
  ): Decision | Promise<Decision> {
    const verdict = this.#record(outcome);
    if (verdict === undefined) return this.#last as StopDecision;
    const { shouldRetry } = this.#options;
    if (shouldRetry === undefined) return this.#gate(verdict);
    const override = shouldRetry(this.#context(outcome, verdict));
    if (!isThenable(override)) return this.#gate(overridden(verdict, override));
    if (sync) {
      // Handled, so that the promise nobody awaits cannot reject unhandled. No gate runs: nothing is spent.
      Promise.resolve(override).catch(() => {});
      throw new TypeError('`shouldRetry` returned a Promise: use `decide()`, not `next()`.');
    }
    return untilAborted(override, signal).then(
      (value) => this.#gate(overridden(verdict, value)),
      (error: unknown) => {
        if (signal?.aborted) this.#stop('aborted', this.#serverDelay);
        throw error;
      },
    );
  }

  /**
   * Counts the attempt and returns the default verdict on it, or `undefined` when it was the caller's abort
   * (then the call has stopped: not even shouldRetry is asked).
   */
  #record(outcome: Outcome): Verdict | undefined {
    const options = this.#options;
    this.#attempts++;
    this.#outcome = outcome;
    const aborted = outcome.type === 'error' && outcome.kind === 'abort';
    const serverDelay =
      !aborted && outcome.type === 'response' && outcome.status >= 400
        ? parseRetryAfter(outcome.headers, options.now())
        : undefined;
    this.#serverDelay = serverDelay;
    this.attempted(outcome, serverDelay);
    if (aborted) {
      this.#stop('aborted', undefined);
      return undefined;
    }
    const verdict = this.#classify(outcome, serverDelay);
    if (!verdict.retryable && (outcome.type === 'response' ? outcome.status < 500 : false)) {
      // The server answered: from the budget's point of view this request did not fail.
      this.#budget?.recordSuccess();
    }
    return verdict;
  }

  /**
   * An attempt is recorded, before it is decided, with the delay its response asked for: what a watched call
   * tells its watchers (a breaker, the metrics). Nothing here.
   */
  protected attempted(_outcome: Outcome, _serverDelay: number | undefined): void {}

  /** Whether the attempt being decided was a throttling answer (429): priced and paced as throttling. */
  get #throttled(): boolean {
    return this.#outcome?.type === 'response' && this.#outcome.status === 429;
  }

  #context(outcome: Outcome, verdict: Verdict): ShouldRetryContext {
    const answered = outcome.type === 'response';
    return {
      attempt: this.#attempts,
      method: this.method,
      url: this.url,
      status: answered ? outcome.status : undefined,
      error: answered ? undefined : outcome.error,
      response: answered ? outcome.response : undefined,
      headers: answered ? outcome.headers : undefined,
      outcome,
      retryable: verdict.retryable,
    };
  }

  /** The gates after the verdict: method, body, retries, maxRetryAfter, deadline, budget. */
  #gate(verdict: Verdict): Decision {
    const options = this.#options;
    const serverDelay = this.#serverDelay;
    if (!verdict.retryable) return this.#stop(verdict.reason, serverDelay);
    // A request that never left cannot be applied twice: any method may be sent again.
    if (!this.#idempotent && !this.#hasKey() && verdict.reason !== 'not-sent') {
      return this.#stop('method-not-idempotent', serverDelay);
    }
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
      // A 429 without a timing header (nginx's limit_req) backs off as throttling: see throttlingDelayOptions.
      const shape = this.#throttled ? throttlingDelayOptions(options) : options;
      // Whole milliseconds: a timer has no finer grain, and a total wait of 2274.2334405337783 ms reads badly.
      delay = Math.floor(computeDelay(retryNumber, shape, options.random, this.#previousDelay));
    } else {
      // The server's delay is a floor; its jitter may not push the wait past maxRetryAfter or the deadline.
      const jittered = serverDelayWithJitter(
        serverDelay,
        Math.min(options.maxRetryAfter, remaining),
        options.random,
      );
      delay = Math.max(serverDelay, Math.floor(jittered));
    }
    if (options.delay !== undefined) delay = this.#ownDelay(options.delay, verdict, retryNumber, delay);
    if (delay > remaining) return this.#stop('deadline', serverDelay);
    // With a circuit breaker the budget is watch.ts's gate, which first refuses a retry into an open circuit.
    if (this.#budget && !this.#budget.tryAcquire(this.#throttled ? 'throttling' : 'transient')) {
      return this.#stop('budget-exhausted', serverDelay);
    }

    this.#previousDelay = delay;
    const decision: RetryDecision = { retry: true, retryNumber, delay, reason: verdict.reason, serverDelay };
    this.#last = decision;
    return decision;
  }

  /** The `delay` option's wait for this retry: a finite number of ms, never below the server's delay. */
  #ownDelay(
    own: NonNullable<ResolvedOptions['delay']>,
    verdict: Verdict,
    retry: number,
    computed: number,
  ): number {
    const serverDelay = this.#serverDelay;
    const context = { ...this.#context(this.#outcome as Outcome, verdict), retry, serverDelay, computed };
    const delay = own(context);
    if (typeof delay !== 'number' || !(delay >= 0) || delay > MAX_TIMER_DELAY) {
      throw new TypeError(
        `Expected \`delay\` to return a number of ms from 0 to ${MAX_TIMER_DELAY}, got ${describeValue(delay)}.`,
      );
    }
    // The server said when to come back: a wait of one's own may be longer, never shorter.
    return serverDelay === undefined ? delay : Math.max(delay, serverDelay);
  }

  /**
   * Records an attempt that the client ended on its own, without asking (ky's `totalTimeout`), and the reason
   * the call stops for: no `shouldRetry`, no budget.
   */
  end(outcome: Outcome, reason: StopReason): StopDecision {
    this.#attempts++;
    this.#outcome = outcome;
    return this.#stop(reason, undefined);
  }

  /**
   * Ends a call whose attempt never went out because the caller's signal had already aborted (fetch rejects such a
   * request at once): no attempt is counted, since attempts count what was sent; the reason is `'aborted'`.
   */
  abandon(): StopDecision {
    return this.#stop('aborted', undefined);
  }

  /**
   * Decides the latest attempt again, on the outcome the client ended up with after replacing its response (a ky
   * `afterResponse` hook that turns a 200 into a 503): the attempt is not counted twice. A success already
   * credited to the budget stays credited. Returns what `decide` returns.
   */
  revise(outcome: Outcome, signal?: AbortSignal | null): Decision | Promise<Decision> {
    if (this.#attempts > 0) this.#attempts--;
    return this.decide(outcome, signal);
  }

  /**
   * Fires `onRetry` (and awaits it when it returns a Promise), then waits the decision's delay. Rejects at once
   * with the signal's reason when it aborts, and the call's reason becomes `'aborted'`; the caller then must
   * not send another attempt. If `onRetry` throws or rejects, it rejects with that error and sets no timer. With a
   * circuit breaker, a retry whose origin's circuit opened meanwhile rejects with a `CircuitOpenError`
   * and the call's reason becomes `'circuit-open'` (see watch.ts).
   */
  async wait(decision: RetryDecision, signal?: AbortSignal | null): Promise<void> {
    const network = this.#offline(this.#outcome);
    // Kept only for a wait for the network (its deadline ends the call with it).
    const error = network === undefined ? undefined : (this.#outcome as { error?: unknown }).error;
    let started: number | undefined;
    try {
      const hook = this.#notify(decision, signal, network !== undefined);
      // The failed attempt (its response, headers, error) is let go once onRetry's event is built: a request
      // parked in its wait holds no more than it needs.
      this.#outcome = undefined;
      if (hook !== undefined) await hook;
      // Timed only when an abort can cut the wait short (then only the part that passed counts).
      if (signal) started = this.#options.now();
      await sleep(decision.delay, signal, this.#options.timers);
      this.#totalDelay += decision.delay;
    } catch (reason) {
      if (signal?.aborted) {
        // Aborted: count only the part of the wait that passed; the call stopped because of the abort.
        if (started !== undefined) {
          this.#totalDelay += Math.min(decision.delay, Math.max(0, this.#options.now() - started));
        }
        this.#stop('aborted', decision.serverDelay);
      }
      // Else onRetry threw: the call ends with its error, and its reason stays the retry's.
      throw reason;
    }
    if (network !== undefined) {
      try {
        await this.#waitForNetwork(network, signal, error);
      } catch (reason) {
        if (signal?.aborted) this.#stop('aborted', decision.serverDelay);
        throw reason;
      }
    }
  }

  /**
   * Fires `onRetry` (awaiting a Promise it returns, under the signal) and counts the decision's delay as waited,
   * for a client that performs the wait itself (ky after its own per-attempt timeout: only ky's wait still hears
   * the caller's signal then).
   */
  async announce(decision: RetryDecision, signal?: AbortSignal | null): Promise<void> {
    try {
      const hook = this.#notify(decision, signal, false);
      this.#outcome = undefined;
      if (hook !== undefined) await hook;
    } catch (reason) {
      if (signal?.aborted) this.#stop('aborted', decision.serverDelay);
      throw reason;
    }
    this.#totalDelay += decision.delay;
  }

  /**
   * Fires `onRetry`. A Promise it returns comes back to be awaited (rejecting at once when the signal aborts);
   * a plain hook costs no extra tick.
   */
  #notify(
    decision: RetryDecision,
    signal: AbortSignal | null | undefined,
    waitingForNetwork: boolean,
  ): Promise<unknown> | undefined {
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
      waitingForNetwork,
    };
    const hook = this.#options.onRetry?.(event);
    return isThenable(hook) ? untilAborted(hook, signal) : undefined;
  }

  /** The network to wait for: set when this network-error attempt failed while the device was offline. */
  #offline(outcome: Outcome | undefined): NetworkStatus | undefined {
    const { network } = this.#options;
    if (network === undefined || outcome?.type !== 'error') return undefined;
    if (outcome.kind !== 'network' && outcome.kind !== 'not-sent') return undefined;
    return network.isOnline() ? undefined : network;
  }

  /**
   * After the computed delay, waits until the device is online: offline time is not capped by maxDelay and spends
   * no attempt. The deadline still ends it (the call then ends with the attempt's own error, reason 'deadline'),
   * and so does an abort. All of that time counts as waited.
   */
  async #waitForNetwork(network: NetworkStatus, signal: AbortSignal | null | undefined, error: unknown) {
    const options = this.#options;
    const started = options.now();
    const remaining =
      options.deadline === undefined ? undefined : Math.max(0, options.deadline - (started - this.#started));
    let ended: 'online' | 'deadline';
    try {
      ended = await waitForNetwork(network, signal, options.timers, remaining);
    } finally {
      this.#totalDelay += Math.max(0, options.now() - started);
    }
    if (ended === 'deadline') {
      this.#stop('deadline', undefined);
      throw error;
    }
  }
}
