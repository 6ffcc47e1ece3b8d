import type { BackoffResult } from 'backoff-core';
import {
  type Attempt,
  attachResult,
  type Client,
  classifyError,
  classifyNetworkFailure,
  type ErrorKind,
  fetchRedirected,
  field,
  type Outcome,
  type ResponseBody,
  responseOutcome,
  type Settled,
  Stopped,
  webResponseBody,
} from 'backoff-core/adapter';

/** The instance's own `ky.retry` (ky checks its marker with `instanceof`: a bundled copy would not do). */
export type RetryMarker = (options: { delay: number; code: string }) => unknown;

/** ky's errors by name, as ky's own guards do; `AbortSignal.timeout()`'s DOMException TimeoutError is the caller's. */
export const isKyError = (error: unknown, name: string): boolean =>
  field(error, 'name') === name && !(error instanceof DOMException);

/** ky 2's NetworkError wraps fetch's error as `cause`: the core classifies that, else ky's verdict stands. */
function errorKind(error: unknown, aborted: boolean): ErrorKind {
  if (aborted) return 'abort';
  if (isKyError(error, 'TimeoutError')) return 'timeout';
  const network = isKyError(error, 'NetworkError');
  return network ? classifyNetworkFailure(field(error, 'cause')) : classifyError(error);
}

/** A response the core retries although ky would not (a 2xx in `statusCodes`), as an error ky retries. */
export class RetriedResponseError extends Error {
  override readonly name = 'RetriedResponseError';
  constructor(readonly response: Response) {
    super(`Retrying a ${response.status} response, as \`statusCodes\` asks.`);
  }
}

/** Why the runner's call ends when ky ended it on its own: its totalTimeout is the deadline, else a hook failed. */
const kyEnded = (error: unknown): Stopped =>
  new Stopped(isKyError(error, 'TimeoutError') ? 'deadline' : 'callback-error', error);

/**
 * Where one call stands between ky and the runner:
 * - `holding`   the call began in ky's beforeRequest; the runner's gates run (a pacer's hold) while ky waits there;
 * - `sending`   ky goes on to its fetch; the runner waits for it;
 * - `answering` kyBackoff's fetch handed the request to the runner, which sends it; ky gets the answer and judges it
 *               (its hooks, its HTTPError) while the runner waits for that verdict;
 * - `deciding`  ky asked about the attempt (its shouldRetry, an afterResponse or beforeRetry hook, or the fetch of a
 *               response it does not throw for) and waits while the runner decides and waits;
 * - `retrying`  the runner said go: ky goes on to its next attempt;
 * - `done`      ky ended the call (its totalTimeout, a hook's error), or the core refused it; the runner ends too;
 * - `ended`     the runner ended the call and handed its end to ky: any later attempt is a resumed body's continuation.
 */
type Phase = 'holding' | 'sending' | 'answering' | 'deciding' | 'retrying' | 'done' | 'ended';

/** How one side waits for the other: the handles of its pending promise. */
interface Waiting<T> {
  readonly resolve: (value: T) => void;
  readonly reject: (reason: unknown) => void;
}

/**
 * How ky waits for the call: which of ky's steps asked. `begin`: beforeRequest; `fetch`: kyBackoff's fetch; `ask`:
 * shouldRetry; `after`: afterResponse; `forced`: beforeRetry; `end`: beforeError, until the runner ended.
 */
interface Turn extends Waiting<unknown> {
  readonly step: 'begin' | 'fetch' | 'ask' | 'after' | 'forced' | 'end';
}

/** A promise and the handles that settle it. */
function waiting<T>(): Waiting<T> & { readonly promise: Promise<T> } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** What a call is made with: the per-call facts kyBackoff read of ky's options. */
export interface KyCallSetup {
  readonly request: Request;
  /** The fetch the caller or the instance gave ky (else the global one, as it is when each attempt goes). */
  readonly fetch: ((request: Request, init?: Record<string, unknown>) => Promise<Response>) | undefined;
  /** The caller's own signal (ky's hooks see only ky's own, which ky's timeout aborts too). */
  readonly signal: AbortSignal | undefined;
  /**
   * Whether ky may end the call on its own while the runner waits (ky 2's totalTimeout; an afterResponse hook's
   * response ky throws for without asking): the runner's waits must then hear ky too.
   */
  readonly kyEnds: boolean;
  /** Whether ky throws an HTTPError for a status (`throwHttpErrors`). */
  readonly throws: (status: number) => boolean;
  /** Whether ky runs afterResponse hooks for this call (kyBackoff's own is the last of them). */
  readonly afterHooks: boolean;
  /** The instance's `ky.retry`, where ky has one (2.x, 1.14+). */
  readonly marker: RetryMarker | undefined;
  /** ky reads a failed body before it asks: a `shouldRetry` of ours is handed a copy of the response. */
  readonly keepsCopies: boolean;
}

