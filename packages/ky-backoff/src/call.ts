import {
  attachResult,
  type Backoff,
  type BackoffOptions,
  type BackoffResult,
  type Decision,
  fetchRedirected,
  type Outcome,
  type RetryDecision,
  type RetryState,
  type StopReason,
} from 'backoff-core';
import { replayableRequest } from './body.js';
import { errorKind, field, hasKyErrorName } from './outcome.js';

/** The instance's own `ky.retry`: ky matches its marker with `instanceof`, so a bundled copy would not do. */
export type RetryMarker = (options: { delay: number; code: string }) => unknown;

/** ky's `limit` under kyBackoff: "keep asking me". The core alone says when to stop. */
const KEEP_ASKING = Number.MAX_SAFE_INTEGER;

export interface CallSetup {
  readonly policy: Backoff;
  /** The request's `backoff` option. */
  readonly override: unknown;
  readonly request: Request;
  readonly body: unknown;
  readonly ky2: boolean;
  /** Whether ky throws an HTTPError for every failed status of this call (and so asks `shouldRetry`). */
  readonly throws: boolean;
  readonly marker: RetryMarker | undefined;
  /** The instance's `totalTimeout`: no per-request `backoff` may wait past it. */
  readonly deadline: number | undefined;
}

/** ky 1.14.2's deep merge adds `context: {}` to the objects it merges: no backoff option, so it is dropped. */
export function withoutMergeArtefact(override: unknown): unknown {
  const context = field(override, 'context');
  if (typeof context !== 'object' || context === null || Object.keys(context).length > 0) return override;
  const { context: _, ...rest } = override as Record<string, unknown>;
  return rest;
}

const isRequest = (value: unknown): value is Request =>
  typeof Request !== 'undefined' && value instanceof Request;

const answered = (response: Response): Outcome => ({
  type: 'response',
  status: response.status,
  headers: response.headers,
  response,
});

function then<T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Thrown by kyBackoff's afterResponse hook on ky 1.13 (no `ky.retry()`) to retry a 2xx listed in `statusCodes`:
 * ky 1 retries an error of that hook through `shouldRetry`. Your beforeRetry hooks see it as the `error`.
 */
class RetriedResponseError extends Error {
  override readonly name = 'RetriedResponseError';
  constructor(
    readonly response: Response,
    readonly request: Request,
  ) {
    super(`Retrying a ${response.status} response, as \`statusCodes\` asks.`);
  }
}

/** One ky call: the core's RetryState, asked by ky's hooks and `retry` functions. It never drives ky. */
export class KyCall {
  /** `undefined` with `backoff: false`. */
  readonly state: RetryState | undefined;
  /** ky's per-call `limit`; 0 for a body that cannot be sent twice, so that ky 2 tees nothing. */
  readonly limit: number;
  readonly #retries: number;
  readonly #throws: boolean;
  readonly #marker: RetryMarker | undefined;
  /** ky 2 reads a failed body into `HTTPError.data` first: a `shouldRetry` option gets a copy taken at fetch. */
  readonly #keepsCopies: boolean;
  /** The latest request of this call seen going out: its signal follows the caller's. */
  #request: Request;
  /** What fetch returned for this attempt, when kyBackoff's fetch saw it: the object the caller gets. */
  #fetched: Response | undefined;
  #copy: Response | undefined;
  /** The core's decision on this attempt, once made. */
  #decided: Decision | undefined;
  /** A wait left to ky (after ky's own timeout): its `delay` returns it once. */
  #kyDelay = 0;
  #refused: BackoffResult | undefined;

