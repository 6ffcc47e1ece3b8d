import type { BackoffOptions } from 'backoff-core';
import { briefly } from 'backoff-core/adapter';
import type { RetryOptions as KyRetry } from 'ky';

// Bundlers replace it: a production bundle leaves out the long explanations (docs/errors.md has them).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

type Options = BackoffOptions<Response, Error>;
type Fields = Record<string, unknown>;
type Env = { random: () => number; baseDelay: number };
const LISTS = ['methods', 'statusCodes', 'afterStatusCodes'];
const FUNCTIONS = ['delay', 'jitter', 'shouldRetry'];
const KNOWN = ['limit', ...LISTS, 'backoffLimit', 'maxRetryAfter', 'retryOnTimeout', ...FUNCTIONS];
const MAX = 2_147_483_647; // the longest timer: what ky's `Infinity` can mean here
// ky's own `retry.methods` when none is given (ky 2.1's; ky 1 and 2.0 leave out `query`, which they cannot send).
const KY_DEFAULT = ['get', 'put', 'head', 'delete', 'options', 'trace', 'query'];
const ms = (v: unknown) => typeof v === 'number' && v >= 0; // `Infinity` too: ky's "no limit"
const list = (item: (v: unknown) => boolean) => (v: unknown) => Array.isArray(v) && v.every(item);
const status = (v: unknown) => Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 599;
const fn = (v: unknown) => typeof v === 'function';
/** Each field's test and, for its error, what ky's field must be under kyBackoff. */
const FIELD_CHECKS: Record<string, [valid: (value: unknown) => boolean, expected: string]> = {
  limit: [
    (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 100,
    'an integer from 0 to 100',
  ],
  methods: [list((v) => typeof v === 'string'), 'an array of method names'],
  statusCodes: [list(status), 'an array of statuses from 100 to 599'],
  afterStatusCodes: [Array.isArray, 'an array'],
  maxRetryAfter: [ms, 'a number of ms, at least 0 (`Infinity`: any delay a timer can wait, about 24.8 days)'],
  backoffLimit: [ms, 'a number of ms, at least 0 (`Infinity`: no cap short of the longest timer)'],
  delay: [fn, 'a function of the attempt count'],
  jitter: [
    (v) => typeof v === 'boolean' || fn(v),
    "a boolean or a function (ky's; backoff-core's `jitter: 'full'` goes to kyBackoff's options or `backoff`)",
  ],
  retryOnTimeout: [(v) => typeof v === 'boolean', 'a boolean'],
  shouldRetry: [fn, 'a function'],
};
const got = (v: unknown) =>
  typeof v === 'string'
    ? JSON.stringify(v)
    : fn(v)
      ? 'a function'
      : Array.isArray(v)
        ? `[${v.join(', ')}]`
        : String(v);

/** Throws every problem of ky's `retry` fields at once, each naming ky's field: one as itself, several listed. */
function checkKyRetry(retry: Fields): void {
  // ky 1.14.2's deep merge adds `context: {}` to the objects it combines.
  const odd = Object.keys(retry).filter((k) => !KNOWN.includes(k) && !(k === 'context' && isEmpty(retry[k])));
  const problems = odd.length
    ? [
        process.env.NODE_ENV === 'production'
          ? briefly('unknown-option', `retry.${odd[0]}`, retry[odd[0] as string])
          : `Expected ky's \`retry\` to hold ky's fields only (${KNOWN.join(', ')}), got \`retry.${odd.join('`, `retry.')}\`: kyBackoff gives nothing else a meaning. Give backoff-core's options to kyBackoff or as \`backoff\`.`,
      ]
    : [];
  for (const [key, [valid, expected]] of Object.entries(FIELD_CHECKS)) {
    const value = retry[key];
    if (value !== undefined && !valid(value))
      problems.push(
        process.env.NODE_ENV !== 'production'
          ? `Expected \`retry.${key}\` to be ${expected}, got ${got(value)}.`
          : briefly('bad-option', `retry.${key}`, value),
      );
  }
  if (problems.length > 1)
    throw new TypeError(`${problems.length} problems in ky's \`retry\`:\n- ${problems.join('\n- ')}`);
  if (problems.length === 1) throw new TypeError(problems[0]);
}

/** ky's `retry` fields as backoff-core's options, meaning what they mean to ky; `afterStatusCodes` is accepted (the
 * server's timing headers are read on every retried status). */
export function fromKyRetry(given: unknown, env: Env): Options {
  const retry = (typeof given === 'number' ? { limit: given } : given === undefined ? {} : given) as Fields;
  if (typeof retry !== 'object' || retry === null || Array.isArray(retry))
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? "Expected ky's `retry` option to be a number or an object."
        : briefly('bad-option', 'retry', retry),
    );
  checkKyRetry(retry);
  const { jitter, delay, shouldRetry, limit, backoffLimit: most, maxRetryAfter, ...f } = retry as KyRetry;
  const { afterStatusCodes: _, context: __, ...same } = f as Fields; // statusCodes, retryOnTimeout, methods
  const options: Options = { ...same, retries: limit };
  if (Array.isArray(same.methods)) options.methods = same.methods.map((m) => String(m).toUpperCase());
  // ky caps a server's delay at `maxRetryAfter` (here: no retry above it), and every delay at `backoffLimit`.
  if (maxRetryAfter !== undefined) options.maxRetryAfter = Math.min(maxRetryAfter, MAX);
  if (most !== undefined) options.maxDelay = Math.min(most, MAX);
  if (most !== undefined && most < env.baseDelay) options.baseDelay = most;
  if (jitter !== undefined) options.jitter = jitter === true ? 'full' : 'none';
  // `delay(n)` and a `jitter` function make the `delay` option, capped by `backoffLimit`.
  if (delay !== undefined || typeof jitter === 'function') {
    options.delay = ({ retry: n, computed, serverDelay }) => {
      if (serverDelay !== undefined) return computed; // ky puts no jitter on a server's delay
      const base = delay === undefined ? computed : delay(n);
      const own = jitter === true ? env.random() * base : typeof jitter === 'function' ? jitter(base) : base;
      return Math.min(most ?? MAX, MAX, Number.isFinite(own) && own >= 0 ? own : base);
    };
  }
  // ky asks about its own errors only (a status it throws for), with the retry to come (1 for the first), and only
  // where it would: a retry left within `limit`, a method in its `methods` (its own list when none is given).
  if (shouldRetry) {
    const methods = Array.isArray(same.methods)
      ? same.methods.map((m) => String(m).toLowerCase())
      : KY_DEFAULT;
    options.shouldRetry = ({ error, outcome, attempt, retries, method }) => {
      const kyError = error ?? (outcome as { kyError?: Error }).kyError;
      if (kyError === undefined || attempt > retries || !methods.includes(method.toLowerCase()))
        return undefined;
      const yes = (answer: unknown) => (typeof answer === 'boolean' ? answer : undefined);
      const answer = shouldRetry({ error: kyError, retryCount: attempt });
      return answer instanceof Promise ? answer.then(yes) : yes(answer);
    };
  }
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
const isEmpty = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 0;
/** Drops the `context: {}` ky 1.14.2's deep merge adds to a `backoff` set by `.extend()` and per request. */
export function withoutMergeArtefact(override: unknown): unknown {
  const { context, ...rest } = Object(override) as Fields;
  return isEmpty(context) ? rest : override;
}
/**
 * A call's own `retry` fields, as backoff-core's options: what the request, a derived instance's `.extend()` or an
 * `init` hook set over the wrapped instance's own `retry` (`given`), meaning what they mean to ky; `undefined` when
 * none. `call` is the call's `retry` as ky merged it and its `init` hooks left it, or else the caller's own `retry`
 * (`request`) laid over the `retry` of the instance it was sent through (`instance`), as ky merges them.
 */
export function callOverrides(
  call: { readonly merged: unknown } | { readonly request: unknown; readonly instance: unknown },
  given: unknown,
  env: Env,
): Options | undefined {
  const own = 'merged' in call ? call.merged : call.request;
  if (isOurs(own)) return undefined; // a hook sent a call's bound `retry` again: the instance's rules
  // Nothing set by the call or a derived instance (most calls): the instance's rules, with nothing to merge.
  if (!('merged' in call) && own === undefined && call.instance === given) return undefined;
  const merged =
    'merged' in call ? merge(undefined, call.merged) : merge(merge(undefined, call.instance), own);
  const base = merge(undefined, given);
  let fields: Fields | undefined;
  for (const key in merged) {
    const value = merged[key];
    const set = Array.isArray(value) && LISTS.includes(key) ? added(value, base[key]) : value;
    if (set !== base[key] && set !== undefined) fields = { ...fields, [key]: set };
  }
  return fields && fromKyRetry(fields, env);
}

/** ky's merge of a `retry` over another: a number is `{ limit }`, fields replace, lists add up (ky concatenates). */
function merge(under: Fields | undefined, over: unknown): Fields {
  const fields = (typeof over === 'number' ? { limit: over } : (over ?? {})) as Fields;
  if (under === undefined) return { ...fields };
  const merged: Fields = { ...under };
  for (const key in fields) {
    const value = fields[key];
    merged[key] =
      Array.isArray(value) && Array.isArray(under[key]) ? [...(under[key] as unknown[]), ...value] : value;
  }
  return merged;
}

/** What a call's list adds to the instance's (`base`): the whole list as ky would read it, or none when unchanged. */
function added(list: unknown[], base: unknown): unknown[] | undefined {
  const mine = Array.isArray(base) ? base : [];
  if (list.length === mine.length && list.every((item, i) => item === mine[i])) return undefined;
  return list;
}

// ky checks the method before it asks (ky 1.13 before any hook runs): it gets every method ky may send.
export const KY_METHODS = ['get', 'post', 'put', 'patch', 'head', 'delete', 'options', 'trace', 'query'];

/** What ky asks a call: about a failed attempt (its shouldRetry), and the wait (none: the call waits itself). */
interface Asked {
  ask(error: unknown): unknown;
}

const OURS = Symbol('ky-backoff shouldRetry');
const noWait = () => 0;
const isOurs = (retry: unknown) =>
  typeof retry === 'object' && retry !== null && OURS in Object((retry as Fields).shouldRetry);

/**
 * Binds ky's per-call copy of `retry` (as ky normalised it) to a call: ky asks the call about every failed attempt
 * (every method, its `shouldRetry` always answers), waits nothing itself, and retries as long as the call says
 * (`limit`). ky 2 tees a request body only when its limit is above 0: a body that cannot be sent again keeps 0.
 * Without a call (`backoff: false`) ky retries nothing by itself, and a retry a hook forces stops at `retries`.
 */
export function bindRetry(perCall: Fields, call: Asked | undefined, limit: number, method: string): void {
  const ask = call === undefined ? () => false : ({ error }: { error: unknown }) => call.ask(error);
  // A method of the caller's own (`LOCK`) too: ky checks it before it asks.
  const lower = method.toLowerCase();
  perCall.methods = KY_METHODS.includes(lower) ? KY_METHODS : [...KY_METHODS, lower];
  perCall.shouldRetry = Object.assign(ask, { [OURS]: true });
  perCall.delay = noWait;
  Object.assign(perCall, { jitter: undefined, backoffLimit: Number.POSITIVE_INFINITY, limit });
}
