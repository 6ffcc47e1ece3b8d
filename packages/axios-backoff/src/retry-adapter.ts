import axios, {
  type AxiosAdapter,
  AxiosError,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';
import {
  type Backoff,
  type BackoffResult,
  type Decision,
  firstSuccess,
  getBackoffResult,
  type Outcome,
  type RetryDecision,
  type RetryState,
  startsLate,
} from 'backoff-core';
import { type AdapterSetting, resolveAdapter } from './axios-compat.js';
import { discardResponse, isReplayable } from './body.js';
import { cancellation, waitSignal } from './cancel.js';
import { errorOutcome, rejectedResponse, responseOutcome } from './outcome.js';
import { withResult } from './result.js';
import { requestUrl } from './url.js';

/** One `axiosBackoff` call: its policy, whether it is still installed, and its adapter for the last setting. */
export interface Installation {
  readonly policy: Backoff;
  active: boolean;
  /**
   * The retrying adapter made for the last adapter setting seen. An instance's requests nearly always share one
   * setting, so one adapter serves them all: no closure per request.
   */
  last?: RetryingAdapter | undefined;
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
    `Expected \`config.backoff\` to be an options object or false, got ${backoff === null ? 'null' : typeof backoff}.`,
  );
}

/**
 * How a step of the core that may wait (an async `shouldRetry`, `onRetry`, the backoff wait) ends the call when it
 * rejects. Cancelled meanwhile, as axios rejects a request cancelled before it is sent; an open circuit (the retry
 * was refused after its wait) as axios reports a failure; any other rejection (`shouldRetry` or `onRetry`
 * failing) as it is.
 */
function stopped(config: InternalAxiosRequestConfig, state: RetryState, reason: unknown): unknown {
  return withResult(cancellation(config) ?? circuitOpen(reason, config), state.result());
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
    policy.start({ method: config.method, url: requestUrl(config) }).abandon();
  } catch {
    // A bad override, or the circuit refused it: the caller gets axios's cancellation either way.
  }
}

/**
 * One logical request: send through the real adapter, ask the core, wait, send again. It runs where axios
 * calls its adapter, after the request interceptors and `transformRequest` and before `transformResponse` and
 * the response interceptors, so each of those runs once per logical request and every attempt sends the very
 * same config: the same serialized body, the same headers (Content-Length included), the same Idempotency-Key.
 * Not async itself: the setup throws as a rejection, and the attempts run in `attempt` / `retryAfter`.
 */
function sendWithRetries(
  config: InternalAxiosRequestConfig,
  setting: AdapterSetting,
  installation: Installation,
): Promise<AxiosResponse> {
  let adapter: AxiosAdapter;
  let policy: Backoff;
  let state: RetryState | undefined;
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
    // The common request (a GET with nothing to track) is sent at once: its state is started only if its first
    // attempt is no success. Building one for every request was the largest part of axios-backoff's own work
    // per request (issue 17).
    // The key header is looked for here (see ownHeader), and the core is told of no headers when there is none;
    // only once the policy allows a late start: a request that takes a state anyway (a POST) has its headers
    // read by the state, not twice.
    const late =
      startsLate(policy, { method: config.method }) &&
      ownHeader(config.headers, policy.options.idempotencyKeyHeader) === undefined;
    if (!late) state = start(config, policy);
  } catch (error) {
    return Promise.reject(circuitOpen(error, config));
  }
  return attempt(adapter, config, policy, state);
}

/**
 * A header of the request, in any case. AxiosHeaders keeps each header as an own property: its keys are compared
 * by length first, so a GET's handful costs next to nothing (its `get` normalises the name and lower-cases every
 * key per call).
 */
function ownHeader(headers: object, name: string): unknown {
  const lower = name.toLowerCase();
  for (const key of Object.keys(headers)) {
    if (key.length === lower.length && key.toLowerCase() === lower)
      return (headers as Record<string, unknown>)[key];
  }
  return undefined;
}