  constructor(setup: CallSetup) {
    const { policy, override, request } = setup;
    const replayable = replayableRequest(request, setup.body);
    this.#request = request;
    this.#throws = setup.throws;
    this.#marker = setup.marker;
    // ky 2 tees a body for retries only when its limit is above 0; ky 1 clones every request anyway.
    const teeable = replayable || !setup.ky2;
    if (override === false) {
      // Not retried by the core: ky's limit keeps ky's meaning (it bounds the retries your hooks force).
      this.state = undefined;
      this.#retries = policy.options.retries;
      this.limit = teeable ? this.#retries : 0;
      this.#keepsCopies = false;
      return;
    }
    let own = policy;
    if (override !== undefined) {
      own = policy.extend(withoutMergeArtefact(override) as BackoffOptions);
      const cap = setup.deadline;
      if (cap !== undefined && !((own.options.deadline ?? cap + 1) <= cap))
        own = own.extend({ deadline: cap });
    }
    // ky 1.13 cannot retry a status it does not throw for: such a call is decided with no retries.
    if (!setup.throws && setup.marker === undefined) own = own.extend({ retries: 0 });
    this.#retries = own.options.retries;
    this.#keepsCopies = setup.ky2 && own.options.shouldRetry !== undefined;
    this.limit = teeable ? KEEP_ASKING : 0;
    const request_ = { method: request.method, url: request.url, headers: request.headers, replayable };
    // ky clones this request for each retry: a generated key goes along.
    this.state = own.start(request_, (name, key) => {
      request.headers.set(name, key);
      return request.headers;
    });
  }

  /** A new attempt is about to go out (beforeRequest, beforeRetry): nothing of it is known yet. */
  begin(request: unknown): void {
    this.#decided = undefined;
    this.#fetched = undefined;
    this.#copy = undefined;
    if (isRequest(request)) {
      this.#request = request;
      this.state?.sent(request.headers);
    }
  }

