import type { BackoffOptions } from 'backoff-core';
// Type-only: it makes `ky` resolvable for the augmentation below, and is erased from the output.
import type {} from 'ky';

/** The options of `kyBackoff(instance, options)` and of a request's `backoff`: exactly backoff-core's. */
export type KyBackoffOptions = BackoffOptions;

/** The per-request option, for code that builds ky options by hand (`Options & KyBackoffRequestOptions`). */
export interface KyBackoffRequestOptions {
  /** Options for this request, laid over kyBackoff's; `false` sends it once, with no retry. */
  backoff?: BackoffOptions | false | undefined;
}

/**
 * What kyBackoff needs of a ky instance, of ky 2.x or 1.13+ (typed by shape, so both majors fit). `retry` is ky's
 * own retry-marker factory (ky 2 and 1.14+).
 */
export interface KyInstanceLike {
  (input: never, options?: never): unknown;
  extend(defaults: never): unknown;
  retry?(options?: never): unknown;
}

declare module 'ky' {
  interface Options {
    /** Options for this request, laid over kyBackoff's; `false` sends it once, with no retry. */
    backoff?: BackoffOptions | false | undefined;
  }
}
