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
/** The call a request our hooks saw carries, and (`boundCall`) the call a per-call `retry` is bound to. */
export const carried = <Call>(value: unknown): Call | undefined => Object(value)[CALL];
export const boundCall = <Call>(retry: unknown) => carried<Call>(Object(retry).shouldRetry);
export const carry = <T extends object>(value: T, call: unknown): T => Object.assign(value, { [CALL]: call });
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
// The fields of a call's copy of `retry` that the request, `.extend()` or an `init` hook set (`undefined`: none).
export function requestFields(perCall: Fields, ours: Fields, given: unknown, env: Env) {
  if (boundCall(perCall) !== undefined) return undefined; // a hook sent a bound `retry` again
  // After a per-request number, the copy holds ky's defaults and that limit.
  if (perCall.shouldRetry === undefined) return fromKyRetry({ limit: perCall.limit }, env);
  let fields: Fields | undefined;
  for (const key in perCall) {
    const value = perCall[key];
    const set = Array.isArray(value) && LISTS.includes(key) ? added(value, given, ours, key) : value;
    if (set !== ours[key] && set !== undefined) fields = { ...fields, [key]: set };
  }
  return fields && fromKyRetry(fields, env);
}
// ky concatenated its lists after the instance's (`given`) and ours: what the call added, as a list that means what
// it would to ky (the instance's, then these), or the whole list an `init` hook replaced.
function added(list: unknown[], given: unknown, ours: Fields, key: string): unknown[] | undefined {
  const mine: unknown[] = Object(given)[key] ?? [];
  const theirs = ours[key] as unknown[];
  const before = mine.length + theirs.length;
  for (let i = 0; i < before; i++) {
    const item = i < mine.length ? mine[i] : theirs[i - mine.length];
    if (item !== list[i] && String(item).toLowerCase() !== String(list[i]).toLowerCase()) return list;
  }
  return list.length > before ? [...mine, ...list.slice(before)] : undefined;
}
// Binds ky's per-call `retry` to a call once its fields are read. Our `shouldRetry` always answers, so ky reads only
// these: every method (ky 1 shares the list with the instance), our `delay` (no `jitter`, no cap) and the `limit`.
type Asked = { shouldRetry(error: unknown): unknown; takeDelay(): number; readonly limit: number };
export function bindRetry(perCall: Fields, ours: Fields, method: string, call: Asked): void {
  const methods = ours.methods as string[];
  perCall.methods = methods.includes(method.toLowerCase()) ? methods : [...methods, method.toLowerCase()];
  perCall.shouldRetry = carry(({ error }: { error: unknown }) => call.shouldRetry(error), call);
  perCall.delay = () => call.takeDelay();
  Object.assign(perCall, { jitter: undefined, backoffLimit: Infinity, limit: call.limit });
}
