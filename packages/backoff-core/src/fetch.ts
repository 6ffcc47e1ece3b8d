import { type Backoff, createBackoff } from './backoff.js';
import { replayableBody } from './http/body.js';
import type { HeadersLike } from './http/headers.js';
import { fetchRedirected } from './http/not-sent.js';
import { classifyError, type Outcome, responseOutcome } from './http/outcome.js';
import type { ResponseBody } from './http/response-body.js';
import { webResponseBody } from './http/web-body.js';
import { briefly } from './options/check.js';
import type { BackoffOptions } from './options/options.js';
import { describeValue } from './options/show.js';
import type { BackoffResult } from './run/events.js';
import { attachResult } from './run/result.js';
import type { Attempt, Client, Settled } from './run/roles.js';
import { runCall } from './run/run.js';

// Bundlers replace it (see options/check.ts).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/**
 * What fetch takes as its first argument. Spelled out rather than the DOM's `RequestInfo | URL`: `RequestInfo`
 * exists only with `lib: ["dom"]`, and the declarations must also compile in a Node project with @types/node.
 */
export type FetchInput = string | URL | Request;

/** The shape of `fetch`: what `withBackoff` takes and returns. */
export type FetchLike = (input: FetchInput, init?: RequestInit) => Promise<Response>;

/** fetch's init, plus the per-request override: options to lay over the wrapper's, or `false` for no retries. */
export interface BackoffRequestInit extends RequestInit {
  /** @default undefined (the wrapper's options) */
  backoff?: BackoffOptions<Response> | false | undefined;
}

/** A fetch with retries; `backoff` is the policy it runs on (its options and budget). */
export type FetchWithBackoff = ((input: FetchInput, init?: BackoffRequestInit) => Promise<Response>) & {
  readonly backoff: Backoff;
};

function urlOf(input: FetchInput): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

/**
 * One attempt of a fetch call: the headers fetch will send (init's replace the Request's), read only when asked.
 * A `beforeAttempt` that changes them gets headers of this attempt's own, copied from the caller's at the first
 * change: the next attempt starts from the caller's headers again (plus the generated key).
 */
class FetchAttempt implements Attempt {
  readonly #client: FetchClient;
  /** This attempt's own headers, once something changed them. */
  own: Headers | undefined;

  constructor(client: FetchClient, own?: Headers) {
    this.#client = client;
    this.own = own;
  }

  /** Its own headers once changed; else itself, reading the caller's: nothing is copied for an attempt no one changes. */
  get headers(): HeadersLike {
    return this.own ?? this;
  }

  /** One of the caller's headers, as fetch will send it. */
  get(name: string): string | null | undefined {
    const headers = this.#client.baseHeaders();
    return headers === undefined ? undefined : new Headers(headers).get(name);
  }

