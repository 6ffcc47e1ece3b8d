/*
 * kyBackoff rides ky's own retry loop on backoff-core's runner: ky asks, the runner decides, sends and waits. One
 * call through ky's steps (call.ts says where the call stands between them):
 *   the call       kyBackoff's instance gives each call a link that ky passes along (an option of its own, which ky
 *                  shows its hooks and hands its fetch), and reads the caller's own options and signal;
 *   beforeRequest  the call starts on the runner (an Idempotency-Key, a pacer's hold) and binds ky's per-call
 *                  `retry` to itself, so that ky asks the call about each failed attempt;
 *   fetch          the runner sends ky's request (hedged when it may be) and ky gets the answer;
 *   shouldRetry    ky's HTTPError, network error or timeout: the runner decides, a retry waits here;
 *   afterResponse  (only when the call has such hooks; kyBackoff's is the last) a response ky hands over as it is;
 *   beforeRetry    the next attempt begins (a retry that a hook of the caller's forced is decided here);
 *   beforeError    ky 2: ky ended the call; the result goes on its final error.
 */
import { type Backoff, type BackoffOptions, createBackoff } from 'backoff-core';
import { briefly, replayableBody, runCall } from 'backoff-core/adapter';
import { KyCall, type RetryMarker } from './call.js';
import { bindRetry, callOverrides, fromKyRetry, KY_METHODS, withoutMergeArtefact } from './ky-retry.js';
import type { KyBackoffOptions, KyInstanceLike } from './types.js';

// Bundlers replace it: a production bundle leaves out the long explanations (docs/errors.md has them).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

// Registered, so that a second copy of this package still recognises an instance that already has the hooks.
const HOOK: unique symbol = Symbol.for('ky-backoff.hook') as never;
/**
 * The option a call's link travels in: ky shows its hooks every option it does not know and hands those to its
 * fetch. A string key: ky passes on no other.
 */
const LINK = 'backoffCall';

type Hook = ((...args: never[]) => unknown) & { [HOOK]?: true };
type Hooks = Record<string, readonly Hook[] | undefined>;
type Options = Record<string, unknown> & { hooks?: Hooks };
type Fields = Record<string, unknown>;
type FetchFunction = (input: unknown, init?: Record<string, unknown>) => Promise<Response>;
type View = { request: Request; options?: Options; response: Response; error: unknown };
type KyLike = ((input: unknown, options?: Options) => unknown) & { extend: (defaults: unknown) => unknown };

/** What one call carries through ky: the caller's own options, and the call once it began. */
interface Link {
  readonly input: unknown;
  /** The call began (ky 1 runs beforeRequest before every attempt). */
  started?: boolean;
  readonly options: Options;
  readonly defaults: Options;
  /** The fetch the caller or the instance gave ky, which kyBackoff's own fetch sends through. */
  readonly fetch: FetchFunction | undefined;
  /** The call's `retry` as ky merged it and the caller's `init` hooks left it (ky 2, when it has such hooks). */
  merged?: unknown;
  /** The call's `throwHttpErrors`, read with `merged`. */
  thrown?: unknown;
  call?: KyCall | undefined;
}

/** What every call of one kyBackoff installation shares. */
interface Installation {
  /** The policy of kyBackoff's options over the wrapped instance's own `retry`. */
  readonly policy: Backoff;
  /** The wrapped instance's own `retry`, what a call's `retry` fields are read against. */
  readonly given: unknown;
  readonly marker: RetryMarker | undefined;
  readonly env: { random: () => number; baseDelay: number };
  /** `retries` of the policy: a retry a hook forces under `backoff: false` stops there. */
  readonly retries: number;
}

const always = () => true;
const never = () => false;
const mark = (hook: Hook) => Object.defineProperty(hook, HOOK, { value: true });
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;
// ky 2 passes hooks one state object; ky 1 its arguments one by one.
const view = (args: unknown[]) =>
  (args.length === 1 && isObject(args[0]) && 'options' in args[0]
    ? args[0]
    : { request: args[0], options: args[1], response: args[2] }) as View;
const linkOf = (options: unknown) => (isObject(options) ? (options[LINK] as Link | undefined) : undefined);
const hookCount = (hooks: unknown, name: string) =>
  isObject(hooks) && Array.isArray(hooks[name]) ? (hooks[name] as unknown[]).length : 0;

/** An instance's defaults, as ky merges them into each call (read through a throwaway `.extend()`). */
function defaultsOf(instance: KyLike): Options {
  let seen: Options = {};
  instance.extend((parent: Options) => {
    seen = parent;
    return {};
  });
  return seen;
}