  /** kyBackoff's fetch saw this attempt's response. */
  fetched(response: Response): void {
    this.#fetched = response;
    if (this.#keepsCopies && !response.ok) this.#copy = response.clone();
  }

  /** ky's `delay`: 0 (the core has waited), unless the wait was left to ky. */
  takeDelay(): number {
    const delay = this.#kyDelay;
    this.#kyDelay = 0;
    return delay;
  }

  /**
   * kyBackoff's afterResponse hook, after the instance's own: an OK response is decided once those hooks are
   * done with it, and so is a failed status that ky will not throw for. A retry goes through `ky.retry()`.
   */
  async afterResponse(response: Response): Promise<unknown> {
    const { state } = this;
    if (state === undefined || this.#decided !== undefined || (!response.ok && this.#throws))
      return undefined;
    const decision = await this.#decide(answered(response), undefined);
    if (decision.retry) {
      if (this.#marker === undefined) throw new RetriedResponseError(response, this.#request);
      await this.#pause(decision, this.#request.signal);
      return this.#marker({ delay: this.takeDelay(), code: `backoff:${decision.reason}` });
    }
    // The caller gets fetch's own response when fetch saw this attempt, else this copy: either carries the result.
    const fetched = this.#fetched;
    attachResult(fetched ?? response, state.result());
    return fetched === undefined ? response : undefined;
  }

  /**
   * ky's `shouldRetry`, asked about every failed attempt (its HTTPError after your afterResponse hooks, a network
   * error, its timeout, an abort): the core decides, and a retry waits here before ky hears `true`.
   */
  shouldRetry(error: unknown): boolean | Promise<boolean> {
    if (this.state === undefined) return false;
    const decided = this.#decided;
    if (decided?.retry) return this.#retry(decided, this.#request);
    const sent = field(error, 'request');
    const request = isRequest(sent) ? sent : this.#request;
    const response = field(error, 'response');
    const status = hasKyErrorName(error, 'HTTPError') && response instanceof Response ? response : undefined;
    // A later afterResponse hook (the request's own) turned a response decided as a success into this error.
    const turned = decided?.reason === 'success' && status !== undefined;
    if (decided !== undefined && !turned) return this.#stop(error);
    let outcome: Outcome;
    if (status === undefined) {
      const { signal } = request;
      const kind = errorKind(error, signal.aborted && !hasKyErrorName(error, 'TimeoutError'));
      outcome = { type: 'error', kind, error, redirected: fetchRedirected(request.redirect) };
    } else {
      outcome = answered(status === this.#fetched ? (this.#copy ?? status) : status);
    }
    this.#copy = undefined;
    return then(this.#decide(outcome, request, turned), (made) =>
      made.retry ? this.#retry(made, request) : this.#stop(error),
    );
  }

  /**
   * beforeRetry with ky's ForceRetryError: a retry an earlier afterResponse hook forced with `ky.retry()`. The
   * attempt is counted (decided now, so that the budget pays for it), and refused once `retries` retries were
   * made: the call then ends with that ForceRetryError, as ky ends one past its own limit.
   */
  forced(error: unknown): Promise<void> | undefined {
    const { state } = this;
    if (state === undefined || !hasKyErrorName(error, 'ForceRetryError') || this.#decided?.retry) return;
    const refuse = (): undefined => {
      if (state.attempts <= this.#retries) return;
      this.#refused = { ...state.result(), reason: 'retries-exhausted' };
      throw attachResult(error, this.#refused);
    };
    const fetched = this.#fetched;
    if (this.#decided !== undefined || fetched === undefined) return refuse();
    const decision = this.#decide(answered(fetched), undefined);
    return decision instanceof Promise ? decision.then(refuse) : refuse();
  }

  /**
   * beforeError (ky 2: once, for the final error; ky 1: for each HTTPError): the result goes on the error. An
   * attempt ky ended without asking is recorded here: its `totalTimeout`, or a one-shot body it was told not to
   * retry (limit 0).
   */
  beforeError(error: unknown): Promise<void> | undefined {
    const { state } = this;
    if (state === undefined) return undefined;
    let pending: Decision | Promise<Decision> | undefined;
    if (this.#decided === undefined && this.limit > 0 && hasKyErrorName(error, 'TimeoutError')) {
      this.#decided = state.end({ type: 'error', kind: 'timeout', error }, 'deadline');
    } else if (this.#decided === undefined && this.limit === 0) {
      const response = field(error, 'response');
      const kind = errorKind(error, this.#request.signal.aborted);
      if (response instanceof Response) pending = this.#decide(answered(response), undefined);
      else if (kind !== 'unknown') pending = this.#decide({ type: 'error', kind, error }, undefined);
    }
    const attach = () => void attachResult(error, this.#refused ?? state.result());
    return pending instanceof Promise ? pending.then(attach) : attach();
  }

  /** Asks the core about this attempt (`revise`: again, on the outcome a later hook made of it). */
  #decide(outcome: Outcome, request: Request | undefined, revise = false): Decision | Promise<Decision> {
    const state = this.state as RetryState;
    if (request !== undefined) state.sent(request.headers);
    // After ky's own timeout the attempt's signal is spent: an async shouldRetry is then awaited as it is.
    const { signal } = request ?? this.#request;
    const live = signal.aborted ? undefined : signal;
    const made = revise ? state.revise(outcome, live) : state.decide(outcome, live);
    if (!(made instanceof Promise)) {
      this.#decided = made;
      return made;
    }
    return made.then(
      (decision) => (this.#decided = decision),
      (reason: unknown) => this.#ended(reason),
    );
  }

  #retry(decision: RetryDecision, request: Request): Promise<true> {
    return this.#pause(decision, request.signal).then(() => true);
  }

  #stop(error: unknown): false {
    attachResult(error, this.#refused ?? (this.state as RetryState).result());
    return false;
  }

  /**
   * The one wait of a retry: the core's, on the attempt's signal (it follows the caller's). After ky's own
   * timeout that signal is spent and only ky's wait still hears the caller: ky then waits (`delay`), and the
   * core is told, so that `onRetry` and `totalDelay` stay exact. An abort or a throwing onRetry ends the call.
   */
  #pause(decision: RetryDecision, signal: AbortSignal): Promise<void> {
    const state = this.state as RetryState;
    const waited = signal.aborted
      ? state.announce(decision).then(() => {
          this.#kyDelay = decision.delay;
        })
      : state.wait(decision, signal);
    return waited.catch((reason: unknown) => this.#ended(reason));
  }

  /** An abort, or a throwing `shouldRetry` or `onRetry`, ended the call: ky is told so if it asks again. */
  #ended(reason: unknown): never {
    const result = (this.state as RetryState).result();
    this.#decided = { retry: false, reason: result.reason as StopReason, serverDelay: undefined };
    throw attachResult(reason, result);
  }
}
