import { abortReason, type TimerProvider } from './sleep.js';

/**
 * Where the core learns whether the device is online: in a browser or worker, `navigator.onLine` and the
 * `online` event. Inject your own (a test's fake, a React Native NetInfo bridge) through the `network` option.
 */
export interface NetworkStatus {
  /** `false` while the device is offline. */
  isOnline(): boolean;
  /** Calls `listener` when the device comes back online; returns a function that removes the listener. */
  onOnline(listener: () => void): () => void;
}

interface OnlineTarget {
  readonly navigator?: { readonly onLine?: unknown } | undefined;
  addEventListener?(type: 'online', listener: () => void): void;
  removeEventListener?(type: 'online', listener: () => void): void;
}

/**
 * The browser's network status: `navigator.onLine` and the `online` event on the global object (a window or a
 * worker's global scope). `undefined` where there is none: Node has a `navigator` but no `onLine` and no
 * global events, so it never waits for the network.
 */
export function browserNetworkStatus(): NetworkStatus | undefined {
  const scope = globalThis as OnlineTarget;
  const { addEventListener, removeEventListener } = scope;
  if (
    typeof scope.navigator?.onLine !== 'boolean' ||
    typeof addEventListener !== 'function' ||
    typeof removeEventListener !== 'function'
  ) {
    return undefined;
  }
  return {
    isOnline: () => scope.navigator?.onLine !== false,
    onOnline(listener) {
      addEventListener.call(scope, 'online', listener);
      return () => removeEventListener.call(scope, 'online', listener);
    },
  };
}

/**
 * Waits until `network` is online. Resolves `'online'` then, or `'deadline'` when `limit` ms pass first (no
 * limit: it waits as long as the device is offline); rejects with the signal's reason as soon as it aborts.
 * The listener, the timer and the abort listener are all gone when it settles.
 */
export function waitForNetwork(
  network: NetworkStatus,
  signal: AbortSignal | null | undefined,
  timers: TimerProvider,
  limit: number | undefined,
): Promise<'online' | 'deadline'> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (network.isOnline()) return Promise.resolve('online');
  return new Promise((resolve, reject) => {
    let done = false;
    let handle: unknown;
    let removeOnline: (() => void) | undefined;
    const settle = () => {
      done = true;
      removeOnline?.();
      signal?.removeEventListener('abort', onAbort);
      if (handle !== undefined) timers.clearTimeout(handle);
    };
    const onAbort = () => {
      settle();
      reject(abortReason(signal as AbortSignal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    removeOnline = network.onOnline(() => {
      // An `online` event can race a new `offline` one: only a device that is online now ends the wait.
      if (done || !network.isOnline()) return;
      settle();
      resolve('online');
    });
    // A source that called back while registering has already settled: its listener goes now.
    if (done) removeOnline();
    else if (limit !== undefined) {
      handle = timers.setTimeout(() => {
        handle = undefined;
        settle();
        resolve('deadline');
      }, limit);
    }
  });
}