/**
 * One attempt of a ky call: the Request ky hands its fetch, after ky's own hooks (beforeRequest, beforeRetry), so
 * that what is read and changed is what goes out. ky clones its request for the next attempt before it sends this
 * one: a change stays on this attempt. A hedge's copy has headers of its own and clones the request only when it
 * is sent (a copy that never goes leaves no body to cancel).
 */
class KyAttempt implements Attempt {
  readonly request: Request;
  /** A hedge's copy's own headers. */
  readonly own: Headers | undefined;

  constructor(request: Request, own?: Headers) {
    this.request = request;
    this.own = own;
  }

  get headers(): Headers {
    return this.own ?? this.request.headers;
  }

  header(name: string, value: string | null): void {
    if (value === null) this.headers.delete(name);
    else this.headers.set(name, value);
  }

  copy(): KyAttempt {
    return new KyAttempt(this.request, new Headers(this.headers));
  }
}

/**
 * One ky call, as the runner drives it (the core's `Client`): ky's own retry loop runs as ky runs it, and at each of
 * ky's steps the call hands over to the runner, which sends, decides and waits, then answers ky. It never drives ky:
 * it only answers where ky asks.
 *
 * What the call holds, and why. Two sides wait for each other, one at a time: ky at one of its steps (`#turn`), the
 * runner for ky's fetch or ky's verdict (`#waiting`; a verdict that comes first is kept in `#early`). The attempt in
 * flight is `#request`, sent with ky's fetch options (`#init`), and answered by `#fetched`; ky hands its hooks a
 * copy (`#hooked`, what a resumed body reads), and a `shouldRetry` of ours reads `#copy` where ky reads the body.
 * ky's error for the attempt (`#kyError`) is what the caller gets if it is the last, and carries the result; an
 * interruption of the runner's own (an abort, a callback's error) takes its place. `#retried` answers the
 * shouldRetry that follows a response ky would not retry by itself. The runner's waits hear the caller's signal,
 * and ky's only where ky may end the call while the runner waits (`#controller`).
 */
export class KyCall implements Client<Response> {
  readonly transport = 'fetch';
  phase: Phase = 'holding';
  readonly #setup: KyCallSetup;
  /** Made only where ky may end the call on its own during the runner's waits: it follows the caller's signal. */
  readonly #controller: AbortController | undefined;
  #release: (() => void) | undefined;
  /** ky's step that waits for the call, if one does. */
  #turn: Turn | undefined;
  /** The runner waiting for ky: for its fetch of the next attempt, then for its verdict on it. */
  #waiting: Waiting<never> | undefined;
  /** The verdict that arrived while the runner was still sending (ky's own timeout). */
  #early: Outcome | undefined;
  /** The answer to a shouldRetry ky is about to ask: the retry of a response ky would not retry by itself. */
  #retried: Promise<unknown> | undefined;
  /** The response kyBackoff's afterResponse hook got for the attempt in flight (ky's copy of `#fetched`). */
  #hooked: Response | undefined;
  /** The request of the attempt in flight, ky's fetch options for it, and the response kyBackoff's fetch got. */
  #request: Request;
  #init: Record<string, unknown> | undefined;
  #fetched: Response | undefined;
  /** A copy of a failed response, for a `shouldRetry` of ours (ky reads the one it has into `HTTPError.data`). */
  #copy: Response | undefined;
  /** ky's own error for the attempt being decided (what the caller gets if it is the last). */
  #kyError: unknown;
  /** Why the runner ended the call other than on an attempt's own outcome (an abort, a callback's error). */
  #interruption: { readonly error: unknown } | undefined;

  constructor(setup: KyCallSetup) {
    this.#setup = setup;
    this.#request = setup.request;
    const { signal } = setup;
    if (!setup.kyEnds) return;
    const controller = new AbortController();
    this.#controller = controller;
    if (signal === undefined) return;
    const follow = () => controller.abort(signal.reason);
    if (signal.aborted) follow();
    signal.addEventListener('abort', follow, { once: true });
    this.#release = () => signal.removeEventListener('abort', follow);
  }

