/**
 * Option names that users of other retry libraries bring with them, and what to write here instead: an unknown
 * option is the first thing someone moving over meets, so its error says where to go.
 */
const PEER_NAMES: Readonly<Record<string, string>> = {
  retryCondition: "axios-retry's name: use `shouldRetry`",
  validateResponse: "axios-retry's name: use `shouldRetry`",
  retryDelay: "axios-retry's and retry-axios's name: use `delay` (a function) or `baseDelay` (ms)",
  shouldResetTimeout:
    "axios-retry's name: axios's `timeout` is per attempt here; `deadline` bounds the whole call",
  onMaxRetryTimesExceeded:
    "axios-retry's name: the final error carries the result (`getBackoffResult(error)`)",
  retry: "retry-axios's and ky's name: use `retries`",
  noResponseRetries: "retry-axios's name: network errors are retried within `retries`",
  httpMethodsToRetry: "retry-axios's name: use `methods`",
  statusCodesToRetry: "retry-axios's name: use `statusCodes` (a list of statuses)",
  backoffType: "retry-axios's name: use `jitter` and `factor`, or `delay` for a linear or fixed wait",
  onRetryAttempt: "retry-axios's name: use `onRetry`",
  onError: "retry-axios's name: use `onRetry`, called before each wait",
  maxRetryDelay: "retry-axios's name: use `maxDelay`",
  checkRetryAfter: "retry-axios's name: Retry-After is always read, and `maxRetryAfter` caps it",
  limit: "ky's and got's name: use `retries`",
  backoffLimit: "ky's and got's name: use `maxDelay`",
  afterStatusCodes: "ky's name: the server's timing headers are read on every retried status",
  minTimeout: "p-retry's name: use `baseDelay`",
  maxTimeout: "p-retry's name: use `maxDelay`",
  randomize: "p-retry's name: use `jitter`",
  onFailedAttempt: "p-retry's name: use `onRetry`",
  maxRetryTime: "p-retry's name: use `deadline`",
  forever: "p-retry's name: `retries` is at most 100; `deadline` bounds a long retry",
  signal: "p-retry's name: give the signal to the request itself (fetch's `signal`, axios's `config.signal`)",
  unref: "p-retry's name: waits are ordinary timers here; abort the request's signal to end one",
  instance: "retry-axios's name: `axiosBackoff(instance)` takes the instance",
  calculateDelay: "got's name: use `delay`",
  noise: "got's name: use `jitter`",
  errorCodes: "got's name: network errors are classified for you; `shouldRetry` decides any other",
  maxAttempts: 'use `retries`, the retries after the first attempt (`maxAttempts - 1`)',
  maxRetries: 'use `retries`',
  attempts: 'use `retries`, the retries after the first attempt',
  retryOn: 'use `statusCodes` (statuses) or `shouldRetry` (a function)',
};

/** Advice for an unknown backoff option: a peer's name mapped to ours, or a known name that differs only in case. */
export function unknownOptionHint(key: string, known: readonly string[]): string | undefined {
  if (Object.hasOwn(PEER_NAMES, key)) return PEER_NAMES[key];
  const same = known.find((name) => name.toLowerCase() === key.toLowerCase());
  return same === undefined ? undefined : `option names are case-sensitive: use \`${same}\``;
}
