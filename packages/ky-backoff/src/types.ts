import type { BackoffOptions } from 'backoff-core';
// Type-only: it makes `ky` resolvable for the augmentation below, and is erased from the output.
import type {} from 'ky';

/** kyBackoff's options and a request's `backoff`: backoff-core's; callbacks get fetch's `Response` and ky's errors. */
export type KyBackoffOptions = BackoffOptions<Response, Error>;
/** The per-request option (`Options & KyBackoffRequestOptions`): laid over kyBackoff's; `false`: sent once. */
export interface KyBackoffRequestOptions {
  backoff?: KyBackoffOptions | false | undefined;
}
/** What kyBackoff needs of a ky instance, 2.x or 1.13+ (by shape); `retry`: ky's retry marker (2, 1.14+). */
export interface KyInstanceLike {
  (input: never, options?: never): unknown;
  extend(defaults: never): unknown;
  retry?(options?: never): unknown;
}
declare module 'ky' {
  interface Options extends KyBackoffRequestOptions {}
}
