/*
 * kyBackoff rides ky's own retry loop: ky asks, backoff-core decides. One call through ky's steps:
 *   beforeRequest  the call starts (KyCall: Idempotency-Key, pacer hold) and binds ky's per-call copy of `retry`
 *                  to itself (call.ts), once the `retry` fields set for the call are read (ky-retry.ts).
 *   fetch          kyBackoff's fetch sends (hedged when the call may be) and decides an OK response.
 *   shouldRetry    ky's HTTPError, network error or timeout is decided; a retry waits here, then ky hears `true`.
 *   beforeRetry    the next attempt starts; ... until the core stops: beforeError puts the result on ky's error.
 */
import { createBackoff } from 'backoff-core';
import { Calls, type HookOptions, KyCall, type RetryMarker } from './call.js';
import { carried, fromKyRetry, kyRetryOptions } from './ky-retry.js';
import type { KyBackoffOptions, KyInstanceLike } from './types.js';

// Registered, so that a second copy of this package still recognises an instance that already has the hooks.
const HOOK: unique symbol = Symbol.for('ky-backoff.hook') as never;

type Hook = ((...args: never[]) => unknown) & { [HOOK]?: true };
type Defaults = { hooks?: Record<string, readonly Hook[] | undefined> } & Record<string, unknown>;
type FetchFunction = (input: unknown, init?: Record<string, unknown>) => Promise<Response>;
type View = { request: Request; options?: HookOptions; response: Response; error: unknown };

const mark = (hook: Hook) => Object.defineProperty(hook, HOOK, { value: true });
const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;
// ky 2 passes hooks one state object; ky 1 its arguments one by one (`beforeError`: the error, with `options`).
const view = (args: unknown[], error?: 'error') =>
  (args.length === 1 && isObject(args[0]) && 'options' in args[0]
    ? args[0]
    : error
      ? { error: args[0], options: (args[0] as View | undefined)?.options }
      : { request: args[0], options: args[1], response: args[2] }) as View;
/**
 * Returns a NEW ky instance, extended from `instance`: use it, `const api = kyBackoff(ky.create(...))`; `instance`
 * itself keeps ky's own retry. Its hooks and options stay, its `totalTimeout` is a deadline, its `retry` fields are
 * the core's options; per request, `backoff` overrides them or turns retries off (`false`). */
export function kyBackoff<Instance extends KyInstanceLike>(
  instance: Instance,
  options?: KyBackoffOptions,
): Instance {
  const ky = instance as unknown as { extend?: unknown; retry?: unknown; default?: { extend?: unknown } };
  // `require('ky')` and `import * as ky from 'ky'` give ky's module namespace: the commonest wrong argument.
  if (isObject(instance) && typeof ky.default?.extend === 'function')
    throw new TypeError(
      "Expected `instance` to be a ky instance, got ky's module namespace: pass its `default` export.",
    );
  if (typeof instance !== 'function' || typeof ky.extend !== 'function')
    throw new TypeError('Expected `instance` to be a ky instance.');
  const { random, baseDelay } = createBackoff(options).options; // a bad option throws before ky is touched
  const extend = ky.extend.bind(instance) as (defaults: (parent: Defaults) => Defaults) => Instance;
  // ky 1.13 has no `ky.retry()`: with `throwHttpErrors: false` a failed status is then decided but not retried.
  const marker = typeof ky.retry === 'function' ? (ky.retry.bind(instance) as RetryMarker) : undefined;

  return extend((parent) => {
    if (Object.values(parent.hooks ?? {}).some((list) => list?.some((hook) => hook?.[HOOK])))
      throw new TypeError(
        'kyBackoff is already installed on this instance: wrap the instance it came from, or pass `backoff` per request.',
      );
    // ky's `retry` of the instance (`ky.create({ retry: 0 })`) in backoff-core's words; kyBackoff's options win.
    const own = Object.entries(options ?? {}).filter(([, value]) => value !== undefined);
    const merged = { ...fromKyRetry(parent.retry, { random, baseDelay }), ...Object.fromEntries(own) };
    const policy = createBackoff(merged);
    const retry = kyRetryOptions(policy.options.retries);
    // The instance's own afterResponse hooks may change a response: it is decided after them, else at fetch.
    const afterHooks = (parent.hooks?.afterResponse?.length ?? 0) > 0;
    const calls = new Calls();
    const throws = parent.throwHttpErrors ?? true;
    // ky 2's `totalTimeout` bounds the whole call: it is the core's deadline too, so that no wait outlasts it.
    const deadline = typeof parent.totalTimeout === 'number' ? parent.totalTimeout : undefined;
    const shared = { policy, retry, given: parent.retry, marker, deadline, throws, afterHooks, calls };
    const fetch: FetchFunction = (input, init) => {
      // ky passes the options it does not know on to `fetch`: `backoff` is kyBackoff's.
      const { backoff: _, ...rest } = init ?? {};
      const send = (request: Request) =>
        ((parent.fetch as FetchFunction) ?? globalThis.fetch)(request, init && rest);
      const call = input instanceof Request ? (carried<KyCall>(input) ?? calls.take(input)) : undefined;
      return call === undefined ? send(input as Request) : call.fetch(input as Request, send);
    };
    // ky 2: once per call; ky 1: before every attempt.
    const beforeRequest = (...args: unknown[]) => {
      const { request, options = {} } = view(args);
      if (!isObject(options.retry)) return;
      const call = calls.of(options.retry) ?? new KyCall(shared, request, options, args.length === 1);
      return call.begin(request);
    };
    // Before every retry (one a hook forced with `ky.retry()` counts): the only hook to see ky 2's next request.
    const beforeRetry = ({ options, request, error }: View) =>
      calls.of(options?.retry)?.retrying(request, error);
    const afterResponse = (...args: unknown[]) => {
      const { options, response } = view(args);
      return calls.of(options?.retry)?.answer(response, true);
    };
    // ky 2: once, for the final error; ky 1: for each HTTPError.
    const beforeError = (...args: unknown[]) => {
      const { error, options } = view(args, 'error');
      const pending = calls.of(options?.retry)?.beforeError(error);
      return pending === undefined ? error : pending.then(() => error);
    };
    const hooks = { beforeRequest, beforeRetry, beforeError, ...(afterHooks && { afterResponse }) };
    const marked = Object.entries(hooks).map(([name, hook]) => [name, [mark(hook)]]);
    return { retry, fetch, hooks: Object.fromEntries(marked) };
  });
}
