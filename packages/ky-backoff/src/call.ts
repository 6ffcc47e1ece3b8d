import type { Backoff, BackoffOptions, BackoffResult } from 'backoff-core';
import {
  attachResult,
  type Decision,
  fetchRedirected,
  type Outcome,
  type RetryState,
} from 'backoff-core/adapter';
import { replayableRequest } from './body.js';
import { errorKind, hasKyErrorName } from './outcome.js';

/** Makes ky's retry marker: the instance's own `retry`, since ky matches the marker with `instanceof`. */
export type RetryMarkerFactory = (options: { delay: number; code: string }) => unknown;

/**
 * ky 1.14.2's deep merge adds `context: {}` to every nested object it merges: a `backoff` set both by `.extend()`
 * and per request arrives with it. It is no backoff option (the core rejects unknown keys), so it is dropped.
 */
export function withoutMergeArtefact(override: unknown): unknown {
  if (typeof override !== 'object' || override === null || !Object.hasOwn(override, 'context'))
    return override;
  const { context, ...rest } = override as Record<string, unknown>;
  const empty = typeof context === 'object' && context !== null && Object.keys(context).length === 0;
  return empty ? rest : override;
}

/** The response of ky's HTTPError, when it has a real one. */
function httpErrorResponse(error: unknown): Response | undefined {
  if (!hasKyErrorName(error, 'HTTPError')) return undefined;
  const response = (error as { response?: unknown }).response;
  return typeof Response !== 'undefined' && response instanceof Response ? response : undefined;
}

function signalOf(value: unknown): AbortSignal | undefined {
  const signal = (value as { signal?: unknown } | null | undefined)?.signal;
  return typeof AbortSignal !== 'undefined' && signal instanceof AbortSignal ? signal : undefined;
}

/**
 * The core's decision, awaited when an async `shouldRetry` made it a Promise (which rejects at once if the
 * signal aborts). A rejection carries what was done so far.
 */
async function settled(state: RetryState, decision: Decision | Promise<Decision>): Promise<Decision> {
  try {
    return await decision;
  } catch (reason) {
    throw attachResult(reason, state.result());
  }
}

/**
 * What kyBackoff's `fetch` rejects with when the core retries a response below 400 (a 2xx listed in
 * `statusCodes`, such as a 202 polled until 200): ky retries only what fails, so this is how its loop hears of
 * it. Your beforeRetry hooks see it as the `error`; `response` is the answer that is retried (its body unread).
 */
class RetriedResponseError extends Error {
  override readonly name = 'RetriedResponseError';
  readonly response: Response;
  readonly request: unknown;
  constructor(response: Response, request: unknown) {
    super(`Retrying a ${response.status} response, as \`statusCodes\` asks.`);
    this.response = response;
    this.request = request;
  }
}

/** ky's answer once a retry's wait is over. */
const retryNow = () => true;

/** The response of an attempt as the core's outcome. */
function answered(response: Response): Outcome {
  return { type: 'response', status: response.status, headers: response.headers, response };
}

/**
 * One logical ky call: the core's `RetryState`, reached by ky's questions through closures bound to ky's
 * per-call retry object. It never drives ky: ky's loop runs as ky runs it, and this only answers.
 */
