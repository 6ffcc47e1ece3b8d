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
import { createBackoff } from 'backoff-core';
import { type HookOptions, KyCall, type RetryMarker, type Shared } from './call.js';
import { bindRetry, kyRetryOptions, retriesFromKyRetry } from './ky-retry.js';
import type { KyBackoffOptions, KyInstanceLike } from './types.js';

// Registered, so that a second copy of this package still recognises an instance that already has the hooks.
const HOOK: unique symbol = Symbol.for('ky-backoff.hook') as never;

type Hook = ((...args: never[]) => unknown) & { [HOOK]?: true };
type Defaults = { hooks?: Record<string, readonly Hook[] | undefined> } & Record<string, unknown>;
type FetchFunction = (input: unknown, init?: Record<string, unknown>) => Promise<Response>;

const mark = <T extends Hook>(hook: T): T => Object.defineProperty(hook, HOOK, { value: true });
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;
// ky 2 passes every hook one state object; ky 1 passes beforeRequest, afterResponse and beforeError their
// arguments one by one: `(request, options)`, `(request, options, response)`, `(error)`.
const stateObject = (args: readonly unknown[]) =>
  args.length === 1 && isObject(args[0]) && 'options' in args[0];

/**
 * Returns a new ky instance, extended from `instance` (`ky` itself or a `ky.create()` result), whose retries are
 * decided by backoff-core: jittered exponential backoff, Retry-After as a floor, the idempotency gate, a retry
 * budget shared by every call of the instance, and a deadline (the instance's `totalTimeout` is one too). The
 * instance's own hooks and options stay. Per request, `backoff` overrides the options or turns retries off
 * (`false`). ky's `retry`, as a number or `{ limit }`, is `retries`; its other fields are rejected. The caller
 * gets ky's response or ky's error of the last attempt, carrying the call's result (`getBackoffResult`).
 */
export function kyBackoff<Instance extends KyInstanceLike>(
  instance: Instance,
  options?: KyBackoffOptions,
): Instance {
  const ky = instance as unknown as { extend?: unknown; retry?: unknown; default?: { extend?: unknown } };
  // `require('ky')` and `import * as ky from 'ky'` give ky's module namespace: the commonest wrong argument.
  if (typeof ky === 'object' && ky !== null && typeof ky.default?.extend === 'function') {
    throw new TypeError(
      "Expected `instance` to be a ky instance, got ky's module namespace: pass its `default` export.",
    );
  }
  if (typeof instance !== 'function' || typeof ky.extend !== 'function') {
    throw new TypeError('Expected `instance` to be a ky instance.');
  }
  // Validated at once, so that a bad option throws before ky is touched.
  createBackoff(options);
  const extend = ky.extend.bind(instance) as (defaults: (parent: Defaults) => Defaults) => Instance;
  // ky 1.13 has no `ky.retry()`: with `throwHttpErrors: false` a failed status is then decided but not retried.
  const marker = typeof ky.retry === 'function' ? (ky.retry.bind(instance) as RetryMarker) : undefined;

  return extend((parent) => {
    if (Object.values(parent.hooks ?? {}).some((list) => list?.some((hook) => hook?.[HOOK]))) {
      throw new TypeError(
        'kyBackoff is already installed on this instance: wrap the instance it came from, or pass `backoff` per request.',
      );
    }
    // ky's `retry` of the instance (`ky.create({ retry: 0 })`) is `retries`, unless kyBackoff's options say.
    const fromKy = retriesFromKyRetry(parent.retry);
    const merged = options?.retries === undefined ? { ...options, ...fromKy } : options;
    // ky 2's `totalTimeout` bounds the whole call: it is the core's deadline too, so that no wait outlasts it.
    const total = typeof parent.totalTimeout === 'number' ? parent.totalTimeout : undefined;
    const deadline = total === undefined ? merged?.deadline : Math.min(merged?.deadline ?? total, total);
    const policy = createBackoff(deadline === undefined ? merged : { ...merged, deadline });
    const shared: Shared = { policy, marker, deadline: total, throws: parent.throwHttpErrors ?? true };
    const retry = kyRetryOptions(policy.options.retries, marker === undefined);
    const parentFetch = typeof parent.fetch === 'function' ? (parent.fetch as FetchFunction) : undefined;
    // The one link from ky's per-call objects to their call: ky's per-call copy of `retry` (every hook's options
    // hold it), and each request a hook of ours saw about to go out (kyBackoff's fetch gets it).
    const calls = new WeakMap<object, KyCall>();
    const callOf = (hookOptions?: HookOptions) =>
      isObject(hookOptions?.retry) ? calls.get(hookOptions.retry) : undefined;
    const begin = (call: KyCall, request: unknown) => {
      if (isObject(request)) calls.set(request, call);
      call.begin(request);
    };

    const fetch: FetchFunction = (input, init) => {
      // ky passes the options it does not know on to `fetch`: `backoff` is kyBackoff's.
      const { backoff: _, ...rest } = init ?? {};
      const response = (parentFetch ?? globalThis.fetch)(input as Request, init && rest);
      const call = isObject(input) ? calls.get(input) : undefined;
      return call === undefined ? response : response.then((fetched) => call.fetched(fetched));
    };

    // ky 2: once per call; ky 1: before every attempt.
    const beforeRequest = mark((first: unknown, second?: unknown) => {
      const ky2 = second === undefined;
      const view = (ky2 ? first : { request: first, options: second }) as {
        request: Request;
        options: HookOptions;
      };
      const perCall = view.options.retry;
      if (!isObject(perCall)) return;
      let call = calls.get(perCall);
      if (call === undefined) {
        call = new KyCall(shared, view.request, view.options, ky2);
        bindRetry(perCall, retry, view.request.method, call);
        calls.set(perCall, call);
      }
      begin(call, view.request);
    });

    // Before every retry, also one forced with `ky.retry()`: ky 2 shows no other hook the request it sends next.
    const beforeRetry = mark((state: { options?: HookOptions; request?: unknown; error?: unknown }) => {
      const call = callOf(state.options);
      const forced = call?.forced(state.error);
      if (call !== undefined)
        return forced ? forced.then(() => begin(call, state.request)) : begin(call, state.request);
    });

    const afterResponse = mark((...args: unknown[]) => {
      const view = (stateObject(args) ? args[0] : { options: args[1], response: args[2] }) as {
        options?: HookOptions;
        response: Response;
      };
      return callOf(view.options)?.afterResponse(view.response);
    });

    // ky 2: once, for the final error; ky 1: for each HTTPError, whose `options` are the request's.
    const beforeError = mark((...args: unknown[]) => {
      const { error, options: hookOptions } = (
        stateObject(args) ? args[0] : { error: args[0], options: (args[0] as { options?: unknown })?.options }
      ) as { error: unknown; options?: HookOptions };
      const pending = callOf(hookOptions)?.beforeError(error);
      return pending === undefined ? error : pending.then(() => error);
    });

    const hooks = {
      beforeRequest: [beforeRequest],
      beforeRetry: [beforeRetry],
      afterResponse: [afterResponse],
    };
    return { retry, fetch, hooks: { ...hooks, beforeError: [beforeError] } };
  });
}
