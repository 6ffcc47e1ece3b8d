import { attachResult, type Backoff, type BackoffOptions, type RetryState } from 'backoff-core';
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
  /** The last request this call is known to have sent (ky 1: every attempt; ky 2: the first). */
  request: Request | undefined;
  /** The response fetch returned for the latest attempt: the object the caller gets (ky returns it as it is). */
  #fetched: Response | undefined;
  /** A wait handed to ky (after ky's own timeout): ky's `delay` returns it once. */
  #kyDelay = 0;
  #replayable: boolean;
  /** Whether the latest attempt's outcome reached the core. */
  #decided = false;

  constructor(policy: Backoff, override: unknown, request: Request, body: unknown) {
    this.#replayable = replayableRequest(request, body);
    this.request = request;
    if (override === false) {
      this.state = undefined;
      this.limit = this.#replayable ? policy.options.retries + 1 : 0;
      return;
    }
    const own = override === undefined ? policy : policy.extend(withoutMergeArtefact(override) as BackoffOptions);
    this.limit = this.#replayable ? own.options.retries + 1 : 0;
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
  }

  /** kyBackoff's `fetch`, for each attempt this call sends: an OK response is the attempt's outcome. */
  fetched(response: Response): Response {
    this.#fetched = response;
    this.#decided = false;
    const { state } = this;
    if (state === undefined || !response.ok) return response;
    // A failed status is decided where ky asks about it (its HTTPError, after your afterResponse hooks).
    this.#decided = true;
    state.next({ type: 'response', status: response.status, headers: response.headers });
    return attachResult(response, state.result());
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
   * retry waits here, on the injected timers, listening to the attempt's signal (it follows the caller's). After
   * ky's own timeout that signal is spent: the wait is then ky's own (the only one that still hears the caller's
   * signal), announced to the core so that `onRetry` and `totalDelay` stay exact.
   */
  async shouldRetry(error: unknown): Promise<boolean> {
    const { state } = this;
    if (state === undefined) return false;
    this.#decided = true;
    const signal = signalOf((error as { request?: unknown } | null)?.request) ?? signalOf(this.request);
    const response = httpErrorResponse(error);
    const timeout = hasKyErrorName(error, 'TimeoutError');
    const decision = state.next(
      response === undefined
        ? { type: 'error', kind: errorKind(error, signal?.aborted === true && !timeout), error }
        : { type: 'response', status: response.status, headers: response.headers },
    );
    if (!decision.retry) {
      attachResult(error, state.result());
      return false;
    }
    if (signal?.aborted) {
      state.announce(decision);
      this.#kyDelay = decision.delay;
      return true;
    }
    try {
      await state.wait(decision, signal);
    } catch (reason) {
      // Aborted (or onRetry threw): the call ends with that, carrying what was done so far.
      throw attachResult(reason, state.result());
    }
    return true;
  }

  /**
   * `afterResponse`, installed only on an instance with `throwHttpErrors: false` (ky then never throws, so never
   * asks `shouldRetry` about a status): decides a failed status, and retries it with ky's own marker.
   */
  async afterResponse(response: Response, marker: RetryMarkerFactory | undefined): Promise<undefined | unknown> {
    const { state } = this;
    if (state === undefined || response.ok) return undefined;
    this.#decided = true;
    const decision = state.next({ type: 'response', status: response.status, headers: response.headers });
    if (!decision.retry || marker === undefined) {
      if (this.#fetched !== undefined) attachResult(this.#fetched, state.result());
      return undefined;
    }
    try {
      await state.wait(decision, signalOf(this.request));
    } catch (reason) {
      throw attachResult(reason, state.result());
    }
    return marker({ delay: 0, code: `backoff:${decision.reason}` });
  }

  /**
   * `beforeError`: attaches the result to the error as the caller will get it. With a one-shot body ky was told
   * not to retry (limit 0), so its failure never reached `shouldRetry`: it is recorded here for the reason.
   */
  beforeError(error: unknown): void {
    const { state } = this;
    if (state === undefined) return;
    if (!this.#decided && !this.#replayable) {
      const response = httpErrorResponse(error);
      const kind = errorKind(error, signalOf(this.request)?.aborted === true);
      if (response !== undefined || kind !== 'unknown') {
        this.#decided = true;
        state.next(
          response === undefined
            ? { type: 'error', kind, error }
            : { type: 'response', status: response.status, headers: response.headers },
        );
      }
    }
    attachResult(error, state.result());
  }
}
