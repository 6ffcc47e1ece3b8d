import type { Backoff, BackoffOptions, BackoffResult } from 'backoff-core';
import type { Decision, Outcome, RetryDecision, RetryState } from 'backoff-core/adapter';
import {
  attachResult,
  classifyError,
  classifyNetworkFailure,
  fetchRedirected,
  field,
  raceRequest,
  replayableBody,
} from 'backoff-core/adapter';
import { bindRetry, boundCall, carry, requestFields, withoutMergeArtefact } from './ky-retry.js';

/** The instance's own `ky.retry` (ky checks its marker with `instanceof`: a bundled copy would not do). */
export type RetryMarker = (options: { delay: number; code: string }) => unknown;
/** What the calls of one instance share: `deadline` is its `totalTimeout`, `throws` its `throwHttpErrors`. */
type Shared = {
  policy: Backoff;
  retry: Record<string, unknown>; // the instance's `retry` as kyBackoff sets it; `given`: as it was
  given: unknown;
  marker?: RetryMarker | undefined;
  deadline?: number | undefined;
  throws: unknown;
  afterHooks: boolean; // the instance has afterResponse hooks: a response is decided after them, not at fetch
  calls: Calls;
};
/** What a call reads of ky's hook options (ky 2 strips its own options, `throwHttpErrors` too). */
export type HookOptions = { readonly [key in 'body' | 'backoff' | 'retry' | 'throwHttpErrors']?: unknown };

const LINK = 'x-ky-backoff-link';
/** The one link from ky's per-call objects to their call: ky's per-call `retry` holds the call's `shouldRetry`, which
 * carries it (`of`); so does each request our hooks saw; a header links ky 2's copy after its own timeout (`take`). */
