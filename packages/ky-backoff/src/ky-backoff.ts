import { createBackoff } from 'backoff-core';
import { replayableBody } from './body.js';
import { KyCall, type RetryMarkerFactory } from './call.js';
import { errorHookView, requestHookView, responseHookView } from './hook-args.js';
import { KY_LIMIT, kyRetryOptions } from './ky-retry.js';
import { rejectModuleNamespace } from './module-namespace.js';
import type { KyBackoffOptions, KyInstanceLike } from './types.js';

// Registered, so that a second copy of this package still recognises an instance that already has the hooks.
const HOOK: unique symbol = Symbol.for('ky-backoff.hook') as never;

type Hook = ((...args: never[]) => unknown) & { [HOOK]?: true };
type Defaults = { hooks?: Record<string, readonly Hook[] | undefined> } & Record<string, unknown>;

function mark<T extends Hook>(hook: T): T {
  Object.defineProperty(hook, HOOK, { value: true });
  return hook;
}

function installed(parent: Defaults): boolean {
  const hooks = parent.hooks ?? {};
  return Object.values(hooks).some((list) => Array.isArray(list) && list.some((hook: Hook) => hook?.[HOOK]));
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/**
 * Returns a new ky instance, extended from `instance` (`ky` itself or a `ky.create()` result), whose retries are
 * decided by backoff-core: jittered exponential backoff, Retry-After as a floor, the idempotency gate, a retry
 * budget shared by every call of the instance, and a deadline. The instance's own hooks and options stay.
 *
 * Per request, `backoff` overrides the options (`{ backoff: { retries: 1 } }`) or turns retries off
 * (`{ backoff: false }`). ky's own `retry` option is replaced: kyBackoff drives ky's retry loop itself.
 * The caller gets ky's normal response or ky's own error of the last attempt; both carry the attempts made and
 * the total wait (`getBackoffResult(responseOrError)`). Bad options throw here (TypeError / RangeError).
 */
export function kyBackoff<Instance extends KyInstanceLike>(
  instance: Instance,
  options?: KyBackoffOptions,
): Instance {
  rejectModuleNamespace(instance);
  const candidate = instance as unknown as { extend?: unknown; retry?: unknown };
  if (typeof instance !== 'function' || typeof candidate.extend !== 'function') {
    throw new TypeError('Expected `instance` to be a ky instance (`ky`, or the result of `ky.create()`).');
  }
  const policy = createBackoff(options);
  const extend = candidate.extend.bind(instance) as (defaults: (parent: Defaults) => Defaults) => Instance;
  // The instance's own marker factory: ky recognises the marker with `instanceof`, so a bundled copy would not do.
  // ky 1.13 has none: there failed responses are decided in `shouldRetry` (see KyCall).
  const retryMarker =
    typeof candidate.retry === 'function'
      ? (candidate.retry.bind(instance) as RetryMarkerFactory)
      : undefined;
  // One entry per call, keyed by the call's `context` object: ky creates a fresh one for every call and hands
  // the same one to every hook of that call.
  const calls = new WeakMap<object, KyCall>();
  const callOf = (context: unknown) => (isObject(context) ? calls.get(context) : undefined);

  // ky 2: once per call, before ky builds the request, on a copy of the options that ky then uses.
  const init = mark((options: Record<string, unknown>) => {
    const override = options.backoff;
    // Read here and removed, so ky does not forward it to `fetch` as an unknown option.
    delete options.backoff;
    const call = new KyCall(policy, override, {
      signal: options.signal,
      totalTimeout: typeof options.totalTimeout === 'number' ? options.totalTimeout : undefined,
      kyRetries: options.json !== undefined || replayableBody(options.body),
    });
    options.retry = call.kyRetry(options.method);
    if (!isObject(options.context)) options.context = {};
    calls.set(options.context as object, call);
  });

  const beforeRequest = mark((...args: unknown[]) => {
    const view = requestHookView(args);
    const { context } = view.options;
    if (!isObject(context)) return;
    let call = calls.get(context);
    if (call === undefined) {
      // ky 1.x (it has no `init` hook), or a call whose `init` hooks were replaced: set up on the first attempt.
      call = new KyCall(policy, view.options.backoff, { canForceRetry: retryMarker !== undefined });
      call.arm(view.options.retry, view.request.method);
      calls.set(context, call);
    }
    call.beforeAttempt(view);
  });

  const afterResponse = mark(async (...args: unknown[]) => {
    const view = responseHookView(args);
    return callOf(view.options.context)?.afterResponse(view, retryMarker);
  });

  const beforeError = mark((...args: unknown[]) => {
    const { error, context } = errorHookView(args);
    callOf(context)?.beforeError(error);
    return error;
  });

  return extend((parent) => {
    if (installed(parent)) {
      throw new TypeError(
        'kyBackoff is already installed on this instance: wrap the instance it came from, or pass `backoff` per request.',
      );
    }
    return {
      // Only reached when a call was not set up (its `beforeRequest` did not run): then ky retries nothing.
      retry: kyRetryOptions(() => false, KY_LIMIT),
      hooks: {
        init: [init],
        beforeRequest: [beforeRequest],
        afterResponse: [afterResponse],
        beforeError: [beforeError],
      },
    };
  });
}
