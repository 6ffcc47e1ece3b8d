/**
 * ky's retry limit while kyBackoff drives ky's loop. It only has to be out of the way: the core stops at
 * `retries` (at most 100), and a retry the caller forces with `ky.retry()` from a hook of their own is not the
 * core's, so this leaves room for those too while still ending a hook that forces retries forever.
 */
export const KY_LIMIT = 200;

// Every method ky may send. ky checks the method before it asks `shouldRetry`, so all must pass that check: the
// core's idempotency gate (POST only with an Idempotency-Key) is the one that decides.
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

/** ky's `shouldRetry` signature (the state object is the same in 1.x and 2.x). */
export type KyShouldRetry = (state: { readonly error: unknown }) => boolean | Promise<boolean>;

/**
 * The `retry` option kyBackoff gives ky: ky's own delays, status lists and timing headers are all switched off
 * (so ky 1.x's loose Retry-After parsing never runs), and `shouldRetry` hands every thrown error to the core.
 * ky's own wait is 0 ms: the real wait happens in the core's `RetryState.wait`, before ky's.
 */
export function kyRetryOptions(
  shouldRetry: KyShouldRetry,
  limit: number,
  method?: unknown,
): Record<string, unknown> {
  const own = typeof method === 'string' ? method.toLowerCase() : undefined;
  return {
    limit,
    methods: own === undefined || KY_METHODS.includes(own) ? [...KY_METHODS] : [...KY_METHODS, own],
    statusCodes: [],
    afterStatusCodes: [],
    maxRetryAfter: 0,
    backoffLimit: 0,
    delay: () => 0,
    retryOnTimeout: true,
    shouldRetry,
  };
}
