import type { BackoffOptions } from 'backoff-core';
import type { RetryOptions as KyRetry } from 'ky';

type Options = BackoffOptions<Response, Error>;
type Fields = Record<string, unknown>;
type Env = { random: () => number; baseDelay: number };
// ky checks the method before it asks (ky 1.13 before any hook runs): it gets every method ky may send.
const KY_METHODS = ['get', 'post', 'put', 'patch', 'head', 'delete', 'options', 'trace', 'query'];
const LISTS = ['methods', 'statusCodes', 'afterStatusCodes'];
const FUNCTIONS = ['delay', 'jitter', 'shouldRetry'];
const KNOWN = ['limit', ...LISTS, 'backoffLimit', 'maxRetryAfter', 'retryOnTimeout', ...FUNCTIONS];
const CALL = Symbol('ky-backoff call');
/** The call a per-call `retry` is bound to: the `shouldRetry` bindRetry gave it carries that call. */
export const boundCall = (retry: unknown): unknown => Object(Object(retry).shouldRetry)[CALL];
const MAX = 2_147_483_647; // the longest timer: what ky's `Infinity` can mean here
// The instance's `retry`: our `shouldRetry` always answers, so ky reads none of the other fields (`null`, `[]`): a
// value there that is not ours was set for the call.
export function kyRetryOptions(limit: number): Fields {
  const unread = { maxRetryAfter: null, backoffLimit: null, jitter: null, retryOnTimeout: null };
  const lists = { methods: [...KY_METHODS], statusCodes: [], afterStatusCodes: [] };
  return { limit, ...lists, ...unread, delay: () => 0, shouldRetry: () => false };
}
/** ky's `retry` fields as backoff-core's options, meaning what they mean to ky; `afterStatusCodes` is accepted (the
 * server's timing headers are read on every retried status). */
export function fromKyRetry(given: unknown, env: Env): Options {
  const retry = (typeof given === 'number' ? { limit: given } : given === undefined ? {} : given) as Fields;
  if (typeof retry !== 'object' || retry === null || Array.isArray(retry))
    throw new TypeError("Expected ky's `retry` option to be a number or an object.");
  // ky 1.14.2's deep merge adds `context: {}` to the objects it combines.
  const odd = Object.keys(retry).filter((k) => !KNOWN.includes(k) && !(k === 'context' && isEmpty(retry[k])));
  const { jitter, delay, shouldRetry, limit, backoffLimit: most, maxRetryAfter, ...f } = retry as KyRetry;
  const { afterStatusCodes: _, context: __, ...same } = f as Fields; // statusCodes, retryOnTimeout, methods
  if (odd.length > 0 || !['boolean', 'function', 'undefined'].includes(typeof jitter)) {
    const got = odd.length ? `\`retry.${odd.join('`, `retry.')}\`` : `\`retry.jitter\` = ${String(jitter)}`;
    throw new TypeError(
      `Expected ky's \`retry\` to hold ky's fields only (${KNOWN.join(', ')}; jitter a boolean or a function), got ${got}: kyBackoff gives nothing else a meaning. Give backoff-core's options to kyBackoff or as \`backoff\`.`,
    );
  }
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
  // ky asks about its own errors only (a status it throws for), with the retry to come (1 for the first).
  if (shouldRetry) {
    options.shouldRetry = ({ error, outcome, attempt }) => {
      const kyError = error ?? (outcome as { kyError?: Error }).kyError;
      const yes = (answer: unknown) => (typeof answer === 'boolean' ? answer : undefined);
      const answer = kyError === undefined ? undefined : shouldRetry({ error: kyError, retryCount: attempt });
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
// The fields of a call's copy of `retry` that the request, `.extend()` or an `init` hook set. ky concatenated its
// lists after the instance's (`given`) and ours: a list means what it would to ky (the instance's, then these).
export function requestFields(perCall: Fields, ours: Fields, given: unknown, env: Env) {
  if (boundCall(perCall) !== undefined) return undefined;
  // After a per-request number, the copy holds ky's defaults and that limit.
  if (perCall.shouldRetry === undefined) return fromKyRetry({ limit: perCall.limit }, env);
  const fields: Fields = {};
  for (const [key, value] of Object.entries(perCall)) {
    if (value === ours[key] || value === undefined) continue;
    if (!LISTS.includes(key) || !Array.isArray(value)) fields[key] = value;
    else {
      const mine = (Object(given)[key] ?? []) as unknown[];
      const before = [...mine, ...(ours[key] as unknown[])];
      // A list an `init` hook replaced is the whole list.
      const kept = before.every((item, i) => String(item).toLowerCase() === String(value[i]).toLowerCase());
      if (!kept || value.length > before.length)
        fields[key] = kept ? [...mine, ...value.slice(before.length)] : value;
    }
  }
  return Object.keys(fields).length > 0 ? fromKyRetry(fields, env) : undefined;
}
// Binds ky's per-call copy of `retry` to a call, once its fields are read: ours again, ky's `jitter` and
// `backoffLimit` off, a method of the call's own added in a new list (ky 1 shares the per-call one with the instance).
type Asked = { shouldRetry(error: unknown): unknown; takeDelay(): number; readonly limit: number };
export function bindRetry(perCall: Fields, ours: Fields, method: string, call: Asked): void {
  Object.assign(perCall, ours, { jitter: undefined, backoffLimit: Number.POSITIVE_INFINITY });
  const methods = ours.methods as string[];
  if (!methods.includes(method.toLowerCase())) perCall.methods = [...methods, method.toLowerCase()];
  const shouldRetry = ({ error }: { error: unknown }) => call.shouldRetry(error);
  perCall.shouldRetry = Object.assign(shouldRetry, { [CALL]: call });
  perCall.delay = () => call.takeDelay();
  perCall.limit = call.limit;
}
