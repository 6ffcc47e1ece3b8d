import type { BackoffOptions } from 'backoff-core';

type Fields = Record<string, unknown>;
const noDelay = () => 0;
// ky 1.13 checks the method before any hook runs, so it gets every method ky may send.
const KY_METHODS = ['get', 'post', 'put', 'patch', 'head', 'delete', 'options', 'trace', 'query'];

// The instance's `retry`: a `shouldRetry` that always answers, so that ky's own rules are never consulted;
// `limit` is its `retries`, so that ky's per-call copy holds the retries asked for, whoever asked.
export function kyRetryOptions(limit: number, everyMethod: boolean): Fields {
  return {
    limit,
    methods: everyMethod ? [...KY_METHODS] : [],
    statusCodes: [],
    afterStatusCodes: [],
    maxRetryAfter: 0,
    delay: noDelay,
    retryOnTimeout: true,
    shouldRetry: () => false,
  };
}

const same = (a: unknown, b: unknown) =>
  a === b || (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => v === b[i]));

/** The fields of ky's `retry` other than `limit` that are not kyBackoff's own (`ours`): it replaces them. */
function foreignFields(retry: object, ours: Fields): void {
  const names = Object.entries(retry)
    .filter(([key, value]) => key !== 'limit' && value !== undefined && !same(value, ours[key]))
    // ky's own default `backoffLimit`, and the `context: {}` ky 1.14.2's deep merge adds, are not foreign.
    .filter(([key, value]) => key in ours || !(value === Infinity || (key === 'context' && isEmpty(value))))
    .map(([key]) => `\`retry.${key}\``);
  if (names.length === 0) return;
  throw new TypeError(
    `kyBackoff replaces ky's retry settings: ${names.join(', ')} cannot be used with it; give \`retry\` as a number or \`{ limit }\`.`,
  );
}

const isEmpty = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 0;

/** Drops the `context: {}` ky 1.14.2's deep merge adds to a `backoff` set by `.extend()` and per request. */
export function withoutMergeArtefact(override: unknown): unknown {
  if (!isEmpty(Object(override).context)) return override;
  const { context: _, ...rest } = override as Record<string, unknown>;
  return rest;
}

// Binds ky's per-call copy of `retry` to a call (after a per-request number it holds ky's defaults: ours again). The
// call's method is added, as ky checks it before it asks: the core's idempotency gate is the one that decides.
type Asked = { shouldRetry(error: unknown): unknown; takeDelay(): number; readonly limit: number };

export function bindRetry(perCall: Fields, ours: Fields, method: string, call: Asked): void {
  if (perCall.shouldRetry === undefined) Object.assign(perCall, ours);
  else foreignFields(perCall, ours);
  const { methods } = perCall;
  const lower = method.toLowerCase();
  // A new array: ky 1 shares the per-call one with the instance.
  if (Array.isArray(methods) && !methods.includes(lower)) perCall.methods = [...methods, lower];
  perCall.shouldRetry = ({ error }: { error: unknown }) => call.shouldRetry(error);
  perCall.delay = () => call.takeDelay();
  perCall.limit = call.limit;
}

/** ky's own `retry` of the instance: a number or `{ limit }` is `retries`; any other field is rejected. */
export function retriesFromKyRetry(retry: unknown): Pick<BackoffOptions, 'retries'> {
  if (typeof retry === 'number') return { retries: retry };
  if (retry === undefined) return {};
  if (typeof retry !== 'object' || retry === null || Array.isArray(retry)) {
    throw new TypeError("Expected ky's `retry` option to be a number or `{ limit }` under kyBackoff.");
  }
  foreignFields(retry, {});
  const { limit } = retry as { limit?: number };
  return limit === undefined ? {} : { retries: limit };
}
