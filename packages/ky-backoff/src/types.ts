import type { BackoffOptions } from 'backoff-core';
// Type-only: it makes `ky` resolvable for the augmentation below, and is erased from the output.
import type {} from 'ky';

/**
 * The options of `kyBackoff(instance, options)` and of a request's `backoff`: exactly backoff-core's options,
 * with the same names and defaults.
 */
export type KyBackoffOptions = BackoffOptions;

/** The per-request option, for code that builds ky options by hand (`Options & KyBackoffRequestOptions`). */
export interface KyBackoffRequestOptions {
  /**
   * Retry options for this request, laid over the ones given to `kyBackoff` (same names); `false` sends it
   * once, with no retry.
   * @default undefined (the options given to `kyBackoff`)
   */
  backoff?: BackoffOptions | false | undefined;
}

/**
 * What kyBackoff needs of a ky instance: `ky` itself or any `ky.create()` / `.extend()` result, of ky 2.x or
 * 1.13+ (typed by shape, so both majors' instances fit). `retry` is ky's own retry-marker factory (ky 2 and 1.14+;
 * ky 1.13 has none).
 */
export interface KyInstanceLike {
  (input: never, options?: never): unknown;
  extend(defaults: never): unknown;
  retry?(options?: never): unknown;
}

declare module 'ky' {
  interface Options {
    /**
     * Retry options for this request, laid over the ones given to `kyBackoff` (same names); `false` sends it
     * once, with no retry. Read by kyBackoff's hooks (ky 2 does not pass it on to `fetch`).
     * @default undefined (the options given to `kyBackoff`)
     */
    backoff?: BackoffOptions | false | undefined;
  }
}
