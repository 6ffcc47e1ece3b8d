import {
  attachResult,
  type Backoff,
  type BackoffOptions,
  type Decision,
  type Outcome,
  type RetryDecision,
  type RetryState,
} from 'backoff-core';
import { replayableRequest } from './body.js';
import type { RequestHookView, ResponseHookView } from './hook-args.js';
import { KY_LIMIT, kyRetryOptions } from './ky-retry.js';
import { errorKind, hasKyErrorName } from './outcome.js';

/** Makes ky's retry marker: the instance's own `retry`, since ky matches the marker with `instanceof`. */
export type RetryMarkerFactory = (options: { delay: number; code: string }) => unknown;

/** What ky's `init` hook (2.x) knows about a call before ky builds its request. */
export interface CallSetup {
  /** The caller's own signal (ky's hooks later only see ky's combined one, which its timeouts abort too). */
  readonly signal?: unknown;
  /** ky 2's `totalTimeout`, in ms: it bounds the whole call, so it is a deadline for the core too. */
  readonly totalTimeout?: number | undefined;
  /**
   * Whether ky may retry at all: false for a one-shot body, so that ky does not tee it into memory. Otherwise
   * true even with `backoff: false`, so that a retry the caller forces with `ky.retry()` still works.
   */
  readonly kyRetries?: boolean;
  /**
   * Whether a hook can force ky to retry (`instance.retry`, ky 2 and 1.14+). Without it (ky 1.13) a failed
   * response is decided when ky throws its HTTPError and asks `shouldRetry`; with `throwHttpErrors: false` ky
   * never asks, so such a call is not retried at all.
   */
  readonly canForceRetry?: boolean;
}

/**
 * ky 1.14.2's deep merge adds `context: {}` to every nested object it merges: a `backoff` set both by `.extend()`
 * and per request arrives with it. It is no backoff option (the core rejects unknown keys), so it is dropped.
 */
function withoutMergeArtefact(override: unknown): unknown {
  if (typeof override !== 'object' || override === null || !Object.hasOwn(override, 'context'))
    return override;
  const { context, ...rest } = override as Record<string, unknown>;
  const empty = typeof context === 'object' && context !== null && Object.keys(context).length === 0;
  return empty ? rest : override;
}

/** The response of ky's HTTPError, when it has a real one. */
function httpErrorResponse(error: unknown): Response | undefined {
  const response = (error as { response?: unknown }).response;
  return typeof Response !== 'undefined' && response instanceof Response ? response : undefined;
}

function isSignal(value: unknown): value is AbortSignal {
  return typeof AbortSignal !== 'undefined' && value instanceof AbortSignal;
}

/**
 * One logical ky call: the policy it runs on, the core's `RetryState` once the request exists, and what the
 * hooks need to tell one attempt's outcome from the next. ky's hooks and its `shouldRetry` all reach the same
 * object (through the call's `context`, or the `shouldRetry` closure), so every outcome is recorded once.
 */
export class KyCall {
  /** `undefined` when retries are off for this call (`backoff: false`, or kyBackoff could not take over ky's loop). */
  #policy: Backoff | undefined;
  #error: { readonly value: unknown } | undefined;
  readonly #userSignal: AbortSignal | undefined;
  readonly #totalTimeout: number | undefined;
  readonly #created: number | undefined;
  /** ky's combined signal of the current attempt: aborts with the caller's, and with ky's per-attempt timeout. */
  #attemptSignal: AbortSignal | undefined;
  /** Set once the current attempt's outcome has been recorded: later errors of that attempt are not outcomes. */
  #recorded = false;
  /** Whether the request's body can be sent again; known from the first `beforeRequest` on. */
  #replayable: boolean | undefined;
  readonly #kyRetries: boolean;
  readonly #canForceRetry: boolean;
  state: RetryState | undefined;

