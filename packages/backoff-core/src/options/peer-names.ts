/**
 * Option names that users of other retry libraries bring with them, and what to write here instead: an unknown
 * option is the first thing someone moving over meets, so its error says where to go. The types say it too
 * (`PeerOptionNames`): each name is a property that no value fits, whose type carries the same advice.
 */

declare const renamed: unique symbol;

/**
 * The type of a peer's option name: no value has it, so TypeScript's error shows the advice (`Type 'number' is
 * not assignable to type 'Renamed<"ky's name: use `retries`">'`). It has a call signature so that a function
 * written there still gets its parameters typed: the one error is this one, not an implicit `any` too.
 */
export interface Renamed<Advice extends string> {
  readonly [renamed]: Advice;
  // biome-ignore lint/suspicious/noExplicitAny: `any` parameters are what spare a peer's callback a second error.
  (...args: any[]): unknown;
}

/** Other libraries' option names in backoff's options: each one an error, in the editor as at run time. */
export interface PeerOptionNames {
  /** @deprecated axios-retry's name: use `shouldRetry`, asked about failures only. */
  retryCondition?: Renamed<"axios-retry's name: use `shouldRetry`, asked about failures only">;
  /** @deprecated axios-retry's name: use `shouldRetry`. */
  validateResponse?: Renamed<"axios-retry's name: use `shouldRetry`">;
  /** @deprecated axios-retry's and retry-axios's name: use `delay` (a function) or `baseDelay` (ms). */
  retryDelay?: Renamed<"axios-retry's and retry-axios's name: use `delay` (a function) or `baseDelay` (ms)">;
  /** @deprecated axios-retry's name: axios's `timeout` is per attempt here; `deadline` bounds the whole call. */
  shouldResetTimeout?: Renamed<"axios-retry's name: axios's `timeout` is per attempt here; `deadline` bounds the whole call">;
  /** @deprecated axios-retry's name: the final error carries the result (`getBackoffResult(error)`). */
  onMaxRetryTimesExceeded?: Renamed<"axios-retry's name: the final error carries the result (`getBackoffResult(error)`)">;
  /** @deprecated axios-retry's config key: write its fields as options here. */
  'axios-retry'?: Renamed<"axios-retry's config key: write its fields as options here">;
  /** @deprecated retry-axios's and ky's name: use `retries` (exponential-backoff's `retry` function: `shouldRetry`). */
  retry?: Renamed<"retry-axios's and ky's name: use `retries` (exponential-backoff's `retry` function: `shouldRetry`)">;
  /** @deprecated retry-axios's name: network errors are retried within `retries`. */
  noResponseRetries?: Renamed<"retry-axios's name: network errors are retried within `retries`">;
  /** @deprecated retry-axios's name: use `methods`. */
  httpMethodsToRetry?: Renamed<"retry-axios's name: use `methods`">;
  /** @deprecated retry-axios's name: use `statusCodes` (a list of statuses). */
  statusCodesToRetry?: Renamed<"retry-axios's name: use `statusCodes` (a list of statuses)">;
  /** @deprecated retry-axios's name: use `jitter` and `factor`, or `delay` for a linear or fixed wait. */
  backoffType?: Renamed<"retry-axios's name: use `jitter` and `factor`, or `delay` for a linear or fixed wait">;
  /** @deprecated retry-axios's name: use `onRetry`, called (and awaited) before each wait. */
  onRetryAttempt?: Renamed<"retry-axios's name: use `onRetry`, called (and awaited) before each wait">;
  /** @deprecated retry-axios's name: use `onRetry`, called before each wait. */
  onError?: Renamed<"retry-axios's name: use `onRetry`, called before each wait">;
  /** @deprecated retry-axios's name: use `maxDelay`. */
  maxRetryDelay?: Renamed<"retry-axios's name: use `maxDelay`">;
  /** @deprecated retry-axios's name: Retry-After is always read, and `maxRetryAfter` caps it. */
  checkRetryAfter?: Renamed<"retry-axios's name: Retry-After is always read, and `maxRetryAfter` caps it">;
  /** @deprecated retry-axios's name: `axiosBackoff(instance)` takes the instance. */
  instance?: Renamed<"retry-axios's name: `axiosBackoff(instance)` takes the instance">;
  /** @deprecated retry-axios's config key: write its fields as options here. */
  raxConfig?: Renamed<"retry-axios's config key: write its fields as options here">;
  /** @deprecated ky's and got's name: use `retries`. */
  limit?: Renamed<"ky's and got's name: use `retries`">;
  /** @deprecated ky's and got's name: use `maxDelay` (`Infinity` is accepted). */
  backoffLimit?: Renamed<"ky's and got's name: use `maxDelay` (`Infinity` is accepted)">;
  /** @deprecated ky's name: the server's timing headers are read on every retried status. */
  afterStatusCodes?: Renamed<"ky's name: the server's timing headers are read on every retried status">;
  /** @deprecated ky's name: use `deadline`. */
  totalTimeout?: Renamed<"ky's name: use `deadline`">;
  /** @deprecated the client's own option, per attempt; `deadline` bounds the whole call. */
  timeout?: Renamed<"the client's own option, per attempt; `deadline` bounds the whole call">;
  /** @deprecated p-retry's name: use `baseDelay`. */
  minTimeout?: Renamed<"p-retry's name: use `baseDelay`">;
  /** @deprecated p-retry's name: use `maxDelay`. */
  maxTimeout?: Renamed<"p-retry's name: use `maxDelay`">;
  /** @deprecated p-retry's name: use `jitter`. */
  randomize?: Renamed<"p-retry's name: use `jitter`">;
  /** @deprecated p-retry's name: use `onRetry`. */
  onFailedAttempt?: Renamed<"p-retry's name: use `onRetry`">;
  /** @deprecated p-retry's name: use `deadline`. */
  maxRetryTime?: Renamed<"p-retry's name: use `deadline`">;
  /** @deprecated p-retry's name: `retries` is at most 100; `deadline` bounds a long retry. */
  forever?: Renamed<"p-retry's name: `retries` is at most 100; `deadline` bounds a long retry">;
  /**
   * @deprecated p-retry's name: give the signal to the request itself (fetch's `signal`, axios's
   * `config.signal`).
   */
  signal?: Renamed<"p-retry's name: give the signal to the request itself (fetch's `signal`, axios's `config.signal`)">;
  /** @deprecated p-retry's name: waits are ordinary timers here; abort the request's signal to end one. */
  unref?: Renamed<"p-retry's name: waits are ordinary timers here; abort the request's signal to end one">;
  /** @deprecated exponential-backoff's name: use `retries`, the retries after the first attempt (`numOfAttempts - 1`). */
  numOfAttempts?: Renamed<"exponential-backoff's name: use `retries`, the retries after the first attempt (`numOfAttempts - 1`)">;
  /** @deprecated exponential-backoff's name: use `baseDelay`. */
  startingDelay?: Renamed<"exponential-backoff's name: use `baseDelay`">;
  /** @deprecated exponential-backoff's name: use `factor`. */
  timeMultiple?: Renamed<"exponential-backoff's name: use `factor`">;
  /** @deprecated exponential-backoff's name: the first attempt is never delayed here. */
  delayFirstAttempt?: Renamed<"exponential-backoff's name: the first attempt is never delayed here">;
  /** @deprecated got's name: use `delay`. */
  calculateDelay?: Renamed<"got's name: use `delay`">;
  /** @deprecated got's name: use `jitter`. */
  noise?: Renamed<"got's name: use `jitter`">;
  /** @deprecated got's name: network errors are classified for you; `shouldRetry` decides any other. */
  errorCodes?: Renamed<"got's name: network errors are classified for you; `shouldRetry` decides any other">;
  /** @deprecated use `retries`, the retries after the first attempt (`maxAttempts - 1`). */
  maxAttempts?: Renamed<'use `retries`, the retries after the first attempt (`maxAttempts - 1`)'>;
  /** @deprecated use `retries`. */
  maxRetries?: Renamed<'use `retries`'>;
  /** @deprecated use `retries`, the retries after the first attempt. */
  attempts?: Renamed<'use `retries`, the retries after the first attempt'>;
  /** @deprecated use `statusCodes` (statuses) or `shouldRetry` (a function). */
  retryOn?: Renamed<'use `statusCodes` (statuses) or `shouldRetry` (a function)'>;
}

