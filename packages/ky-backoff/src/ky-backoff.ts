/*
 * kyBackoff rides ky's own retry loop: ky asks, backoff-core decides. One call through ky's steps:
 *
 *   ky(input, options)  ky merges the options; its per-call copy of `retry` becomes this call's key in `calls`.
 *   beforeRequest       the call starts (KyCall: the core's RetryState, which stamps a generated Idempotency-Key);
 *                       ky's per-call `retry` is bound to it: `shouldRetry`, `delay`, and `limit` ("keep asking").
 *   fetch               kyBackoff's fetch notes the response, the object the caller will get.
 *   afterResponse       after the instance's own hooks, an OK response is decided (and a failed status ky will
 *                       not throw for; a retry goes through `ky.retry()`).
 *   shouldRetry         ky's HTTPError, network error or timeout is decided; a retry waits here (KyCall#pause),
 *                       then ky hears `true` and its `delay` is 0 (or, after ky's own timeout, the wait ky makes).
 *   beforeRetry         the next attempt starts (a retry an earlier hook forced with `ky.retry()` is counted).
 *   fetch ...           and so on, until the core stops: ky returns the response, or throws its error, which
 *   beforeError         gets the call's result.
 */
import { type Backoff, createBackoff } from 'backoff-core';
import { KyCall, type RetryMarker } from './call.js';
import { bindRetry, kyRetryOptions, retriesFromKyRetry } from './ky-retry.js';
import { rejectModuleNamespace } from './module-namespace.js';
import type { KyBackoffOptions, KyInstanceLike } from './types.js';

// Registered, so that a second copy of this package still recognises an instance that already has the hooks.
const HOOK: unique symbol = Symbol.for('ky-backoff.hook') as never;

type Hook = ((...args: never[]) => unknown) & { [HOOK]?: true };
type Defaults = { hooks?: Record<string, readonly Hook[] | undefined> } & Record<string, unknown>;
type FetchFunction = (input: unknown, init?: Record<string, unknown>) => Promise<Response>;

/** The fields of ky's hook options that kyBackoff reads (ky 2 strips its own options, `throwHttpErrors` too). */
interface HookOptions {
  readonly body?: unknown;
  readonly backoff?: unknown;
  readonly retry?: unknown;
  readonly throwHttpErrors?: unknown;
}

