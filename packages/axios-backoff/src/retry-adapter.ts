import axios, {
  type AxiosAdapter,
  AxiosError,
  AxiosHeaders,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';
import { type Backoff, type BackoffResult, getBackoffResult } from 'backoff-core';
import {
  type Attempt,
  briefly,
  type Client,
  headerGetter,
  type Outcome,
  type ResponseBody,
  receivedHeaders,
  replayableBody,
  runCall,
  type Settled,
  type Transport,
} from 'backoff-core/adapter';
import { type AdapterSetting, resolveAdapter } from './axios-compat.js';
import { discardResponse } from './body.js';
import { cancellation, waitSignal } from './cancel.js';
import { errorOutcome, rejectedResponse, responseOutcome } from './outcome.js';
import { withResult } from './result.js';
import { requestUrl } from './url.js';

// Bundlers replace it: a production bundle leaves out the long explanations (docs/errors.md has them).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/** One `axiosBackoff` call: its policy, whether it is still installed, and its adapter for the last setting. */
export interface Installation {
  readonly policy: Backoff;
  active: boolean;
  /**
   * The retrying adapter made for the last adapter setting seen. An instance's requests nearly always share one
   * setting, so one adapter serves them all: no closure per request.
   */
  last?: RetryingAdapter | undefined;
  /** Set by `axiosOutbox`: wraps the retrying adapter, so a write the retries could not complete is queued. */
  wrap?: ((retrying: AxiosAdapter) => AxiosAdapter) | undefined;
}

// Registered, so that a second copy of this package recognises the adapters of the first.
const ORIGINAL: unique symbol = Symbol.for('axios-backoff.original-adapter') as never;

type RetryingAdapter = AxiosAdapter & { readonly [ORIGINAL]: AdapterSetting };

function isRetryingAdapter(setting: AdapterSetting): setting is RetryingAdapter {
  return typeof setting === 'function' && ORIGINAL in setting;
}

/**
 * The adapter setting a request had before axios-backoff wrapped it. A config that already went through it
 * (a caller re-sending `error.config`) is unwrapped, so its retries are never nested.
 */
export function originalAdapter(setting: AdapterSetting): AdapterSetting {
  return isRetryingAdapter(setting) ? setting[ORIGINAL] : setting;
}

function rejectBadOverride(backoff: unknown): never {
  throw new TypeError(
    process.env.NODE_ENV !== 'production'
      ? `Expected \`config.backoff\` to be an options object or false, got ${backoff === null ? 'null' : typeof backoff}.`
      : briefly('bad-option', 'config.backoff', backoff),
  );
}

/**
 * Counts a request that axios will reject as cancelled ahead of any adapter (its signal aborted or its cancel token
 * fired before it was sent): a call stopped `'aborted'` with no attempt, as the other clients count it. axios then
 * throws its own CanceledError, which carries no result. An open circuit refuses it as it would any call.
 */
export function countCancelled(config: InternalAxiosRequestConfig, installation: Installation): void {
  const { backoff } = config;
  if (backoff === false || cancellation(config) === undefined) return;
  try {
    const policy = backoff === undefined ? installation.policy : installation.policy.extend(backoff);
    // A call whose one attempt is refused at once, as axios refuses it: it ends `'aborted'` with nothing sent.
    const error = cancellation(config);
    runCall(policy, { method: config.method, url: requestUrl(config) }, cancelled(error)).catch(() => {});
  } catch {
    // A bad override: the caller gets axios's cancellation either way.
  }
}

/**
 * One logical request: send through the real adapter, ask the core, wait, send again (the core's attempt loop).
 * It runs where axios calls its adapter, after the request interceptors and `transformRequest` and before
 * `transformResponse` and the response interceptors, so each of those runs once per logical request and every
 * attempt sends the very same config: the same serialized body, the same headers (Content-Length included), the
 * same Idempotency-Key.
 */
function sendWithRetries(
  config: InternalAxiosRequestConfig,
  setting: AdapterSetting,
  installation: Installation,
): Promise<AxiosResponse> {
  let adapter: AxiosAdapter;
  let policy: Backoff;
  // Not async itself (a request waiting to retry holds one frame, the loop's): the setup throws as a rejection.
  try {
    // axios has already resolved the adapter it calls (this one): the config goes back to the caller's own
    // setting, so `response.config.adapter` / `error.config.adapter` show what they set, and a re-sent config
    // works as the first. A list is copied, as axios's config merge gives every request its own.
    if (setting === undefined) delete config.adapter;
    else config.adapter = Array.isArray(setting) ? [...setting] : setting;
    // Resolved as dispatchRequest resolves it, so names ('http', 'fetch', lists) and custom adapters all work; a
    // function is its own resolution.
    adapter =
      typeof setting === 'function' ? setting : resolveAdapter(setting ?? axios.defaults.adapter, config);
    const { backoff } = config;
    if (!installation.active || backoff === false) return adapter(config);
    if (backoff !== undefined && (typeof backoff !== 'object' || backoff === null))
      rejectBadOverride(backoff);
    policy = backoff === undefined ? installation.policy : installation.policy.extend(backoff);
  } catch (error) {
    return Promise.reject(error);
  }
  return runCall(
    policy,
    {
      method: config.method,
      url: requestUrl(config),
      headers: config.headers,
      replayable: replayableBody(config.data),
    },
    new AxiosClient(adapter, config),
    // A header the caller set to `false` (axios's "never send it") is kept as it is: no key goes out.
    (name, key) => config.headers.set(name, key),
  );
}

/** A request axios cancelled before sending it: its call ends at once, with axios's own error. */
function cancelled(error: unknown): Client<never> {
  return {
    next: () => ({ headers: undefined }),
    send: () => Promise.reject(error),
    outcome: () => ({ type: 'error', kind: 'abort', error }),
    signal: () => AbortSignal.abort(error),
    interrupted: () => error,
    finish: () => {
      throw error;
    },
  };
}

/** Sets (a string) or removes (`null`) one header; a value of `false` (axios's "never send it") is replaced too. */
function change(headers: AxiosHeaders, name: string, value: string | null): void {
  if (value === null) headers.delete(name);
  else headers.set(name, value, true);
}

/** A hedge's copy of an axios attempt: AxiosHeaders of its own, that `beforeAttempt` changes apart. */
class AxiosCopy implements Attempt {
  constructor(readonly own: AxiosHeaders) {}

  get headers(): AxiosHeaders {
    return this.own;
  }

  header(name: string, value: string | null): void {
    change(this.own, name, value);
  }

  copy(): AxiosCopy {
    return new AxiosCopy(new AxiosHeaders(this.own));
  }
}

/**
 * One request through axios's own adapter: what the runner asks of axios-backoff. It is its own attempt too (a
 * request that no hook changes allocates none): `next()` starts each attempt from the config's headers again.
 */
class AxiosClient implements Client<AxiosResponse>, Attempt {
  readonly #adapter: AxiosAdapter;
  readonly #config: InternalAxiosRequestConfig;
  /** The adapter is axios's own http adapter, the one `maxRedirects` binds. */
  readonly #http: boolean;
  /** What the adapter sends on, when it is one of axios's own: asked only by a trace. */
  #transport: Transport | undefined | null = null;
  /** The request's signal and cancel token as one AbortSignal for the core's waits, bridged when first needed. */
  #bridge: ReturnType<typeof waitSignal> | undefined;
  /** The headers of the attempt about to go, once a hook changed them. */
  #own: AxiosHeaders | undefined;

  constructor(adapter: AxiosAdapter, config: InternalAxiosRequestConfig) {
    this.#adapter = adapter;
    this.#config = config;
    this.#http = adapter === axiosAdapter('http', config);
  }

  get headers(): AxiosHeaders {
    return this.#own ?? this.#config.headers;
  }

  get transport(): Transport | undefined {
    if (this.#transport === null) {
      this.#transport = this.#http
        ? 'http'
        : this.#adapter === axiosAdapter('fetch', this.#config)
          ? 'fetch'
          : undefined;
    }
    return this.#transport;
  }

  // A change made for this attempt goes on AxiosHeaders of its own, copied from the config's at the first change.
  header(name: string, value: string | null): void {
    this.#own ??= new AxiosHeaders(this.#config.headers);
    change(this.#own, name, value);
  }

  copy(): Attempt {
    return new AxiosCopy(new AxiosHeaders(this.headers));
  }

  next(): Attempt {
    this.#own = undefined;
    return this;
  }

  send(attempt: Attempt, signal?: AbortSignal): Promise<AxiosResponse> {
    // Called as a plain function, as axios calls it: an adapter may be a method that `this` would confuse.
    const adapter = this.#adapter;
    const own = attempt === this ? this.#own : (attempt as AxiosCopy).own;
    if (own === undefined && signal === undefined) return adapter(this.#config);
    // A hedged copy goes with a config of its own whose signal follows the caller's (and aborts a loser); an attempt
    // whose headers a hook changed, with a config carrying them.
    const config: InternalAxiosRequestConfig = { ...this.#config };
    if (own !== undefined) config.headers = own;
    if (signal !== undefined) config.signal = signal;
    return adapter(config);
  }

  outcome(settled: Settled<AxiosResponse>): Outcome {
    return settled.ok
      ? responseOutcome(settled.value)
      : errorOutcome(settled.error, this.#config, this.#http);
  }

  signal(): AbortSignal | undefined {
    this.#bridge ??= waitSignal(this.#config);
    return this.#bridge.signal;
  }

  discard(settled: Settled<AxiosResponse>): void {
    const response = settled.ok ? settled.value : rejectedResponse(settled.error);
    discardResponse(response, this.#config.responseType);
  }

  // Cancelled meanwhile, as axios rejects a request cancelled before it is sent; an open circuit (the retry was
  // refused after its wait) or a hold past the deadline as axios reports a failure; any other rejection (a
  // callback failing) as it is.
  interrupted(reason: unknown): unknown {
    return cancellation(this.#config) ?? circuitOpen(reason, this.#config);
  }

  /**
   * A `responseType: 'stream'` body (a Node Readable from the http adapter, a web stream from the fetch adapter),
   * with the headers as received: the http adapter deletes `Content-Encoding` once it decodes. Any other body was
   * read whole inside axios's adapter: a cut there failed the attempt, which is retried whole like any failure.
   */
  body(response: AxiosResponse): ResponseBody<AxiosResponse> | undefined {
    const data = response.data as { getReader?: unknown; destroy?: unknown; pipe?: unknown } | null;
    const web = typeof data?.getReader === 'function';
    if (!web && (typeof data?.destroy !== 'function' || typeof data?.pipe !== 'function')) return undefined;
    const raw = (response.request as { res?: { rawHeaders?: unknown } } | undefined)?.res?.rawHeaders;
    return {
      status: response.status,
      header: Array.isArray(raw)
        ? receivedHeaders(raw as string[])
        : headerGetter(response.headers as Parameters<typeof headerGetter>[0]),
      stream: response.data,
      url: requestUrl(this.#config),
      with: (stream) => {
        response.data = stream;
        return response;
      },
    };
  }

  finish(settled: Settled<AxiosResponse>, result: BackoffResult): AxiosResponse {
    this.#bridge?.release();
    // A resumed body's continuations wait under the caller's signal: bridged anew when they ask.
    this.#bridge = undefined;
    // A hedge's response or error shows the caller's own config, not the copy's.
    const config = this.#config;
    if (settled.ok) {
      if (settled.value.config !== undefined) settled.value.config = config;
      return withResult(settled.value, result);
    }
    const error = settled.error as { config?: unknown; response?: { config?: unknown } } | null;
    if (error?.config !== undefined && error.config !== config) {
      error.config = config;
      if (error.response?.config !== undefined) error.response.config = config;
    }
    throw withResult(settled.error, result);
  }
}

/**
 * An open circuit, or a pacer's hold past the deadline, as axios reports a failure: an AxiosError with the code
 * `'ERR_CIRCUIT_OPEN'` (`'ERR_PACER_DEADLINE'`) and the core's `CircuitOpenError` (`PacerDeadlineError`) as
 * `cause`, so that interceptors and `axios.isAxiosError` work as for any error. Any other error is returned as it is.
 */
function circuitOpen(error: unknown, config: InternalAxiosRequestConfig): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_CIRCUIT_OPEN' && code !== 'ERR_PACER_DEADLINE') return error;
  const wrapped = new AxiosError((error as Error).message, code, config);
  wrapped.cause = error as Error;
  return withResult(wrapped, getBackoffResult(error) as BackoffResult);
}

/** axios's own adapter of that name, where the build and the environment have one (no http in a browser's). */
function axiosAdapter(name: 'http' | 'fetch', config: InternalAxiosRequestConfig): AxiosAdapter | undefined {
  try {
    return resolveAdapter(name, config);
  } catch {
    return undefined;
  }
}

/** Whether two adapter settings name the same adapters (axios's config merge copies a list per request). */
function sameSetting(a: AdapterSetting, b: AdapterSetting): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  return a.every((item, i) => item === b[i]);
}

/**
 * An adapter that retries `setting` (the request's own adapter) under one installation's policy: the one made
 * for the previous request when its setting was the same, else a new one.
 */
export function retryingAdapter(setting: AdapterSetting, installation: Installation): AxiosAdapter {
  const { last } = installation;
  if (last !== undefined && sameSetting(last[ORIGINAL], setting)) return last;
  // A list is kept as a copy of its own, which no caller can change afterwards.
  const own = Array.isArray(setting) ? [...setting] : setting;
  const adapter = (config: InternalAxiosRequestConfig) => sendWithRetries(config, own, installation);
  installation.last = Object.defineProperty(adapter, ORIGINAL, { value: own }) as RetryingAdapter;
  return installation.last;
}
