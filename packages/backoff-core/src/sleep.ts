/** Where waits get their timers. Inject fake ones in tests; the default uses the global timers. */
export interface TimerProvider {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

// Arrow functions look the globals up at call time, so fake timers installed after import still apply.
export const defaultTimers: TimerProvider = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};

/** The reason a signal was aborted with, or a standard AbortError when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts (R7). Either way the timer and the abort
 * listener are both gone when the promise settles.
 */
export function sleep(
  ms: number,
  signal?: AbortSignal | null,
  timers: TimerProvider = defaultTimers,
): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    let handle: unknown;
    const onAbort = () => {
      timers.clearTimeout(handle);
      reject(abortReason(signal as AbortSignal));
    };
    // The listener goes first: a provider that calls back synchronously must still find it to remove.
    signal?.addEventListener('abort', onAbort, { once: true });
    handle = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
  });
}