  /** ky waits at `step` until the runner answers. */
  #wait(step: Turn['step']): Promise<unknown> {
    const { promise, resolve, reject } = waiting<unknown>();
    this.#turn = { step, resolve, reject };
    return promise;
  }

  /** The runner waits for ky. */
  #await<T>(): Promise<T> {
    const { promise, resolve, reject } = waiting<T>();
    this.#waiting = { resolve: resolve as (value: never) => void, reject };
    return promise;
  }

  /** Settles the runner's wait for ky, if it waits. */
  #resume(value: Attempt | Outcome): boolean {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve(value as never);
    return waiting !== undefined;
  }

  /** Hands ky's verdict on the attempt in flight to the runner. */
  #judged(outcome: Outcome): void {
    this.phase = 'deciding';
    if (!this.#resume(outcome)) this.#early = outcome;
  }

  /** Why the runner's call ends when ky ended it. */
  #stopped(): unknown {
    return this.#controller?.signal.reason ?? kyEnded(this.#kyError);
  }

  // --- ky's steps ---

  /** ky's beforeRequest: waits while the runner's gates run before the first send. */
  begin(): Promise<unknown> {
    return this.#wait('begin');
  }

  /** kyBackoff's fetch: hands ky's request to the runner, which sends it with `init`; resolves with what ky gets. */
  fetch(request: Request, init: Record<string, unknown> | undefined): Promise<Response> {
    this.phase = 'answering';
    this.#request = request;
    this.#init = init;
    this.#copy = undefined;
    this.#fetched = undefined;
    this.#hooked = undefined;
    this.#kyError = undefined;
    this.#early = undefined;
    const answer = this.#wait('fetch') as Promise<Response>;
    this.#resume(new KyAttempt(request));
    return answer;
  }

  /**
   * ky's shouldRetry, about a failed attempt: ky's verdict, answered once the runner decided (and waited, for a
   * retry). About a retry the runner asked ky for (a response ky would not retry by itself), the runner's go.
   */
  ask(error: unknown): unknown {
    const retried = this.#retried;
    this.#retried = undefined;
    if (retried !== undefined) return retried;
    if (this.phase !== 'answering') return this.phase === 'retrying';
    this.#kyError = error;
    const response = field(error, 'response');
    const status = isKyError(error, 'HTTPError') && response instanceof Response ? response : undefined;
    const { signal } = this.#request;
    // ky's HTTPError goes along: a `shouldRetry` of ky's own (its `retry` option) is asked with it.
    const seen = status !== undefined && status === this.#fetched ? (this.#copy ?? status) : status;
    const outcome: Outcome =
      seen !== undefined
        ? Object.assign(responseOutcome(seen), { kyError: error })
        : {
            type: 'error',
            kind: errorKind(error, signal.aborted && !isKyError(error, 'TimeoutError')),
            error,
            redirected: fetchRedirected(this.#request.redirect),
          };
    const asked = this.#wait('ask');
    this.#judged(outcome);
    return asked;
  }

  /**
   * kyBackoff's afterResponse hook, the last of the call's: the response as ky's hooks made it. One ky throws for is
   * judged by ky's shouldRetry; any other is judged here.
   */
  after(response: Response): Promise<unknown> | undefined {
    if (this.phase !== 'answering' || (!response.ok && this.#setup.throws(response.status))) return undefined;
    this.#hooked = response;
    const asked = this.#wait('after');
    this.#judged(responseOutcome(response));
    return asked;
  }

  /**
   * kyBackoff's beforeRetry, with the request ky sends next: the next attempt begins. A retry forced by a hook of
   * the caller's (`ky.retry()`) is an attempt's verdict the runner decides like any other: within `retries`, the
   * method gate and the budget. One forced with a request of its own (`ky.retry({ request })`) sends that request,
   * as ky's earlier beforeRetry hooks left it: the gate judges its method and key.
   */
  retrying(error: unknown, request: Request | undefined): Promise<unknown> | undefined {
    if (this.phase === 'answering' && isKyError(error, 'ForceRetryError')) {
      const response = this.#fetched;
      const replacement =
        field(error, 'customRequest') !== undefined && request !== undefined
          ? { method: request.method, headers: request.headers }
          : undefined;
      const outcome: Outcome =
        response !== undefined
          ? { ...responseOutcome(response), forced: true, replacement }
          : { type: 'error', kind: 'unknown', error, forced: true, replacement };
      response?.body?.cancel().catch(() => {});
      this.#kyError = error;
      const asked = this.#wait('forced');
      this.#judged(outcome);
      return asked;
    }
    if (this.phase === 'retrying') this.phase = 'sending';
    return undefined;
  }

  /**
   * ky 2's beforeError, once, for the final error: ky ended the call, and no retry may follow. When ky decided the
   * attempt in flight without asking (a body it would not tee), the runner still judges that attempt, but cannot
   * wait for a retry (its waits are cut at once); any other error (its totalTimeout, a hook of the caller's that
   * threw) ends the runner's call with it. Resolves once the result is on ky's error.
   */
  failed(error: unknown): Promise<unknown> {
    if (this.phase === 'ended') return Promise.resolve();
    if (this.phase !== 'done') {
      const judged = this.phase === 'answering' && this.#decidedWithoutAsking(error);
      this.#kyError = error;
      if (judged) {
        const response = field(error, 'response');
        this.#judged(
          isKyError(error, 'HTTPError') && response instanceof Response
            ? responseOutcome(response)
            : {
                type: 'error',
                kind: errorKind(error, this.#request.signal.aborted && !isKyError(error, 'TimeoutError')),
                error,
              },
        );
      }
      this.phase = 'done';
      const stopped = kyEnded(error);
      this.#controller?.abort(stopped);
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.reject(stopped);
    }
    return this.#wait('end');
  }

  /**
   * Whether `error` is ky's own verdict on the attempt in flight: its HTTPError for the response this attempt got,
   * or, when none came, its failure to get one. A hook's error (an HTTPError of another request among them) is not.
   */
  #decidedWithoutAsking(error: unknown): boolean {
    const fetched = this.#fetched;
    if (fetched === undefined) return isKyError(error, 'NetworkError') || isKyError(error, 'TimeoutError');
    const response = field(error, 'response');
    return isKyError(error, 'HTTPError') && (response === fetched || response === this.#hooked);
  }

  /** The runner ended: ky's step that waits goes on, as `answer` says; later steps go on at once. */
  #end(answer: (turn: Turn) => void): void {
    const turn = this.#turn;
    this.#turn = undefined;
    this.phase = 'ended';
    this.#release?.();
    if (turn?.step === 'end') turn.resolve(undefined);
    else if (turn !== undefined) answer(turn);
  }

  /** The core refused the call before anything was sent (a key that cannot travel): ky's beforeRequest fails. */
  refused(error: unknown): void {
    this.#end((turn) => turn.reject(error));
  }

  // --- the runner's side (the core's Client) ---

  next(): Promise<Attempt> | Attempt {
    if (this.phase === 'ended') return this.#again();
    if (this.phase === 'done') return Promise.reject(this.#stopped());
    const turn = this.#turn;
    this.#turn = undefined;
    const sending = this.#await<Attempt>();
    this.phase = this.phase === 'holding' ? 'sending' : 'retrying';
    // ky goes on: past beforeRequest, or to its next attempt.
    if (turn?.step === 'after') {
      const { marker } = this.#setup;
      // ky 2 retries after its afterResponse hooks only on its own marker; ky 1 retries what a hook throws.
      if (marker !== undefined) turn.resolve(marker({ delay: 0, code: 'backoff' }));
      else turn.reject(new RetriedResponseError(this.#fetched as Response));
    } else {
      turn?.resolve(turn.step === 'ask' ? true : undefined);
    }
    return sending;
  }

  /**
   * An attempt after the call ended: a resumed body's continuation, sent as ky last sent the request (ky's loop and
   * hooks are over), under the caller's own signal (ky's timeout is for the call that ended).
   */
  #again(): Attempt {
    const request = new Request(this.#request, {
      signal: this.#setup.signal ?? new AbortController().signal,
    });
    this.#request = request;
    return new KyAttempt(request);
  }

  send(attempt: Attempt, signal?: AbortSignal): Promise<Response> {
    const { request, own } = attempt as KyAttempt;
    const send = this.#setup.fetch ?? globalThis.fetch;
    if (signal === undefined) return send(request, this.#init);
    // A hedged copy goes with its own signal (and a copy with its own headers); ky's request stays ky's to read.
    const init: RequestInit = own === undefined ? { signal } : { signal, headers: own };
    return send(new Request(request.clone(), init), this.#init);
  }

  outcome(settled: Settled<Response>): Outcome {
    if (settled.ok) return responseOutcome(settled.value);
    return {
      type: 'error',
      kind: errorKind(settled.error, this.#request.signal.aborted),
      error: settled.error,
      redirected: fetchRedirected(this.#request.redirect),
    };
  }

  /**
   * ky's verdict on the attempt: ky gets the answer (a failure, or a response its hooks or its HTTPError judge
   * first), then says. A response ky would hand over as it is is judged now: ky gets it once it is decided.
   */
  answer(settled: Settled<Response>, raw: Outcome): Outcome | Promise<Outcome> {
    // A resumed body's continuation: ky is no longer asked.
    if (this.phase === 'ended') return raw;
    if (this.#early !== undefined) return this.#early;
    if (this.phase === 'done') return Promise.reject(this.#stopped());
    const turn = this.#turn;
    if (settled.ok) {
      this.#fetched = settled.value;
      const { ok, status } = settled.value;
      if (!this.#setup.afterHooks && (ok || !this.#setup.throws(status))) {
        this.phase = 'deciding';
        return raw;
      }
    }
    this.#turn = undefined;
    const verdict = this.#await<Outcome>();
    if (settled.ok && this.#setup.keepsCopies && !settled.value.ok) this.#copy = settled.value.clone();
    if (settled.ok) turn?.resolve(settled.value);
    else turn?.reject(settled.error);
    return verdict;
  }

  signal(): AbortSignal | undefined {
    // Once the call ended, only the caller ends a resumed body's continuations.
    return this.phase === 'ended' ? this.#setup.signal : (this.#controller?.signal ?? this.#setup.signal);
  }

  /**
   * ky hands its afterResponse hooks a copy (a tee of the body) and cancels what it does not hand over: a resumed
   * body reads the copy kyBackoff's hook got, and ky hands over the response made of it.
   */
  body(response: Response): ResponseBody<Response> {
    const hooked = this.#hooked;
    return webResponseBody(response === this.#fetched && hooked !== undefined ? hooked : response);
  }

  /**
   * Lets go of a response that will not reach the caller: a hedge's losing copy, or the attempt the runner retries.
   * The attempt's response ky has not seen yet (one it would not retry by itself) becomes an error ky retries, and
   * ky's shouldRetry then waits for the runner's go; one ky has seen is ky's to let go of.
   */
  discard(settled: Settled<Response>): void {
    if (!settled.ok) return;
    const turn = this.#turn;
    if (settled.value !== this.#fetched) {
      settled.value.body?.cancel().catch(() => {});
      return;
    }
    if (turn?.step !== 'fetch') return;
    settled.value.body?.cancel().catch(() => {});
    // Answered by the runner's go (or its end), whether ky asks before or after it.
    this.#retried = this.#wait('ask');
    this.#retried.catch(() => {});
    turn.reject(new RetriedResponseError(settled.value));
  }

  interrupted(reason: unknown): unknown {
    this.#interruption = { error: reason };
    return reason;
  }

  finish(settled: Settled<Response>, result: BackoffResult): Response {
    const interruption = this.#interruption;
    const kyError = this.#kyError;
    if (interruption !== undefined) {
      // The call ended on an abort, a callback's error or a refusal: ky's step fails with it.
      const { error } = interruption;
      attachResult(error, result);
      this.#end((turn) => {
        if (error !== kyError) turn.reject(error);
        else turn.resolve(turn.step === 'ask' ? false : undefined);
      });
      return undefined as never;
    }
    // The attempt's own outcome is final: ky hands it over as it always does.
    if (kyError !== undefined) attachResult(kyError, result);
    if (this.#fetched !== undefined) attachResult(this.#fetched, result);
    attachResult(settled.ok ? settled.value : settled.error, result);
    // A response the runner gave a resumed body replaces the one ky's afterResponse hooks saw.
    const resumed = settled.ok && settled.value !== this.#fetched ? settled.value : undefined;
    this.#end((turn) => {
      if (turn.step === 'fetch') {
        if (settled.ok) turn.resolve(settled.value);
        else turn.reject(settled.error);
      } else if (turn.step === 'forced') turn.reject(kyError);
      else if (turn.step === 'after') turn.resolve(resumed);
      else turn.resolve(turn.step === 'ask' ? false : undefined);
    });
    return undefined as never;
  }
}