/** The fetch options ky passed along, less kyBackoff's own. */
function fetchInit(init: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (init === undefined) return undefined;
  const { [LINK]: _link, backoff: _backoff, ...rest } = init;
  return rest;
}

/** kyBackoff's fetch: sends through the runner for a call ky linked to one, else as the caller's fetch would. */
const sending: FetchFunction = (input, init) => {
  const link = linkOf(init);
  const call = link?.call;
  if (call === undefined || !(input instanceof Request))
    return (link?.fetch ?? globalThis.fetch)(input as Request, fetchInit(init));
  return call.fetch(input, fetchInit(init));
};

/**
 * What `attemptTimeout` given to kyBackoff says: ky's own `timeout` already bounds each attempt (every retry gets all
 * of it), and a second timer beside it would only make two answers to one question.
 */
function attemptTimeoutError(value: unknown, where: string): TypeError {
  if (process.env.NODE_ENV === 'production')
    return new TypeError(briefly('attempt-timeout', 'attemptTimeout', value));
  const shown = typeof value === 'number' ? String(value) : typeof value;
  const fix = typeof value === 'number' ? ` (\`timeout: ${value}\`)` : '';
  return new TypeError(
    `\`attemptTimeout\` is withBackoff's option, not ky-backoff's (${where}, got ${shown}): ky's own \`timeout\` is already per attempt, each retry gets all of it. Set ky's \`timeout\` instead${fix}; \`totalTimeout\` (ky 2) or \`deadline\` bounds the whole call.`,
  );
}

/** Starts one call in ky's (first) beforeRequest; the runner takes it from there. */
function begin(
  installation: Installation,
  link: Link,
  request: Request,
  options: Options,
  ky2: boolean,
): Promise<unknown> {
  const { defaults } = link;
  const { backoff } = options;
  const retry =
    'merged' in link ? { merged: link.merged } : { request: link.options.retry, instance: defaults.retry };
  const asked = callOverrides(retry, installation.given, installation.env);
  let own = asked === undefined ? installation.policy : installation.policy.extend(asked);
  if (backoff !== undefined && backoff !== false) {
    const { attemptTimeout } = backoff as BackoffOptions;
    if (attemptTimeout !== undefined)
      throw attemptTimeoutError(attemptTimeout, "in this request's `backoff`");
    own = own.extend(withoutMergeArtefact(backoff) as BackoffOptions);
  }
  const totalTimeout = link.options.totalTimeout ?? defaults.totalTimeout;
  // ky 2's `totalTimeout` bounds the whole call: it is the core's deadline too, so that no wait outlasts it.
  if (typeof totalTimeout === 'number' && !(totalTimeout >= (own.options.deadline ?? Infinity)))
    own = own.extend({ deadline: totalTimeout });
  // As ky's init hooks left it (ky 2), else as the request and the instance set it.
  const thrown =
    ('merged' in link ? link.thrown : (link.options.throwHttpErrors ?? defaults.throwHttpErrors)) ?? true;
  // ky 1.13 (no `ky.retry`) throws for anything but `false`, a function too; later lines ask the function.
  const throws =
    typeof thrown === 'function' && installation.marker !== undefined
      ? (status: number) => Boolean((thrown as (status: number) => unknown)(status))
      : thrown === false
        ? never
        : always;
  // The body as ky sends it (`json` made into one); a Request given as the input brings its own body, a stream.
  const { body } = options;
  const replayable = body == null ? request.body === null : replayableBody(body);
  const { input } = link;
  const signal = (link.options.signal ?? (input instanceof Request ? input.signal : undefined)) as
    | AbortSignal
    | undefined;
  const afterHooks =
    hookCount(defaults.hooks, 'afterResponse') + hookCount(link.options.hooks, 'afterResponse') > 0;
  const call = new KyCall({
    request,
    fetch: link.fetch,
    signal,
    // ky 2 ends a call on its own during a wait at its totalTimeout, and when it throws for a response that an
    // afterResponse hook made, without asking.
    kyEnds: ky2 && (typeof totalTimeout === 'number' || afterHooks),
    throws,
    afterHooks,
    marker: installation.marker,
    // ky 2 reads a failed body into `HTTPError.data` before it asks: a `shouldRetry` of ours reads a copy.
    keepsCopies: ky2 && own.options.shouldRetry !== undefined,
  });
  link.call = call;
  // ky asks this call about every failed attempt. ky 2 tees a body only for a limit above 0: one that cannot be sent
  // again is not teed into memory (ky 2 then tells beforeError, not shouldRetry; ky 1 tees every body anyway).
  bindRetry(options.retry as Fields, call, replayable || !ky2 ? Number.MAX_SAFE_INTEGER : 0, request.method);
  const { method, url, headers } = request;
  // ky clones this request for each retry: a generated key goes along.
  const stamp = (name: string, key: string) => {
    headers.set(name, key);
    return headers;
  };
  const begun = call.begin();
  // A request the core refuses before anything is sent (a key that cannot travel) fails ky's beforeRequest.
  runCall(own, { method, url, headers, replayable }, call, stamp).catch((error: unknown) =>
    call.refused(error),
  );
  return begun;
}