export class KyCall {
  /** `undefined` when retries are off for this call (`backoff: false`). */
  readonly state: RetryState | undefined;
  /**
   * ky's retry limit for this call: `retries + 1`, so that ky still asks about the attempt that exhausts
   * `retries` (the core says why it stops; a retry you force with `ky.retry()` counts toward it, as in ky), or 0
   * for a body that cannot be sent twice (ky then tees nothing).
   */
  readonly limit: number;
  /** This call's `retries`: a retry you force with `ky.retry()` counts toward it, as ky's own do. */
  #retries = 0;
  /** The result of a call that ended on a forced retry refused past `retries` (the core was not asked). */
  #refused: BackoffResult | undefined;
  /**
   * Whether ky 2's reads of this call's retry `limit` name it to kyBackoff's `fetch` (from the first retry on);
   * `undefined` on ky 1, which shows `beforeRequest` every request it sends.
   */
  announces: boolean | undefined;
  /** The last request this call is known to have sent (ky 1: every attempt; ky 2: the first). */
  request: Request | undefined;
  /** The response fetch returned for the latest attempt: the object the caller gets (ky returns it as it is). */
  #fetched: Response | undefined;
  /**
   * ky 2 reads a failed response's body into `HTTPError.data` before it asks `shouldRetry`: with a `shouldRetry`
   * option set, a copy of a failed response (taken as fetch returns it) is what that option reads instead.
   */
  #readable: Response | undefined;
  readonly #keepsCopies: boolean;
  /** A wait handed to ky (after ky's own timeout): ky's `delay` returns it once. */
  #kyDelay = 0;
  #replayable: boolean;
  /** Whether the latest attempt's outcome reached the core. */
  #decided = false;
  /** A retry the core decided on a response below 400, handed to ky as `RetriedResponseError`. */
  #retried: { readonly error: RetriedResponseError; readonly decision: Decision } | undefined;
  /** The latest attempt began with the caller's signal already aborted: fetch sent nothing. */
  #unsent = false;

  /**
   * Whether `fetch` decides a failed status too: for a call that ky will not throw for (ky 1 hooks see a
   * per-request `throwHttpErrors: false`) and that has no `afterResponse` hook to retry it. Such a call is
   * decided on every attempt but never retried on a status.
   */
  readonly #decidesFailures: boolean;

  constructor(setup: {
    readonly policy: Backoff;
    readonly override: unknown;
    readonly request: Request;
    readonly body: unknown;
    /** ky 2 (it tees a body only when its limit is above 0; ky 1 clones every request anyway). */
    readonly ky2: boolean;
    readonly decidesFailures: boolean;
  }) {
    const { policy, override, request } = setup;
    this.#replayable = replayableRequest(request, setup.body);
    this.#decidesFailures = setup.decidesFailures;
    this.request = request;
    this.announces = setup.ky2 ? false : undefined;
    this.#keepsCopies = false;
    // ky 2 tees a body only when its limit is above 0; ky 1 clones every request anyway.
    const teeable = this.#replayable || !setup.ky2;
    if (override === false) {
      this.state = undefined;
      this.limit = teeable ? policy.options.retries + 1 : 0;
      return;
    }
    let own =
      override === undefined ? policy : policy.extend(withoutMergeArtefact(override) as BackoffOptions);
    if (setup.decidesFailures) own = own.extend({ retries: 0 });
    this.limit = teeable ? own.options.retries + 1 : 0;
    this.#retries = own.options.retries;
    this.#keepsCopies = setup.ky2 && own.options.shouldRetry !== undefined;
    this.state = own.start({
      method: request.method,
      url: request.url,
      headers: request.headers,
      replayable: this.#replayable,
    });
    if (this.state.idempotencyKey !== undefined) {
      // Only with `idempotencyKey` set (R10). ky clones this request for each retry: the key goes along.
      request.headers.set(own.options.idempotencyKeyHeader, this.state.idempotencyKey);
    }
    // The core reads the key back from the request ky sends, not from its record of the key it made.
    this.state.sent(request.headers);
  }

  /**
   * A new attempt starts (kyBackoff's `fetch`; on ky 1 also its `beforeRequest`): nothing decided about it yet.
   * The request about to go out is reported to the core, which retries a non-idempotent one only on a key it
   * carries (ky 2 builds each retry's request itself, a clone or a new one after its own timeout).
   */
  beginAttempt(request: unknown): void {
    this.#decided = false;
    this.#unsent = signalOf(request)?.aborted === true;
    if (this.state !== undefined && typeof Request !== 'undefined' && request instanceof Request) {
      this.state.sent(request.headers);
    }
  }

  /**
   * Ends the call on `error` with no attempt counted when the latest one never went out (its signal had aborted
   * before fetch was called): attempts count what was sent.
   */
  #abandoned(error: unknown): boolean {
    const { state } = this;
    if (state === undefined || !this.#unsent || this.#decided) return false;
    this.#decided = true;
    state.abandon();
    attachResult(error, state.result());
    return true;
  }

