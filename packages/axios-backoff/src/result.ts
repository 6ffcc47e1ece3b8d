import type { BackoffResult } from 'backoff-core';
import { attachResult } from 'backoff-core/adapter';

/**
 * Puts a call's result on the response or error the caller gets, twice: under backoff-core's symbol (so
 * `getBackoffResult` works as with every backoff package) and as the typed `backoff` property. Both are
 * non-enumerable, so logs and JSON of responses and errors stay as they were.
 */
export function withResult<T>(target: T, result: BackoffResult): T {
  attachResult(target, result);
  if ((typeof target === 'object' && target !== null) || typeof target === 'function') {
    try {
      Object.defineProperty(target, 'backoff', { value: result, configurable: true, writable: true });
    } catch {
      // A frozen error cannot carry it; `getBackoffResult` may still (or may not): the outcome matters more.
    }
  }
  return target;
}