export class Calls {
  readonly #linked = new Map<string, KyCall>();
  #count = 0;
  of(retry: unknown): KyCall | undefined {
    const call = boundCall<KyCall>(retry);
    return call?.retry === retry ? call : undefined; // else a hook's options sent again: a new call
  }
  link(call: KyCall, request: Request): void {
    request.headers.set(LINK, String(++this.#count));
    this.#linked.set(String(this.#count), call);
  }
  take(request: Request): KyCall | undefined {
    const id = request.headers.get(LINK) ?? '';
    const call = this.#linked.get(id);
    request.headers.delete(LINK);
    this.#linked.delete(id);
    return call;
  }
}

function answered(response: Response): Outcome {
  return { type: 'response', status: response.status, headers: response.headers, response };
}
// ky's errors by name, as ky's own guards do; `AbortSignal.timeout()`'s DOMException TimeoutError is the caller's.
const isKyError = (error: unknown, name: string) =>
  field(error, 'name') === name && !(error instanceof DOMException);
/** ky 2's NetworkError wraps fetch's error as `cause`: the core classifies that, else ky's verdict stands. */
function errorKind(error: unknown, aborted: boolean) {
  if (aborted) return 'abort';
  const network = isKyError(error, 'NetworkError');
  return network ? classifyNetworkFailure(field(error, 'cause')) : classifyError(error);
}
/** A response the core retries (a 2xx in `statusCodes`), as an error ky retries: from fetch, or ky 1.13's hook. */
class RetriedResponseError extends Error {
  override readonly name = 'RetriedResponseError';
  constructor(readonly response: Response) {
    super(`Retrying a ${response.status} response, as \`statusCodes\` asks.`);
  }
}
/** One ky call: the core's RetryState, asked by ky's hooks and `retry` functions. It never drives ky. */
export class KyCall {
  readonly state: RetryState | undefined;
  readonly retry: Record<string, unknown>; // ky's per-call copy of the instance's `retry`, bound to this call
  readonly limit: number; // ky's per-call `limit`: "keep asking me" (0 for a body sent once: ky 2 tees nothing)
  readonly #retries: number;
  readonly #throws: boolean; // ky throws an HTTPError for every failed status, and asks `shouldRetry` about it
  readonly #keepsCopies: boolean; // ky 2 reads a failed body into `HTTPError.data`: `shouldRetry` reads a copy
  readonly #unsent: boolean; // the caller's signal was aborted before the call: fetch sends nothing
  readonly #shared: Shared;
  #request: Request; // the latest seen going out (its signal follows the caller's)
  #decided: Decision | undefined; // this attempt's decision
  #fetched: Response | undefined; // the response kyBackoff's fetch returned (the one the caller gets)
  #copy: Response | undefined;
  #kyDelay = 0; // a wait left to ky (after ky's own timeout), which its `delay` returns once
  #refused: BackoffResult | undefined;
  #relink: 'next' | 'linked' | undefined; // ky 2 sends the next request it shows us as a copy: link them

  constructor(shared: Shared, request: Request, options: HookOptions, ky2: boolean) {
    const { policy, marker, deadline, throws } = shared;
    const { backoff } = options;
    this.retry = options.retry as Record<string, unknown>;
    this.#shared = shared;
    this.#request = request;
    this.#unsent = request.signal.aborted;
    this.#throws = (options.throwHttpErrors ?? throws) === true;
    // A Request given as the input brings its own body, a stream.
    const replayable = options.body == null ? request.body === null : replayableBody(options.body);
    const asked = requestFields(this.retry, shared.retry, shared.given, policy.options);
    let own = asked === undefined ? policy : policy.extend(asked);
    if (backoff !== undefined && backoff !== false)
      own = own.extend(withoutMergeArtefact(backoff) as BackoffOptions);
    if (deadline !== undefined && !(deadline >= (own.options.deadline ?? Infinity)))
      own = own.extend({ deadline });
    // ky 1.13 cannot retry a status it does not throw for: such a call is decided with no retries.
    if (!this.#throws && marker === undefined) own = own.extend({ retries: 0 });
    this.#retries = own.options.retries;
    this.#keepsCopies = ky2 && own.options.shouldRetry !== undefined;
    // ky 2 tees a body only when its limit is above 0; with `backoff: false` it bounds the retries hooks force.
    const limit = !replayable && ky2 ? 0 : Number.MAX_SAFE_INTEGER;
    this.limit = backoff === false ? Math.min(limit, this.#retries) : limit;
    const { method, url, headers } = request;
    // ky clones this request for each retry: a generated key goes along.
    const stamp = (name: string, key: string) => {
      headers.set(name, key);
      return headers;
    };
    this.state = backoff === false ? undefined : own.start({ method, url, headers, replayable }, stamp);
    bindRetry(this.retry, shared.retry, method, this);
  }
  /** An attempt goes next (beforeRequest, beforeRetry): its request leads here; a pacer may hold it. */
  begin(request: Request): Promise<void> | undefined {
    this.#decided = this.#fetched = this.#copy = undefined;
    this.#request = carry(request, this);
    if (this.#relink === 'linked') this.#shared.calls.take(request); // ky cloned it from a linked one
    this.state?.sent(request.headers);
    if (this.#relink === 'next') this.#shared.calls.link(this, request);
    this.#relink = this.#relink && 'linked';
    return this.state?.ready(request.signal)?.catch(this.#ended);
  }
  /** Sends an attempt (hedged, when the call may be) and notes the response: the object the caller will get. */
  fetch(request: Request, send: (request: Request) => Promise<Response>): Promise<Response> {
    const pending =
      (this.state && raceRequest(this.state, request, send, errorKind, this.#ended)) ?? send(request);
    return pending.then((response) => {
      this.#fetched = response;
      if (this.#keepsCopies && !response.ok) this.#copy = response.clone();
      return this.#shared.afterHooks ? response : this.answer(response, false).then(() => response);
    });
  }
  /** ky's `delay`: 0, as the core has waited, unless the wait was left to ky. */
  takeDelay(): number {
    const delay = this.#kyDelay;
    this.#kyDelay = 0;
    return delay;
  }
  /** An OK response, or a failed status ky does not throw for, decided at fetch or after the instance's own
   * afterResponse hooks (`hook`: ky's copy). A retry is `ky.retry()` from a hook, else an error ky retries. */
  async answer(response: Response, hook: boolean): Promise<unknown> {
    const { state } = this;
    if (state === undefined || this.#decided !== undefined || (!response.ok && this.#throws)) return;
    const decision = await this.#decide(answered(response), undefined);
    if (decision.retry && hook && this.#shared.marker !== undefined) {
      await this.#pause(decision, this.#request.signal);
      return this.#shared.marker({ delay: this.takeDelay(), code: `backoff:${decision.reason}` });
    }
    if (hook || decision.retry) response.body?.cancel().catch(() => {});
    if (decision.retry) throw new RetriedResponseError(response);
    attachResult(this.#fetched ?? response, state.result()); // fetch's own response, not ky's copy
  }
  /** ky's `shouldRetry`, about each failed attempt: the core decides, and a retry waits before ky hears `true`. */
  shouldRetry(error: unknown): boolean | Promise<boolean> {
    const decided = this.#decided;
    if (this.state === undefined || this.#abandoned(error)) return false;
    if (decided?.retry) return this.#pause(decided, this.#request.signal);
    const sent = field(error, 'request');
    const request = sent instanceof Request ? sent : this.#request;
    const response = field(error, 'response');
    const status = isKyError(error, 'HTTPError') && response instanceof Response ? response : undefined;
    const turned = decided?.reason === 'success' && status !== undefined; // by a request's afterResponse hook
    if (decided !== undefined && !turned) return this.#stop(error);
    const kind = errorKind(error, request.signal.aborted && !isKyError(error, 'TimeoutError'));
    const seen = status === this.#fetched ? (this.#copy ?? status) : status;
    const outcome: Outcome = seen
      ? Object.assign(answered(seen), { kyError: error }) // for a `shouldRetry` of ky's
      : { type: 'error', kind, error, redirected: fetchRedirected(request.redirect) };
    this.#copy = undefined;
    const decision = this.#decide(outcome, request, turned);
    const next = (made: Decision) => (made.retry ? this.#pause(made, request.signal) : this.#stop(error));
    return decision instanceof Promise ? decision.then(next) : next(decision);
  }
  // beforeRetry: a retry a hook forced with `ky.retry()` counts (past `retries`, it ends the call); the next begins.
  retrying(request: Request, error: unknown): Promise<void> | undefined {
    const { state } = this;
    const next = () => this.begin(request);
    if (state === undefined || !isKyError(error, 'ForceRetryError') || this.#decided?.retry) return next();
    const refuse = () => {
      if (state.attempts <= this.#retries) return next();
      this.#refused = { ...state.result(), reason: 'retries-exhausted' };
      throw attachResult(error, this.#refused);
    };
    if (this.#decided !== undefined || this.#fetched === undefined) return refuse();
    const decision = this.#decide(answered(this.#fetched), undefined);
    return decision instanceof Promise ? decision.then(refuse) : refuse();
  }
  /** Puts the result on the error; an attempt ky ended without asking (totalTimeout, limit 0) is recorded first. */
  beforeError(error: unknown): Promise<void> | undefined {
    const { state } = this;
    if (this.#relink) this.#shared.calls.take(this.#request); // ky sent no copy
    if (state === undefined || this.#abandoned(error)) return undefined;
    let pending: Decision | Promise<Decision> | undefined;
    if (this.#decided === undefined && this.limit > 0 && isKyError(error, 'TimeoutError')) {
      this.#decided = state.end({ type: 'error', kind: 'timeout', error }, 'deadline');
    } else if (this.#decided === undefined && this.limit === 0) {
      const response = field(error, 'response');
      const kind = errorKind(error, this.#request.signal.aborted);
      if (response instanceof Response) pending = this.#decide(answered(response));
      else if (kind !== 'unknown') pending = this.#decide({ type: 'error', kind, error });
    }
    const attach = () => void attachResult(error, this.#refused ?? state.result());
    return pending instanceof Promise ? pending.then(attach) : attach();
  }
  /** Asks the core about this attempt (`revise`: again, on what a later hook made of it). */
  #decide(outcome: Outcome, request?: Request, revise = false): Decision | Promise<Decision> {
    const state = this.state as RetryState;
    if (request !== undefined) state.sent(request.headers);
    // After ky's own timeout the attempt's signal is spent: an async shouldRetry is then awaited as it is.
    const { signal } = request ?? this.#request;
    const live = signal.aborted ? undefined : signal;
    const made = revise ? state.revise(outcome, live) : state.decide(outcome, live);
    if (made instanceof Promise) return made.then((decision) => (this.#decided = decision), this.#ended);
    this.#decided = made;
    return made;
  }
  // An attempt that never went out (its signal aborted before fetch) ends the call with no attempt counted.
  #abandoned(error: unknown): boolean {
    if (!this.#unsent || this.#decided !== undefined || this.state === undefined) return false;
    this.#decided = this.state.abandon();
    return !this.#stop(error);
  }
  #stop(error: unknown): false {
    attachResult(error, this.#refused ?? (this.state as RetryState).result());
    return false;
  }
  /** The one wait of a retry: the core's, on the attempt's signal (it follows the caller's). */
  #pause(decision: RetryDecision, signal: AbortSignal): Promise<true> {
    const state = this.state as RetryState;
    if (!signal.aborted) return state.wait(decision, signal).then(() => true as const, this.#ended);
    // After ky's own timeout only ky's wait still hears the caller: ky waits (`delay`), and the core is told.
    this.#kyDelay = decision.delay;
    this.#relink = 'next'; // ky 2 then sends a copy of the next request it shows us (ky 1 shows it that copy)
    return state.announce(decision).then(() => true as const, this.#ended);
  }
  /** An abort, or a throwing `shouldRetry` or `onRetry`, ended the call: ky is told so if it asks again. */
  #ended = (reason: unknown): never => {
    const result = (this.state as RetryState).result();
    this.#decided = { retry: false, reason: result.reason as 'aborted', serverDelay: undefined };
    throw attachResult(reason, result);
  };
}