/** The request's retry state, and its Idempotency-Key on the config when the core generated one. */
function start(config: InternalAxiosRequestConfig, policy: Backoff): RetryState {
  const state = policy.start({
    method: config.method,
    url: requestUrl(config),
    headers: config.headers,
    replayable: isReplayable(config.data),
  });
  if (state.idempotencyKey !== undefined) {
    // Only when the user opted in (R10): a new header can turn a simple CORS request into a preflighted one.
    // A header the caller set to `false` (axios's "never send it") is kept as it is: no key goes out.
    config.headers.set(policy.options.idempotencyKeyHeader, state.idempotencyKey);
  }
  // What axios will send is what the headers hold now: the core reads the key back from them, not from its own
  // record of the key it generated.
  state.sent(config.headers);
  return state;
}

/**
 * One attempt and its decision: the caller's response or error, or the wait and the next attempt. Without a
 * `state` (a request the core let start late, `startsLate`), a success ends the call with the shared one-attempt
 * result, and anything else is decided by a state started for it then, as if it had been started before sending.
 */
async function attempt(
  adapter: AxiosAdapter,
  config: InternalAxiosRequestConfig,
  policy: Backoff,
  state: RetryState | undefined,
): Promise<AxiosResponse> {
  let response: AxiosResponse | undefined;
  let failure: { error: unknown } | undefined;
  let outcome: Outcome;
  try {
    response = await adapter(config);
    const result = state === undefined ? firstSuccess(policy, response.status) : undefined;
    if (result !== undefined) return withResult(response, result);
    outcome = responseOutcome(response);
  } catch (error) {
    failure = { error };
    outcome = errorOutcome(error, config);
  }
  state ??= start(config, policy);
  let decision: Decision;
  if (policy.options.shouldRetry === undefined) {
    // Without shouldRetry the decision is made at once: no signal bridge, no await on the success path.
    decision = state.decide(outcome) as Decision;
  } else {
    const { signal, release } = waitSignal(config);
    try {
      decision = await state.decide(outcome, signal);
    } catch (reason) {
      throw stopped(config, state, reason);
    } finally {
      release();
    }
  }
  if (!decision.retry) {
    if (failure !== undefined) throw withResult(failure.error, state.result());
    return withResult(response as AxiosResponse, state.result());
  }
  discardResponse(response ?? rejectedResponse(failure?.error), config.responseType);
  // Returned, not awaited: this frame ends here with all it held of the failed attempt (its response and error,
  // in variables and temporaries alike), so a request parked in its wait holds only its config and its state.
  return retryAfter(decision, adapter, config, policy, state);
}

/**
 * The wait before the next attempt, under the request's `signal` and `cancelToken` (bridged into one signal). A
 * promise chain rather than an async function: a request parked here holds two small closures, no frame.
 */
function retryAfter(
  decision: RetryDecision,
  adapter: AxiosAdapter,
  config: InternalAxiosRequestConfig,
  policy: Backoff,
  state: RetryState,
): Promise<AxiosResponse> {
  const { signal, release } = waitSignal(config);
  return state.wait(decision, signal).then(
    () => {
      release();
      return attempt(adapter, config, policy, state);
    },
    (reason: unknown) => {
      release();
      throw stopped(config, state, reason);
    },
  );
}

/**
 * An open circuit (issue 15) as axios reports a failure: an AxiosError with the code `'ERR_CIRCUIT_OPEN'` and the
 * core's `CircuitOpenError` as `cause`, so that interceptors and `axios.isAxiosError` work as for any error.
 * Any other error is returned as it is.
 */
function circuitOpen(error: unknown, config: InternalAxiosRequestConfig): unknown {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_CIRCUIT_OPEN') return error;
  const wrapped = new AxiosError((error as Error).message, 'ERR_CIRCUIT_OPEN', config);
  wrapped.cause = error as Error;
  return withResult(wrapped, getBackoffResult(error) as BackoffResult);
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
