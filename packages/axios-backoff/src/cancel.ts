import type { InternalAxiosRequestConfig } from 'axios';
import { type CancelTokenListeners, canceledError } from './axios-compat.js';

/**
 * The error axios itself throws for a request that is cancelled before it is sent (its dispatch check): the
 * cancel token's reason, or a `CanceledError` for an aborted signal. `undefined` while neither has fired.
 */
export function cancellation(config: InternalAxiosRequestConfig): unknown {
  const reason = config.cancelToken?.reason;
  if (reason !== undefined) return reason;
  if (config.signal?.aborted) return canceledError(config);
  return undefined;
}

const noRelease = (): void => {};
// The request's own signal needs no bridge: nothing to release (one object for every such request).
const NO_BRIDGE = { signal: undefined, release: noRelease };

/**
 * One AbortSignal for the core's wait that fires when the request's `signal` or (deprecated) `cancelToken`
 * does. axios accepts any signal-like object with `aborted` and `addEventListener`, so it is bridged unless it
 * is a real AbortSignal. `release` removes the bridge's listeners.
 */
export function waitSignal(config: InternalAxiosRequestConfig): {
  signal: AbortSignal | undefined;
  release: () => void;
} {
  const { signal } = config;
  const cancelToken = config.cancelToken as (typeof config.cancelToken & CancelTokenListeners) | undefined;
  const native = typeof AbortSignal !== 'undefined' && signal instanceof AbortSignal;
  if (cancelToken === undefined && (signal === undefined || native)) {
    return signal === undefined ? NO_BRIDGE : { signal, release: noRelease };
  }
  const controller = new AbortController();
  const abort = () => controller.abort();
  cancelToken?.subscribe(abort);
  signal?.addEventListener?.('abort', abort);
  if (signal?.aborted || cancelToken?.reason !== undefined) abort();
  return {
    signal: controller.signal,
    release: () => {
      cancelToken?.unsubscribe(abort);
      signal?.removeEventListener?.('abort', abort);
    },
  };
}
