import { type Backoff, createBackoff } from 'backoff-core';
import { KyCall, type RetryMarkerFactory } from './call.js';
import { errorHookView, type HookOptions, requestHookView, responseHookView } from './hook-args.js';
import {
  type KyShouldRetry,
  kyRetryOptions,
  replacedPerRequest,
  retriesFromKyRetry,
  withMethod,
} from './ky-retry.js';
import { rejectModuleNamespace } from './module-namespace.js';
import type { KyBackoffOptions, KyInstanceLike } from './types.js';

// Registered, so that a second copy of this package still recognises an instance that already has the hooks.
const HOOK: unique symbol = Symbol.for('ky-backoff.hook') as never;
// Where a call lives: on the `shouldRetry` it binds on ky's own per-call retry object, which every hook reaches.
// Not on that object itself: ky reads it with `Object.entries` for every attempt, which a symbol key there made
// about 2 µs slower per request (issue 17).
const CALL: unique symbol = Symbol('ky-backoff.call') as never;

type Hook = ((...args: never[]) => unknown) & { [HOOK]?: true };
type Defaults = { hooks?: Record<string, readonly Hook[] | undefined> } & Record<string, unknown>;
type FetchFunction = (input: unknown, init?: Record<string, unknown>) => Promise<Response>;
type KyRetry = Record<string, unknown>;
type BoundShouldRetry = KyShouldRetry & { [CALL]?: KyCall };

function mark<T extends Hook>(hook: T): T {
  Object.defineProperty(hook, HOOK, { value: true });
  return hook;
}

function installed(parent: Defaults): boolean {
  const hooks = parent.hooks ?? {};
  return Object.values(hooks).some((list) => Array.isArray(list) && list.some((hook: Hook) => hook?.[HOOK]));
}

function isObject(value: unknown): value is Record<string | symbol, unknown> {
  return typeof value === 'object' && value !== null;
}

function callOf(options: HookOptions | undefined): KyCall | undefined {
  const retry = options?.retry;
  return isObject(retry) ? (retry.shouldRetry as BoundShouldRetry | undefined)?.[CALL] : undefined;
}

/**
 * Which call sends a request: its first attempt's request is the one `beforeRequest` sees (ky 1: every attempt's).
 * A property of the request itself, cleared when `fetch` takes it: cheaper per call than a WeakMap entry.
 */
const SENT: unique symbol = Symbol('ky-backoff.sent') as never;
type SentRequest = { [SENT]?: KyCall | undefined };

/**
 * The call whose retry ky is about to send (ky 2). ky 2 builds each retry's request itself (a clone, or a new one
 * after its own timeout) and shows it to no hook; but it reads the per-call retry `limit` synchronously right
 * before it calls `fetch`. From the first retry on (kyBackoff's `beforeRetry`), that read names the call, and
 * kyBackoff's `fetch` takes it in the same synchronous step, so no other call can come between.
 */
let sending: KyCall | undefined;

function announceAttempts(retry: KyRetry, call: KyCall): void {
  Object.defineProperty(retry, 'limit', {
    get: () => {
      sending = call;
      return call.limit;
    },
    enumerable: true,
    configurable: true,
  });
}

function announce(call: KyCall | undefined, perCall: unknown): void {
  if (call?.announces === false && isObject(perCall)) {
    call.announces = true;
    announceAttempts(perCall as KyRetry, call);
  }
}

/**
 * Returns a new ky instance, extended from `instance` (`ky` itself or a `ky.create()` result), whose retries are
 * decided by backoff-core: jittered exponential backoff, Retry-After as a floor, the idempotency gate, a retry
 * budget shared by every call of the instance, and a deadline. The instance's own hooks and options stay.
 *
 * Per request, `backoff` overrides the options (`{ backoff: { retries: 1 } }`) or turns retries off
 * (`{ backoff: false }`). ky's own `retry` option, as a number or `{ limit }`, is read as `retries`; its other
 * fields are replaced by kyBackoff's options and rejected. The caller gets ky's normal response or ky's own error
 * of the last attempt; both carry the attempts made and the total wait (`getBackoffResult(responseOrError)`).
 * Bad options throw here (TypeError / RangeError).
 */
