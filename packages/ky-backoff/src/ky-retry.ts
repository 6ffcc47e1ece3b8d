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

/**
 * Adds the call's own method to ky's per-call method list. ky checks the method before it asks `shouldRetry`, so
 * it must be there: the core's idempotency gate (POST only with an Idempotency-Key) is the one that decides. From
 * ky 1.14 on, the instance's list is empty and each call adds only its own method: ky normalizes the list
 * (lower-casing each entry into a new array) once or twice per call, so one entry costs less on every request
 * than every method. A new array: ky 1 shares the per-call one with the instance's `retry` object.
 */
export function withMethod(perCall: Record<string, unknown>, method: string): void {
  const methods = perCall.methods;
  const lower = method.toLowerCase();
  if (Array.isArray(methods) && !methods.includes(lower)) perCall.methods = [...methods, lower];
}

/** ky's `shouldRetry` signature (the state object is the same in 1.x and 2.x). */
export type KyShouldRetry = (state: { readonly error: unknown }) => boolean | Promise<boolean>;

/** ky's `delay` under kyBackoff: 0, since the core has waited (each call binds its own on its per-call copy). */
const noDelay = () => 0;

/**
 * The `retry` option kyBackoff gives ky, built once per instance: `limit`, no method (each call adds its own; ky
 * 1.13, which checks the method before any hook runs, gets every method: `everyMethod`), a 0 ms `delay`, and a
 * `shouldRetry` that always answers, so ky's own status lists, timing headers and `retryOnTimeout` are never
 * consulted (and ky 1's loose Retry-After parsing never runs). The fields kyBackoff replaces are set to values a
 * request's own `retry` cannot leave unchanged, so that one given per request is seen (and rejected). Each call's
 * `beforeRequest` binds `shouldRetry`, `delay` and `limit` to that call on ky's per-call copy of this object.
 */
export function kyRetryOptions(
  limit: number,
  shouldRetry: KyShouldRetry,
  everyMethod: boolean,
): Record<string, unknown> {
  return {
    limit,
    methods: everyMethod ? [...KY_METHODS] : [],
    statusCodes: [],
    afterStatusCodes: [],
    maxRetryAfter: 0,
    delay: noDelay,
    retryOnTimeout: true,
    shouldRetry,
  };
}

function fieldsError(names: readonly string[]): TypeError {
  const list = names.map((name) => `\`retry.${name}\``).join(', ');
  return new TypeError(
    `kyBackoff replaces ky's retry settings: ${list} cannot be used with it; give \`retry\` as a number or \`{ limit }\`.`,
  );
}

/** Whether ky's per-call copy has the method list `kyRetryOptions` gave the instance. */
function ownMethods(methods: unknown, instance: readonly string[]): boolean {
  if (!Array.isArray(methods) || methods.length !== instance.length) return false;
  // A loop, not `every`: this runs for every call, and a callback would be a closure per call.
  for (let i = 0; i < methods.length; i++) if (methods[i] !== instance[i]) return false;
  return true;
}

/**
 * The fields of ky's per-call `retry` that a request's own `retry` object set (ky merged it over the instance's):
 * kyBackoff decides those, so the call is rejected naming them rather than ignoring them.
 */
export function replacedPerRequest(
  perCall: Record<string, unknown>,
  instance: Record<string, unknown>,
): void {
  const names: string[] = [];
  const methods = perCall.methods;
  if (!ownMethods(methods, instance.methods as readonly string[])) names.push('methods');
  for (const key of ['statusCodes', 'afterStatusCodes'] as const) {
    const list = perCall[key];
    if (Array.isArray(list) && list.length > 0) names.push(key);
  }
  if (perCall.maxRetryAfter !== 0) names.push('maxRetryAfter');
  if (perCall.delay !== noDelay) names.push('delay');
  if (perCall.retryOnTimeout !== true) names.push('retryOnTimeout');
  if (perCall.shouldRetry !== instance.shouldRetry) names.push('shouldRetry');
  if (perCall.jitter !== undefined) names.push('jitter');
  const limit = perCall.backoffLimit;
  if (limit !== undefined && limit !== Infinity) names.push('backoffLimit');
  if (names.length > 0) throw fieldsError(names);
}

// ky 1.14.2's deep merge adds `context: {}` to the objects it merges; it is no retry field.
function isMergeArtefact(key: string, value: unknown): boolean {
  return key === 'context' && typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

/**
 * What ky's own `retry` option means under kyBackoff: a number or `{ limit }` is the number of retries
 * (`retries`); every other field is one kyBackoff replaces (its delays, status lists, methods and
 * `shouldRetry` are the core's), so it is rejected rather than silently ignored.
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