/** The advice a `Renamed` type carries. */
type Advice<T> = T extends Renamed<infer A> | undefined ? A : never;

// The same advice at run time: the compiler holds it to the types' word for word, and every name to a message.
const PEER_NAMES: { readonly [K in keyof PeerOptionNames]-?: Advice<PeerOptionNames[K]> } = {
  retryCondition: "axios-retry's name: use `shouldRetry`, asked about failures only",
  validateResponse: "axios-retry's name: use `shouldRetry`",
  retryDelay: "axios-retry's and retry-axios's name: use `delay` (a function) or `baseDelay` (ms)",
  shouldResetTimeout:
    "axios-retry's name: axios's `timeout` is per attempt here; `deadline` bounds the whole call",
  onMaxRetryTimesExceeded:
    "axios-retry's name: the final error carries the result (`getBackoffResult(error)`)",
  'axios-retry': "axios-retry's config key: write its fields as options here",
  retry: "retry-axios's and ky's name: use `retries` (exponential-backoff's `retry` function: `shouldRetry`)",
  noResponseRetries: "retry-axios's name: network errors are retried within `retries`",
  httpMethodsToRetry: "retry-axios's name: use `methods`",
  statusCodesToRetry: "retry-axios's name: use `statusCodes` (a list of statuses)",
  backoffType: "retry-axios's name: use `jitter` and `factor`, or `delay` for a linear or fixed wait",
  onRetryAttempt: "retry-axios's name: use `onRetry`, called (and awaited) before each wait",
  onError: "retry-axios's name: use `onRetry`, called before each wait",
  maxRetryDelay: "retry-axios's name: use `maxDelay`",
  checkRetryAfter: "retry-axios's name: Retry-After is always read, and `maxRetryAfter` caps it",
  instance: "retry-axios's name: `axiosBackoff(instance)` takes the instance",
  raxConfig: "retry-axios's config key: write its fields as options here",
  limit: "ky's and got's name: use `retries`",
  backoffLimit: "ky's and got's name: use `maxDelay` (`Infinity` is accepted)",
  afterStatusCodes: "ky's name: the server's timing headers are read on every retried status",
  totalTimeout: "ky's name: use `deadline`",
  timeout: "the client's own option, per attempt; `deadline` bounds the whole call",
  minTimeout: "p-retry's name: use `baseDelay`",
  maxTimeout: "p-retry's name: use `maxDelay`",
  randomize: "p-retry's name: use `jitter`",
  onFailedAttempt: "p-retry's name: use `onRetry`",
  maxRetryTime: "p-retry's name: use `deadline`",
  forever: "p-retry's name: `retries` is at most 100; `deadline` bounds a long retry",
  signal: "p-retry's name: give the signal to the request itself (fetch's `signal`, axios's `config.signal`)",
  unref: "p-retry's name: waits are ordinary timers here; abort the request's signal to end one",
  numOfAttempts:
    "exponential-backoff's name: use `retries`, the retries after the first attempt (`numOfAttempts - 1`)",
  startingDelay: "exponential-backoff's name: use `baseDelay`",
  timeMultiple: "exponential-backoff's name: use `factor`",
  delayFirstAttempt: "exponential-backoff's name: the first attempt is never delayed here",
  calculateDelay: "got's name: use `delay`",
  noise: "got's name: use `jitter`",
  errorCodes: "got's name: network errors are classified for you; `shouldRetry` decides any other",
  maxAttempts: 'use `retries`, the retries after the first attempt (`maxAttempts - 1`)',
  maxRetries: 'use `retries`',
  attempts: 'use `retries`, the retries after the first attempt',
  retryOn: 'use `statusCodes` (statuses) or `shouldRetry` (a function)',
};

/** What to write instead of `key`, when it is another library's option name. */
export function peerOptionHint(key: string): string | undefined {
  return Object.hasOwn(PEER_NAMES, key) ? PEER_NAMES[key as keyof PeerOptionNames] : undefined;
}