  /** kyBackoff's `fetch`, for each attempt this call sends: an OK response is the attempt's outcome. */
  fetched(response: Response, request: unknown): Response | Promise<Response> {
    this.#fetched = response;
    this.#readable = this.#keepsCopies && !response.ok ? response.clone() : undefined;
    const { state } = this;
    if (state === undefined || (!response.ok && !this.#decidesFailures)) return response;
    // A failed status is decided where ky asks about it (its HTTPError, after your afterResponse hooks).
    this.#decided = true;
    const decision = state.decide(answered(response), signalOf(this.request));
    if (decision instanceof Promise) {
      return settled(state, decision).then((made) => this.#answered(response, request, made));
    }
    return this.#answered(response, request, decision);
  }

  /**
   * The response as ky gets it; or, when the core retries it (only a status below 400 listed in `statusCodes`
   * gets here with a retry), a rejection that ky's loop retries: ky then asks `shouldRetry`, which waits.
   */
  #answered(response: Response, request: unknown, decision: Decision): Response {
    if (!decision.retry || !response.ok) return attachResult(response, (this.state as RetryState).result());
    response.body?.cancel().catch(() => {});
    const error = new RetriedResponseError(response, request);
    this.#retried = { error, decision };
    throw error;
  }

  /**
   * `beforeRetry` with ky's `ForceRetryError`: a retry your afterResponse hook forced with `ky.retry()`, which ky
   * sends without asking. The attempt it follows is counted (a failed status that no one decided yet is decided
   * now, so the budget pays for it like any retry), and once `retries` retries were made the forced one is
   * refused: the call ends with that ForceRetryError, as ky ends it at its own limit.
   */
  forced(error: unknown): Promise<void> | undefined {
    const { state } = this;
    if (state === undefined || !hasKyErrorName(error, 'ForceRetryError')) return undefined;
    const refuse = (): undefined => {
      if (state.attempts <= this.#retries) return undefined;
      this.#refused = { ...state.result(), reason: 'retries-exhausted' };
      throw attachResult(error, this.#refused);
    };
    if (this.#decided || this.#fetched === undefined) return refuse();
    this.#decided = true;
    const decision = state.decide(answered(this.#fetched), undefined);
    if (decision instanceof Promise) return settled(state, decision).then(refuse);
    return refuse();
  }

  /** ky's `delay` for this call: 0 (the core has waited already), unless the wait was handed to ky. */
  takeDelay(): number {
    const delay = this.#kyDelay;
    this.#kyDelay = 0;
    return delay;
  }

  /**
   * ky's `shouldRetry`, asked about every failed attempt of a method in ky's list: ky's HTTPError (its response
   * is the one after your afterResponse hooks), a network error, ky's timeout, an abort. The core decides; a
   * retry waits here (`#retryAfter`) before ky hears `true`.
   */
  shouldRetry(error: unknown): boolean | Promise<boolean> {
    const { state } = this;
    if (state === undefined || this.#abandoned(error)) return false;
    const retried = this.#retried;
    this.#retried = undefined;
    if (retried !== undefined && retried.error === error) {
      return this.#retryAfter(
        retried.decision,
        error,
        signalOf(retried.error.request) ?? signalOf(this.request),
      );
    }
    // Decided already when fetch's response was OK and a later afterResponse hook turned it into this HTTPError.
    const revised = this.#decided;
    this.#decided = true;
    const signal = signalOf((error as { request?: unknown } | null)?.request) ?? signalOf(this.request);
    const response = httpErrorResponse(error);
    const timeout = hasKyErrorName(error, 'TimeoutError');
    const outcome: Outcome =
      response === undefined
        ? {
            type: 'error',
            kind: errorKind(error, signal?.aborted === true && !timeout),
            error,
            redirected: fetchRedirected(this.request?.redirect),
          }
        : answered(response === this.#fetched ? (this.#readable ?? response) : response);
    this.#readable = undefined;
    // After ky's own timeout the attempt's signal is spent: an async shouldRetry is then awaited as it is.
    const live = signal?.aborted ? undefined : signal;
    const decision = revised ? state.revise(outcome, live) : state.decide(outcome, live);
    // No async function here: a request parked in its wait holds no suspended frame of kyBackoff's own.
    if (decision instanceof Promise) {
      return settled(state, decision).then((decided) => this.#retryAfter(decided, error, signal));
    }
    return this.#retryAfter(decision, error, signal);
  }

  /**
   * What ky hears about a decided attempt: `false` (the result goes on the error), or `true` once the wait is
   * over. The wait runs on the injected timers, listening to the attempt's signal (it follows the caller's).
   * After ky's own timeout that signal is spent: the wait is then ky's own (the only one that still hears the
   * caller's signal), announced to the core so that `onRetry` and `totalDelay` stay exact.
   */
  #retryAfter(
    decision: Decision,
    error: unknown,
    signal: AbortSignal | undefined,
  ): boolean | Promise<boolean> {
    const state = this.state as RetryState;
    if (!decision.retry) {
      attachResult(error, state.result());
      return false;
    }
    if (signal?.aborted) {
      return settled(
        state,
        state.announce(decision).then(() => decision),
      ).then(() => {
        this.#kyDelay = decision.delay;
        return true;
      });
    }
    // Aborted (or onRetry threw): the call ends with that, carrying what was done so far.
    return state.wait(decision, signal).then(retryNow, (reason: unknown) => {
      throw attachResult(reason, state.result());
    });
  }

  /**
   * `afterResponse`, installed only on an instance with `throwHttpErrors: false` (ky then never throws, so never
   * asks `shouldRetry` about a status): decides a failed status, and retries it with ky's own marker.
   */
  async afterResponse(
    response: Response,
    marker: RetryMarkerFactory | undefined,
  ): Promise<undefined | unknown> {
    const { state } = this;
    if (state === undefined || response.ok) return undefined;
    this.#decided = true;
    const signal = signalOf(this.request);
    const decision = await settled(state, state.decide(answered(response), signal));
    if (!decision.retry || marker === undefined) {
      if (this.#fetched !== undefined) attachResult(this.#fetched, state.result());
      return undefined;
    }
    try {
      await state.wait(decision, signal);
    } catch (reason) {
      throw attachResult(reason, state.result());
    }
    return marker({ delay: 0, code: `backoff:${decision.reason}` });
  }

  /**
   * `beforeError` (ky 2: once, for the final error; ky 1: for each HTTPError, before ky asks `shouldRetry`):
   * attaches the result to the error. With a one-shot body ky 2 was told not to retry (limit 0), so its failure
   * never reaches `shouldRetry`: it is recorded here, for the reason.
   */
  beforeError(error: unknown): Promise<void> | undefined {
    const { state } = this;
    if (state === undefined || this.#abandoned(error)) return undefined;
    if (!this.#decided && this.limit > 0 && hasKyErrorName(error, 'TimeoutError')) {
      // ky ended the call without asking: its `totalTimeout` ran out (during an attempt, or before a wait).
      this.#decided = true;
      state.end({ type: 'error', kind: 'timeout', error }, 'deadline');
    }
    if (!this.#decided && this.limit === 0) {
      const response = httpErrorResponse(error);
      const signal = signalOf(this.request);
      const kind = errorKind(error, signal?.aborted === true);
      if (response !== undefined || kind !== 'unknown') {
        this.#decided = true;
        const decision = state.decide(
          response === undefined ? { type: 'error', kind, error } : answered(response),
          signal?.aborted ? undefined : signal,
        );
        // ky awaits beforeError hooks: an async shouldRetry is heard before the error goes on.
        if (decision instanceof Promise) {
          return settled(state, decision).then(() => {
            attachResult(error, state.result());
          });
        }
      }
    }
    attachResult(error, this.#refused ?? state.result());
    return undefined;
  }
}