  header(name: string, value: string | null): void {
    this.own ??= new Headers(this.#client.baseHeaders());
    if (value === null) this.own.delete(name);
    else this.own.set(name, value);
  }

  copy(): FetchAttempt {
    return new FetchAttempt(this.#client, this.own === undefined ? undefined : new Headers(this.own));
  }
}

/** One call through fetch: what the runner asks of withBackoff. */
class FetchClient implements Client<Response> {
  readonly transport = 'fetch';
  readonly #send: FetchLike;
  readonly #input: FetchInput;
  readonly #signal: AbortSignal | undefined;
  readonly #redirected: boolean | undefined;
  readonly #request: Request | undefined;
  /** fetch's init as every attempt sends it (with the generated Idempotency-Key, when there is one). */
  init: RequestInit | undefined;
  /** The attempt about to go; a new one only after a hook changed the last one's headers. */
  #attempt: FetchAttempt = new FetchAttempt(this);

  constructor(
    send: FetchLike,
    input: FetchInput,
    init: RequestInit | undefined,
    request: Request | undefined,
  ) {
    this.#send = send;
    this.#input = input;
    this.#request = request;
    this.init = init;
    this.#signal = init?.signal ?? request?.signal ?? undefined;
    this.#redirected = fetchRedirected(init?.redirect ?? request?.redirect);
  }

  /** The headers every attempt starts from: the caller's (init's replace the Request's), with the generated key. */
  baseHeaders(): HeadersInit | undefined {
    return this.init?.headers ?? this.#request?.headers;
  }

  next(): Attempt {
    if (this.#attempt.own !== undefined) this.#attempt = new FetchAttempt(this);
    return this.#attempt;
  }

  send(attempt: Attempt, signal?: AbortSignal): Promise<Response> {
    // Called as a plain function: a browser's own `fetch` throws "Illegal invocation" when called on another object.
    const send = this.#send;
    const own = (attempt as FetchAttempt).own;
    // A hedged copy goes with its own signal (it follows the caller's); init's signal replaces a Request's.
    if (own === undefined && signal === undefined) return send(this.#input, this.init);
    const init: RequestInit = { ...this.init };
    if (own !== undefined) init.headers = own;
    if (signal !== undefined) init.signal = signal;
    return send(this.#input, init);
  }

  outcome(settled: Settled<Response>): Outcome {
    if (settled.ok) return responseOutcome(settled.value);
    const { error } = settled;
    return {
      type: 'error',
      kind: this.#signal?.aborted ? 'abort' : classifyError(error),
      error,
      redirected: this.#redirected,
    };
  }

  signal(): AbortSignal | undefined {
    return this.#signal;
  }

  // Frees the failed response's connection; its body is never read.
  discard(settled: Settled<Response>): void {
    if (settled.ok) settled.value.body?.cancel().catch(() => {});
  }

  body(response: Response): ResponseBody<Response> {
    return webResponseBody(response);
  }

  finish(settled: Settled<Response>, result: BackoffResult): Response {
    if (settled.ok) return attachResult(settled.value, result);
    throw attachResult(settled.error, result);
  }
}

/**
 * Wraps a fetch function with retries. It resolves with the last `Response` (a final 503 is still a response, as
 * fetch does) and rejects with the last attempt's own error (`TypeError`, the abort reason, ...); both carry the
 * attempts and total wait, read with `getBackoffResult`. A `Request` passed with a body of its own is sent once:
 * pass the body in `init` to have it replayed.
 */
export function withBackoff(fetchFn?: FetchLike, options?: BackoffOptions<Response>): FetchWithBackoff {
  if (fetchFn !== undefined && typeof fetchFn !== 'function') {
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? `Expected \`fetch\` to be a function, got ${describeValue(fetchFn)}.`
        : briefly('not-a-client', 'fetch', fetchFn),
    );
  }
  const wrapped = createBackoff(options);
  // Looked up per call (not captured), so a fetch mocked after wrapping is still used.
  const send: FetchLike = fetchFn ?? ((input, init) => globalThis.fetch(input, init));

  // Not async itself (a request waiting to retry holds one frame, the loop's): the setup throws as a rejection.
  const fetchWithBackoff = (input: FetchInput, options?: BackoffRequestInit): Promise<Response> => {
    try {
      return start(input, options);
    } catch (error) {
      return Promise.reject(error);
    }
  };
  const start = (input: FetchInput, options?: BackoffRequestInit): Promise<Response> => {
    let init: RequestInit | undefined = options;
    let policy = wrapped;
    if (options !== undefined && 'backoff' in options) {
      const { backoff, ...rest } = options;
      if (backoff === false) return send(input, rest);
      init = rest;
      policy = wrapped.extend(backoff);
    }
    const request = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
    const client = new FetchClient(send, input, init, request);
    // The headers fetch will send, built as fetch builds them (init's replace the Request's).
    const headers = init?.headers ?? request?.headers;
    return runCall(
      policy,
      {
        method: init?.method ?? request?.method,
        url: urlOf(input),
        headers: headers === undefined ? undefined : new Headers(headers),
        replayable: init?.body === undefined ? !request?.body : replayableBody(init.body),
      },
      client,
      // Only when the user opted in: a new header can turn a simple CORS request into a preflighted one.
      (name, key) => {
        const sent = new Headers(headers);
        sent.set(name, key);
        client.init = { ...init, headers: sent };
        return sent;
      },
    );
  };
  return Object.assign(fetchWithBackoff, { backoff: wrapped });
}
