import type { BackoffResult } from './events.js';

// A registered symbol, so two copies of this package installed side by side read each other's results.
const RESULT: unique symbol = Symbol.for('backoff-core.result') as never;

/** Attaches a call's result to the response or error the caller gets (non-enumerable: logs stay clean). */
export function attachResult<T>(target: T, result: BackoffResult): T {
  if ((typeof target === 'object' && target !== null) || typeof target === 'function') {
    try {
      Object.defineProperty(target, RESULT, { value: result, configurable: true, writable: true });
    } catch {
      // A frozen object cannot carry it; the call's outcome matters more than its metadata.
    }
  }
  return target;
}

/**
 * The attempts made and the total wait of the call that produced `value` (a response or an error from any of
 * the backoff packages), or `undefined` when it did not go through one.
 */
export function getBackoffResult(value: unknown): BackoffResult | undefined {
  // A primitive reads its prototype's (none); only null and undefined have no properties at all.
  return (value as { [RESULT]?: BackoffResult } | null | undefined)?.[RESULT];
}
