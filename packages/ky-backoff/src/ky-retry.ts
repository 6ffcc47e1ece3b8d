import type { BackoffOptions } from 'backoff-core';

// Every method ky may send: the list ky 1.13 gets (it checks the method once, before any hook runs).
const KY_METHODS: readonly string[] = [
  'get',
  'post',
  'put',
  'patch',
  'head',
  'delete',
  'options',
  'trace',
  'query',
];

/** ky's `retry.shouldRetry` (the state object is the same in 1.x and 2.x). */
type KyShouldRetry = (state: { readonly error: unknown }) => boolean | Promise<boolean>;

/** What a call binds on ky's per-call copy of `retry`. */
export interface RetryBinding {
  readonly limit: number;
  shouldRetry(error: unknown): boolean | Promise<boolean>;
  takeDelay(): number;
}

const noDelay = () => 0;

/**
 * The `retry` option kyBackoff gives the instance: ky's status lists, timing headers and `retryOnTimeout` are
 * never consulted (`shouldRetry` always answers). The fields set to values a request's own `retry` cannot leave
 * unchanged are there to see such a request (and reject it). `limit` is the instance's `retries`, so that ky's
 * per-call copy holds the retries asked for, whoever set them. No method: each call adds its own, except on ky
 * 1.13 (`everyMethod`), which checks it before any hook runs.
 */
export function kyRetryOptions(limit: number, everyMethod: boolean): Record<string, unknown> {
  return {
    limit,
    methods: everyMethod ? [...KY_METHODS] : [],
    statusCodes: [],
    afterStatusCodes: [],
    maxRetryAfter: 0,
    delay: noDelay,
    retryOnTimeout: true,
    shouldRetry: (() => false) satisfies KyShouldRetry,
  };
}

function fieldsError(names: readonly string[]): TypeError {
  const list = names.map((name) => `\`retry.${name}\``).join(', ');
  return new TypeError(
    `kyBackoff replaces ky's retry settings: ${list} cannot be used with it; give \`retry\` as a number or \`{ limit }\`.`,
  );
}

/** The fields of ky's per-call `retry` that the request's own `retry` object set: rejected, naming them. */
function replacedPerRequest(perCall: Record<string, unknown>, instance: Record<string, unknown>): void {
  const names: string[] = [];
  const { methods } = perCall;
  const own = instance.methods as readonly string[];
  if (!Array.isArray(methods) || methods.length !== own.length || methods.some((m, i) => m !== own[i]))
    names.push('methods');
  for (const key of ['statusCodes', 'afterStatusCodes'] as const) {
    const list = perCall[key];
    if (Array.isArray(list) && list.length > 0) names.push(key);
  }
  if (perCall.maxRetryAfter !== 0) names.push('maxRetryAfter');
  if (perCall.delay !== noDelay) names.push('delay');
  if (perCall.retryOnTimeout !== true) names.push('retryOnTimeout');
  if (perCall.shouldRetry !== instance.shouldRetry) names.push('shouldRetry');
  if (perCall.jitter !== undefined) names.push('jitter');
  if (perCall.backoffLimit !== undefined && perCall.backoffLimit !== Infinity) names.push('backoffLimit');
  if (names.length > 0) throw fieldsError(names);
}

/**
 * Binds ky's per-call copy of `retry` to one call. A per-request `retry` number replaced the instance's object
 * with ky's defaults (the rest is kyBackoff's again); a per-request object was merged over it (fields of its own
 * throw). The call's method is added (a new array: ky 1 shares the per-call one with the instance): ky checks it
 * before it asks, and the core's idempotency gate is the one that decides.
 */
export function bindRetry(
  perCall: Record<string, unknown>,
  instance: Record<string, unknown>,
  method: string,
  call: RetryBinding,
): void {
  if (perCall.shouldRetry === undefined) Object.assign(perCall, instance);
  else replacedPerRequest(perCall, instance);
  const { methods } = perCall;
  const lower = method.toLowerCase();
  if (Array.isArray(methods) && !methods.includes(lower)) perCall.methods = [...methods, lower];
  perCall.shouldRetry = (({ error }) => call.shouldRetry(error)) satisfies KyShouldRetry;
  perCall.delay = () => call.takeDelay();
  perCall.limit = call.limit;
}

// ky 1.14.2's deep merge adds `context: {}` to the objects it merges; it is no retry field.
const isMergeArtefact = (key: string, value: unknown) =>
  key === 'context' && typeof value === 'object' && value !== null && Object.keys(value).length === 0;

/**
 * ky's own `retry` option under kyBackoff: a number or `{ limit }` is the number of retries; every other field
 * is one kyBackoff replaces, so it is rejected rather than silently ignored.
 */
export function retriesFromKyRetry(retry: unknown): Pick<BackoffOptions, 'retries'> {
  if (retry === undefined) return {};
  if (typeof retry === 'number') return { retries: retry };
  if (typeof retry !== 'object' || retry === null || Array.isArray(retry)) {
    throw new TypeError("Expected ky's `retry` option to be a number or `{ limit }` under kyBackoff.");
  }
  const fields = Object.entries(retry).filter(
    ([key, value]) => key !== 'limit' && value !== undefined && !isMergeArtefact(key, value),
  );
  if (fields.length > 0) throw fieldsError(fields.map(([key]) => key));
  const { limit } = retry as { limit?: unknown };
  return limit === undefined ? {} : { retries: limit as number };
}