  constructor(base: Backoff, override: unknown, setup: CallSetup = {}) {
    if (override === false) {
      this.#policy = undefined;
    } else {
      try {
        this.#policy = base.extend(withoutMergeArtefact(override) as BackoffOptions | undefined);
      } catch (error) {
        // Thrown from the first async hook, so a bad per-request option rejects the call like any other error.
        this.#policy = undefined;
        this.#error = { value: error };
      }
    }
    this.#userSignal = isSignal(setup.signal) ? setup.signal : undefined;
    this.#totalTimeout = setup.totalTimeout;
    this.#created = this.#policy?.options.now();
    this.#kyRetries = setup.kyRetries !== false;
    this.#canForceRetry = setup.canForceRetry !== false;
  }

  /** The `retry` option for ky, bound to this call (set by the `init` hook, 2.x). */
  kyRetry(method: unknown): Record<string, unknown> {
    return kyRetryOptions(({ error }) => this.shouldRetry(error), this.#kyRetries ? KY_LIMIT : 0, method);
  }

  /**
   * ky 1.x has no `init` hook: the first `beforeRequest` lays this call's retry settings over ky's per-call
   * `retry` object (a fresh one per call, shared with ky's loop). If that object cannot be changed, retries are
   * off for the call: never a retry the core did not decide.
   */
  arm(retry: unknown, method: string): void {
    if (this.#policy === undefined) return;
    const own = this.kyRetry(method);
    try {
      if (typeof retry !== 'object' || retry === null) throw new TypeError('no retry object');
      Object.assign(retry, own);
      if ((retry as { shouldRetry?: unknown }).shouldRetry !== own.shouldRetry)
        throw new TypeError('not taken');
    } catch {
      this.#policy = undefined;
    }
  }

  /** `beforeRequest`: runs before the first attempt (ky 1.x: before every attempt). */
  beforeAttempt({ request, options }: RequestHookView): void {
    if (this.#error !== undefined) {
      const { value } = this.#error;
      this.#error = undefined;
      throw value;
    }
    this.#attemptSignal = request.signal;
    this.#recorded = false;
    if (this.state !== undefined) {
      // ky 1.x runs this for every attempt, on its clone of the request: report what this one carries.
      this.state.sent(request.headers);
      return;
    }
    if (this.#policy === undefined) return;
    let policy = this.#withTotalTimeout(this.#policy);
    if (!this.#canForceRetry && options.throwHttpErrors === false) {
      // ky 1.13 never asks `shouldRetry` about a response it does not throw for: decide it, but never retry it.
      policy = policy.extend({ retries: 0 });
    }
    this.#replayable = replayableRequest(request, options.body);
    this.state = policy.start({
      method: request.method,
      url: request.url,
      headers: request.headers,
      replayable: this.#replayable,
    });
    if (this.state.idempotencyKey !== undefined) {
      // Only with `idempotencyKey` set (R10). ky 1.x clones this request for each retry: the key goes along.
      request.headers.set(policy.options.idempotencyKeyHeader, this.state.idempotencyKey);
    }
    // The core reads the key back from the request ky sends, not from its record of the key it made.
    this.state.sent(request.headers);
  }

  /** `totalTimeout` is a deadline counted from when ky created the call: no wait may outlast it. */
  #withTotalTimeout(policy: Backoff): Backoff {
    if (this.#totalTimeout === undefined || this.#created === undefined) return policy;
    const left = Math.max(0, this.#totalTimeout - (policy.options.now() - this.#created));
    const { deadline } = policy.options;
    return deadline !== undefined && deadline <= left ? policy : policy.extend({ deadline: left });
  }

  /** The signal a wait listens to: ky's combined one, unless ky's own timeout has already aborted it. */
  #waitSignal(): AbortSignal | undefined {
    const attempt = this.#attemptSignal;
    return attempt !== undefined && !attempt.aborted ? attempt : this.#userSignal;
  }

  /** The core's decision; an async `shouldRetry` is awaited under the caller's signal. */
  async #decide(state: RetryState, outcome: Outcome): Promise<Decision> {
    const decision = state.decide(outcome, this.#waitSignal());
    if (!(decision instanceof Promise)) return decision;
    try {
      return await decision;
    } catch (reason) {
      // Aborted meanwhile, or shouldRetry failed: the call ends with that, carrying what was done so far.
      throw attachResult(reason, state.result());
    }
  }

  async #wait(state: RetryState, decision: RetryDecision): Promise<void> {
    try {
      await state.wait(decision, this.#waitSignal());
    } catch (reason) {
      // Aborted (or onRetry threw): the call ends with that, carrying what was done so far.
      throw attachResult(reason, state.result());
    }
    this.#recorded = false;
  }

  /**
   * `afterResponse`, after the instance's own hooks: the core decides on the response. A retry waits here and
   * then returns ky's retry marker with no further delay; otherwise the response goes on (ky turns a non-2xx
   * into its HTTPError as usual) carrying the result. The response ky passes is a clone of its own: returning
   * it makes it the one the caller gets.
   */
  async afterResponse(
    { request, response, options }: ResponseHookView,
    marker: RetryMarkerFactory | undefined,
  ): Promise<unknown> {
    const { state } = this;
    if (state === undefined) return undefined;
    this.#attemptSignal = request.signal;
    if (marker === undefined && !response.ok && options.throwHttpErrors !== false) {
      // ky 1.13: ky throws its HTTPError next and asks `shouldRetry`, which decides (see there).
      return undefined;
    }
    this.#recorded = true;
    const decision = await this.#decide(state, {
      type: 'response',
      status: response.status,
      headers: response.headers,
      response,
    });
    if (!decision.retry) return attachResult(response, state.result());
    await this.#wait(state, decision);
    // Only reached with a marker: without one the call's policy never retries a response decided here.
    return (marker as RetryMarkerFactory)({ delay: 0, code: `backoff:${decision.reason}` });
  }

  /**
   * ky's `shouldRetry`, asked about every error ky would retry: the attempt's failure (network, timeout,
   * abort), or an error that came after the attempt's response was already decided (ky's HTTPError, an error
   * from a hook), which is never retried again. A retry waits here, before ky's own (0 ms) wait and before
   * the caller's `beforeRetry` hooks.
   */
  async shouldRetry(error: unknown): Promise<boolean> {
    const { state } = this;
    if (state === undefined) return false;
    const response =
      !this.#canForceRetry && hasKyErrorName(error, 'HTTPError') ? httpErrorResponse(error) : undefined;
    if (
      this.#recorded ||
      (response === undefined && hasKyErrorName(error, 'HTTPError')) ||
      hasKyErrorName(error, 'ForceRetryError')
    ) {
      attachResult(error, state.result());
      return false;
    }
    this.#recorded = true;
    // ky 1.13 (no retry marker): a failed response arrives here as ky's HTTPError; its status and headers decide.
    const decision = await this.#decide(
      state,
      response === undefined
        ? { type: 'error', kind: this.#kind(error), error }
        : { type: 'response', status: response.status, headers: response.headers, response },
    );
    if (!decision.retry) {
      attachResult(error, state.result());
      return false;
    }
    await this.#wait(state, decision);
    return true;
  }

  #kind(error: unknown) {
    // ky 1.x's hooks see only its combined signal; aborted without a ky timeout, it was the caller.
    const aborted =
      this.#userSignal?.aborted === true ||
      (this.#attemptSignal?.aborted === true && !hasKyErrorName(error, 'TimeoutError'));
    return errorKind(error, aborted);
  }

  /**
   * `beforeError` (2.x: once, for the final error of any kind; 1.x: the final HTTPError): attaches the result to
   * the error as the caller will get it. With a one-shot body ky was told not to retry (so that it does not tee
   * the stream), and its failure never reached `shouldRetry`: it is recorded here. The core never answers
   * "retry" for a body it was told is not replayable, so no wait or budget is promised that will not happen.
   */
  beforeError(error: unknown): void {
    const { state } = this;
    if (state === undefined) return;
    if (!this.#recorded && this.#replayable === false) {
      const kind = this.#kind(error);
      if (kind !== 'unknown') {
        this.#recorded = true;
        state.next({ type: 'error', kind, error });
      }
    }
    attachResult(error, state.result());
  }
}