function mark<T extends Hook>(hook: T): T {
  Object.defineProperty(hook, HOOK, { value: true });
  return hook;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

// ky 2 passes every hook one state object; ky 1 passes beforeRequest, afterResponse and beforeError their
// arguments one by one (`(request, options)`, `(request, options, response)`, `(error)`).
const stateObject = (args: readonly unknown[]) =>
  args.length === 1 && isObject(args[0]) && 'options' in args[0];

/**
 * Returns a new ky instance, extended from `instance` (`ky` itself or a `ky.create()` result), whose retries are
 * decided by backoff-core: jittered exponential backoff, Retry-After as a floor, the idempotency gate, a retry
 * budget shared by every call of the instance, and a deadline (the instance's `totalTimeout` is one too). The
 * instance's own hooks and options stay.
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
  // ky 1.13 has no `ky.retry()`: with `throwHttpErrors: false` a failed status is then decided but not retried.
  const marker =
    typeof candidate.retry === 'function' ? (candidate.retry.bind(instance) as RetryMarker) : undefined;

  return extend((parent) => {
    const hooks = Object.values(parent.hooks ?? {});
    if (hooks.some((list) => Array.isArray(list) && list.some((hook: Hook) => hook?.[HOOK]))) {
      throw new TypeError(
        'kyBackoff is already installed on this instance: wrap the instance it came from, or pass `backoff` per request.',
      );
    }
    // ky's `retry` of the instance (`ky.create({ retry: 0 })`) is `retries`, unless kyBackoff's options say.
    const fromKy = retriesFromKyRetry(parent.retry);
    const merged = options?.retries === undefined ? { ...options, ...fromKy } : options;
    // ky 2's `totalTimeout` bounds the whole call: the core's deadline, so that no wait of ours outlasts it.
    const total = typeof parent.totalTimeout === 'number' ? parent.totalTimeout : undefined;
    const deadline = total === undefined ? merged?.deadline : Math.min(merged?.deadline ?? total, total);
    const policy: Backoff = createBackoff(deadline === undefined ? merged : { ...merged, deadline });
    const instanceRetries = policy.options.retries;
    const retry = kyRetryOptions(instanceRetries, marker === undefined);
    const throwsByDefault = parent.throwHttpErrors ?? true;
    const parentFetch = typeof parent.fetch === 'function' ? (parent.fetch as FetchFunction) : undefined;
    // ky's per-call objects to their call: ky's per-call copy of `retry` (every hook's options hold it), and each
    // request a hook of ours saw go out (kyBackoff's fetch gets it). Nothing else links a call.
    const calls = new WeakMap<object, KyCall>();
    const callOf = (hookOptions: HookOptions | undefined) => {
      const perCall = hookOptions?.retry;
      return isObject(perCall) ? calls.get(perCall) : undefined;
    };

    const fetch: FetchFunction = (input, init) => {
      let rest = init;
      if (rest !== undefined && 'backoff' in rest) {
        // ky passes options it does not know on to `fetch`: this one is kyBackoff's.
        const { backoff: _, ...others } = rest;
        rest = others;
      }
      const response = parentFetch ? parentFetch(input, rest) : globalThis.fetch(input as Request, rest);
      const call = isObject(input) ? calls.get(input) : undefined;
      if (call === undefined) return response;
      return response.then((fetched) => {
        call.fetched(fetched);
        return fetched;
      });
    };

    // ky 2: once per call; ky 1: before every attempt.
    const beforeRequest = mark((first: unknown, second?: unknown) => {
      const ky2 = second === undefined;
      const { request, options: hookOptions } = (ky2 ? first : { request: first, options: second }) as {
        request: Request;
        options: HookOptions;
      };
      const perCall = hookOptions.retry;
      if (!isObject(perCall)) return;
      let call = calls.get(perCall);
      if (call === undefined) {
        // ky's per-call `limit` holds the retries asked for: the instance's, or a number or `{ limit }` given
        // per request or by `.extend()`, each meaning exactly that many retries.
        const requested = perCall.limit;
        call = new KyCall({
          policy:
            typeof requested === 'number' && requested !== instanceRetries
              ? policy.extend({ retries: requested })
              : policy,
          override: hookOptions.backoff,
          request,
          body: hookOptions.body,
          ky2,
          // ky 1 shows hooks the request's `throwHttpErrors`; ky 2 only the instance's is known.
          throws: (hookOptions.throwHttpErrors ?? throwsByDefault) === true,
          marker,
          deadline: total,
        });
        bindRetry(perCall, retry, request.method, call);
        calls.set(perCall, call);
      }
      calls.set(request, call);
      call.begin(request);
    });

    // Before every retry, also one forced with `ky.retry()`; ky 2 shows no other hook the request it sends next.
    const beforeRetry = mark((state: { options?: HookOptions; request?: unknown; error?: unknown }) => {
      const call = callOf(state.options);
      if (call === undefined) return undefined;
      const next = () => {
        if (isObject(state.request)) calls.set(state.request, call);
        call.begin(state.request);
      };
      const forced = call.forced(state.error);
      return forced === undefined ? next() : forced.then(next);
    });

    const afterResponse = mark((...args: unknown[]) => {
      const { options: hookOptions, response } = (
        stateObject(args) ? args[0] : { options: args[1], response: args[2] }
      ) as { options?: HookOptions; response: Response };
      return callOf(hookOptions)?.afterResponse(response);
    });

    // ky 2: once, for the final error; ky 1: for each HTTPError, whose `options` are the request's.
    const beforeError = mark((...args: unknown[]) => {
      const { error, options: hookOptions } = (
        stateObject(args) ? args[0] : { error: args[0], options: (args[0] as { options?: unknown })?.options }
      ) as { error: unknown; options?: HookOptions };
      const pending = callOf(hookOptions)?.beforeError(error);
      return pending === undefined ? error : pending.then(() => error);
    });

    return {
      retry,
      fetch,
      hooks: {
        beforeRequest: [beforeRequest],
        beforeRetry: [beforeRetry],
        afterResponse: [afterResponse],
        beforeError: [beforeError],
      },
    };
  });
}