/** ky's hooks of one installation, marked as kyBackoff's. */
function hooksOf(installation: Installation): Hooks {
  const beforeRequest = (...args: unknown[]) => {
    const { request, options } = view(args);
    const link = linkOf(options);
    // ky 1 runs beforeRequest before every attempt; a call begins once.
    if (link === undefined || link.call !== undefined || link.started) return undefined;
    link.started = true;
    const retry = options?.retry as Fields;
    // `backoff: false`: sent once; ky retries nothing by itself, and a retry a hook forces stops at `retries`.
    if (options?.backoff === false)
      return void bindRetry(retry, undefined, installation.retries, request.method);
    try {
      return begin(installation, link, request, options as Options, args.length === 1);
    } catch (error) {
      // A bad per-request `backoff`: the call fails with its error, and ky retries nothing by itself.
      bindRetry(retry, undefined, 0, request.method);
      throw error;
    }
  };
  const beforeRetry = ({ request, options, error }: View) => linkOf(options)?.call?.retrying(error, request);
  // ky 2 passes one state object and runs beforeError once, for the final error; ky 1 runs it for each failed
  // status, before it asks (the result then goes on ky's error when the call ends).
  const beforeError = (...args: unknown[]) => {
    const state = args[0] as View;
    if (args.length !== 1 || !isObject(state) || !('options' in state)) return state;
    const ended = linkOf(state.options)?.call?.failed(state.error);
    return ended === undefined ? state.error : ended.then(() => state.error);
  };
  return {
    beforeRequest: [mark(beforeRequest)],
    beforeRetry: [mark(beforeRetry)],
    beforeError: [mark(beforeError)],
  };
}

/**
 * kyBackoff's init hook, the last of a call's (ky 2): reads the call's `retry` and `throwHttpErrors` as the caller's
 * hooks left them (ky hides `throwHttpErrors` from its later hooks).
 */
const init = mark((options: unknown) => {
  const link = linkOf(options);
  if (link === undefined) return;
  link.merged = (options as Options).retry;
  link.thrown = (options as Options).throwHttpErrors;
});

/** The afterResponse hook kyBackoff adds last to a call that has some: the response as ky's hooks made it. */
const afterResponse = mark((...args: unknown[]) => {
  const { options, response } = view(args);
  return linkOf(options)?.call?.after(response);
});

/**
 * The instance kyBackoff returns: each call gets its link, the caller's options read as ky merges them, and
 * kyBackoff's fetch; `.extend()` keeps it so.
 */
function wrapped(instance: KyLike, installation: Installation): KyLike {
  const defaults = defaultsOf(instance);
  // ky 2 merges an `init` list into every instance's hooks; ky 1 has none.
  const ky2 = isObject(defaults.hooks) && 'init' in defaults.hooks;
  const instanceFetch =
    defaults.fetch === sending ? undefined : (defaults.fetch as FetchFunction | undefined);
  const call = (input: unknown, options: Options = {}, method?: string) => {
    if (!isObject(options)) return instance(input, options);
    const own = options.fetch as FetchFunction | undefined;
    // Every field it will hold, set now: one added later takes a property store of its own per call.
    const link: Link = {
      input,
      options,
      defaults,
      fetch: own ?? instanceFetch,
      started: false,
      call: undefined,
    };
    let hooks = options.hooks;
    // kyBackoff's afterResponse and init hooks go last, after the caller's own, and only where there are some: any
    // afterResponse hook makes ky copy every response, and any init hook the options.
    for (const [name, hook] of [
      ['afterResponse', afterResponse],
      ['init', init],
    ] as const) {
      if (hookCount(defaults.hooks, name) + hookCount(hooks, name) === 0) continue;
      hooks = { ...hooks, [name]: [...((hooks?.[name] as Hook[] | undefined) ?? []), hook] };
    }
    const sent: Options = { ...options, fetch: sending, [LINK]: link };
    if (hooks !== undefined) sent.hooks = hooks;
    // An init hook may add fields to the call's `retry`, as to any: with none set by the instance or the request,
    // it gets an object of no fields (ky's own would be `undefined`), which kyBackoff then reads as ky would.
    if (
      ky2 &&
      hookCount(hooks, 'init') > 0 &&
      ('retry' in options ? options.retry : defaults.retry) === undefined
    )
      sent.retry = {};
    if (method !== undefined) sent.method = method;
    // ky 1 may skip kyBackoff's beforeRequest (an earlier hook returned a new Request): ky then asks a shouldRetry
    // that says no, and retries nothing by its own rules. ky 1.13 decides whether a method is retried at all before
    // any hook runs: it is told every one.
    if (!ky2) sent.retry = unbound(options.retry, link, installation.marker === undefined);
    return instance(input, sent);
  };
  // ky's shortcuts (`api.get(...)`) are calls of their own method: each made once, not on every `api.get`.
  const shortcuts = new Map<string, (input: unknown, options?: Options) => unknown>();
  return new Proxy(instance, {
    apply: (_target, _this, [input, options]) => call(input, options),
    get: (target, key, receiver) => {
      const value = Reflect.get(target, key, receiver);
      if (key === 'extend') {
        return (more: unknown) => wrapped(target.extend(more) as KyLike, installation);
      }
      if (typeof key === 'string' && typeof value === 'function' && SHORTCUTS.has(key)) {
        let shortcut = shortcuts.get(key);
        if (shortcut === undefined) {
          shortcut = (input, options) => call(input, options, key);
          shortcuts.set(key, shortcut);
        }
        return shortcut;
      }
      return value;
    },
  });
}