export function kyBackoff<Instance extends KyInstanceLike>(
  instance: Instance,
  options?: KyBackoffOptions,
): Instance {
  rejectModuleNamespace(instance);
  const candidate = instance as unknown as { extend?: unknown; retry?: unknown };
  if (typeof instance !== 'function' || typeof candidate.extend !== 'function') {
    throw new TypeError('Expected `instance` to be a ky instance.');
  }
  // Validated at once, so that a bad option throws before ky is touched.
  createBackoff(options);
  const extend = candidate.extend.bind(instance) as (defaults: (parent: Defaults) => Defaults) => Instance;
  // The instance's own marker factory: ky recognises the marker with `instanceof`, so a bundled copy would not do.
  // ky 1.13 has none: with `throwHttpErrors: false` a failed status is then decided but not retried.
  const retryMarker =
    typeof candidate.retry === 'function'
      ? (candidate.retry.bind(instance) as RetryMarkerFactory)
      : undefined;

  return extend((parent) => {
    if (installed(parent)) {
      throw new TypeError(
        'kyBackoff is already installed on this instance: wrap the instance it came from, or pass `backoff` per request.',
      );
    }
    // ky's `retry` of the instance (`ky.create({ retry: 0 })`) is `retries`, unless kyBackoff's options say.
    const fromKy = retriesFromKyRetry(parent.retry);
    const policy: Backoff = createBackoff(
      options?.retries === undefined ? { ...options, ...fromKy } : options,
    );
    const instanceRetries = policy.options.retries;
    const fallback = () => false;
    // The instance's `limit` is its `retries` as they are: what ky's per-call copy holds is then the number of
    // retries asked for, whoever set it (the instance, `.extend()`, the request). Each call replaces it.
    const retry = kyRetryOptions(instanceRetries, fallback, retryMarker === undefined);
    // With `throwHttpErrors: false` ky never throws for a status, so never asks about it: only such an instance
    // gets an `afterResponse` hook (ky clones every response for each one, so the others stay without).
    const decidesResponses =
      retryMarker !== undefined && parent.throwHttpErrors !== undefined && parent.throwHttpErrors !== true;
    const parentFetch = typeof parent.fetch === 'function' ? (parent.fetch as FetchFunction) : undefined;

    const fetch: FetchFunction = (input, init) => {
      let call = sending;
      sending = undefined;
      if (isObject(input) && Object.hasOwn(input, SENT)) {
        const sent = input as SentRequest;
        call = sent[SENT];
        // Once: the request goes out now, and does not keep its call alive after that.
        sent[SENT] = undefined;
      }
      let rest = init;
      if (rest !== undefined && 'backoff' in rest) {
        // ky passes options it does not know on to `fetch`: this one is kyBackoff's.
        const { backoff: _, ...others } = rest;
        rest = others;
      }
      call?.beginAttempt(input);
      const response = parentFetch ? parentFetch(input, rest) : globalThis.fetch(input as Request, rest);
      return call === undefined ? response : response.then((fetched) => call.fetched(fetched, input));
    };

    // Two parameters, not `...args`: no array per call. ky 2 passes one state object, ky 1 three arguments.
    const beforeRequest = mark((first: unknown, second?: unknown) => {
      const ky2 = second === undefined;
      const { request, options: hookOptions } = requestHookView(first, second);
      const perCall = hookOptions.retry;
      if (!isObject(perCall)) return;
      let call = callOf(hookOptions);
      if (call === undefined) {
        // ky's per-call copy of `retry` holds the retries asked for: the instance's, or a number or `{ limit }`
        // given per request or by `.extend()`, each meaning exactly that many retries.
        const requested = perCall.limit;
        const own =
          typeof requested === 'number' && requested !== instanceRetries
            ? policy.extend({ retries: requested })
            : policy;
        call = new KyCall({
          policy: own,
          override: hookOptions.backoff,
          request,
          body: hookOptions.body,
          ky2,
          // Only ky 1 shows hooks `throwHttpErrors`; ky 2's own option is covered by the instance's hook.
          decidesFailures: hookOptions.throwHttpErrors === false && !(decidesResponses && retryMarker),
        });
        // A per-request `retry: 0` (a number) replaces the instance's object with ky's defaults: the limit is
        // taken, the rest is kyBackoff's again. A per-request object is merged over it: fields of its own throw.
        if (perCall.shouldRetry === undefined) Object.assign(perCall, retry);
        else replacedPerRequest(perCall, retry);
        withMethod(perCall, request.method);
        const bound = call;
        const shouldRetry: BoundShouldRetry = ({ error }) => bound.shouldRetry(error);
        shouldRetry[CALL] = bound;
        perCall.shouldRetry = shouldRetry;
        perCall.delay = () => bound.takeDelay();
        perCall.limit = bound.limit;
      }
      call.request = request;
      if (!ky2) call.beginAttempt(request);
      (request as SentRequest)[SENT] = call;
    });

    // Only on a retry (also one you force): ky 2 sends a request no hook sees next, so the call names itself.
    const beforeRetry = mark((state: { options?: HookOptions; request?: unknown; error?: unknown }) => {
      const perCall = state.options?.retry;
      const call = callOf(state.options);
      // A retry forced with `ky.retry()` is counted, and refused past `retries` (the hook then throws).
      const forced = call?.forced(state.error);
      if (forced !== undefined) {
        return forced.then(() => {
          call?.beginAttempt(state.request);
          announce(call, perCall);
        });
      }
      // A new attempt, also where a request's own `fetch` replaced kyBackoff's for this call (ky 2).
      call?.beginAttempt(state.request);
      announce(call, perCall);
      return undefined;
    });

    const afterResponse = mark(async (...args: unknown[]) => {
      const { options: hookOptions, response } = responseHookView(args);
      return callOf(hookOptions)?.afterResponse(response, retryMarker);
    });

    const beforeError = mark((...args: unknown[]) => {
      const { error, options: hookOptions } = errorHookView(args);
      const pending = callOf(hookOptions)?.beforeError(error);
      return pending === undefined ? error : pending.then(() => error);
    });

    return {
      retry,
      fetch,
      hooks: {
        beforeRequest: [beforeRequest],
        beforeRetry: [beforeRetry],
        ...(decidesResponses ? { afterResponse: [afterResponse] } : {}),
        beforeError: [beforeError],
      },
    };
  });
}
