import type { AxiosError, AxiosResponse } from 'axios';
import type { BackoffOptions, BackoffResult } from 'backoff-core';

/**
 * The options of `axiosBackoff(instance, options)` and of a request's `backoff`: exactly backoff-core's options,
 * with the same names and defaults; `shouldRetry`, `delay` and `onRetry` get axios's own `AxiosResponse` and
 * `AxiosError`.
 */
export type AxiosBackoffOptions = BackoffOptions<AxiosResponse, AxiosError>;

// Declared without type parameters, as axios's own interfaces grew one between 1.13 and 1.21: a parameter list
// here would have to match one version exactly.
declare module 'axios' {
  interface AxiosRequestConfig {
    /**
     * Retry options for this request, laid over the ones given to `axiosBackoff` (same names); `false` sends it
     * once, with no retry.
     * @default undefined (the options given to `axiosBackoff`)
     */
    backoff?: AxiosBackoffOptions | false | undefined;
  }

  interface AxiosResponse {
    /**
     * Attempts made and time waited by the call that produced this response; set when it went through
     * axios-backoff (also readable with `getBackoffResult(response)`).
     */
    backoff?: BackoffResult | undefined;
  }

  interface AxiosError {
    /**
     * Attempts made and time waited by the call that ended in this error; set when it went through
     * axios-backoff (also readable with `getBackoffResult(error)`).
     */
    backoff?: BackoffResult | undefined;
  }
}