/**
 * A ky 1 call's `retry` before kyBackoff's beforeRequest binds it: the caller's, asking the call if it began and
 * saying no otherwise; with every method added where ky decides on the method before any hook (`every`: 1.13).
 */
function unbound(retry: unknown, link: Link, every: boolean): Fields {
  const fields: Fields = typeof retry === 'number' ? { limit: retry } : isObject(retry) ? { ...retry } : {};
  fields.shouldRetry = ({ error }: { error: unknown }) => link.call?.ask(error) ?? false;
  if (every) fields.methods = [...((fields.methods as unknown[] | undefined) ?? []), ...KY_METHODS];
  return fields;
}

// ky's method shortcuts (ky 2 adds `query`).
const SHORTCUTS = new Set(['get', 'post', 'put', 'patch', 'head', 'delete', 'query']);

/**
 * Returns a NEW ky instance, extended from `instance`: use it, `const api = kyBackoff(ky.create(...))`; `instance`
 * itself keeps ky's own retry. Its hooks and options stay, its `totalTimeout` is a deadline, its `retry` fields are
 * the core's options; per request, `backoff` overrides them or turns retries off (`false`). */
export function kyBackoff<I extends KyInstanceLike>(instance: I, options?: KyBackoffOptions): I {
  const ky = instance as unknown as { extend?: unknown; retry?: unknown; default?: { extend?: unknown } };
  // `require('ky')` and `import * as ky from 'ky'` give ky's module namespace: the commonest wrong argument.
  if (isObject(instance) && typeof ky.default?.extend === 'function')
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? "Expected `instance` to be a ky instance, got ky's module namespace: pass its `default` export."
        : briefly('not-a-client', 'instance', instance),
    );
  if (typeof instance !== 'function' || typeof ky.extend !== 'function')
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? 'Expected `instance` to be a ky instance.'
        : briefly('not-a-client', 'instance', instance),
    );
  if (options?.attemptTimeout !== undefined)
    throw attemptTimeoutError(options.attemptTimeout, 'in the options of `kyBackoff`');
  const env = createBackoff(options).options; // a bad option throws before ky is touched
  const parent = defaultsOf(instance as unknown as KyLike);
  if (
    Object.values(parent.hooks ?? {}).some((list) =>
      (list as Hook[] | undefined)?.some((hook) => hook?.[HOOK]),
    )
  )
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? 'kyBackoff is already installed on this instance: wrap the instance it came from, or pass `backoff` per request.'
        : briefly('already-installed', 'instance', instance),
    );
  // ky's `retry` of the instance (`ky.create({ retry: 0 })`) in backoff-core's words; kyBackoff's options win.
  const own = Object.entries(options ?? {}).filter(([, value]) => value !== undefined);
  const policy = createBackoff({ ...fromKyRetry(parent.retry, env), ...Object.fromEntries(own) });
  // ky 1.13 has no `ky.retry()`: a response it does not throw for is retried through an error it retries.
  const marker = typeof ky.retry === 'function' ? (ky.retry.bind(instance) as RetryMarker) : undefined;
  const installation: Installation = {
    policy,
    given: parent.retry,
    marker,
    env,
    retries: policy.options.retries,
  };
  const extended = (ky.extend as (defaults: unknown) => KyLike)({ hooks: hooksOf(installation) });
  return wrapped(extended, installation) as unknown as I;
}
