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
 * Waits `ms`, or rejects with the signal's reason as soon as it aborts. Either way the timer and the abort
 * listener are both gone when the promise settles.
 */
export function sleep(
  ms: number,
  signal?: AbortSignal | null,
  timers: TimerProvider = defaultTimers,
): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  // Without a signal there is nothing to listen to: one closure less for every request parked in a wait.
  if (signal === undefined || signal === null) {
    return new Promise<void>((resolve) => void timers.setTimeout(resolve, ms));
  }
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

/** Whether `value` is a promise or another thenable (what an async hook returns). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Settles like `promise`, unless the signal aborts first: then it rejects at once with the signal's reason,
 * and a later rejection of `promise` is handled here, so it never surfaces as an unhandled rejection. The abort
 * listener is gone once it settles.
 */
export function untilAborted<T>(promise: PromiseLike<T>, signal?: AbortSignal | null): Promise<T> {
  if (signal === undefined || signal === null) return Promise.resolve(promise);
  // Handled either way: if the signal wins, nobody else waits for this promise.
  const settled = Promise.resolve(promise);
  settled.catch(() => {});
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    settled.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * A signal that aborts when any of `signals` does: `AbortSignal.any` where there is one, else a controller whose
 * listeners `release` removes.
 */
export function anySignal(signals: AbortSignal[]): { signal: AbortSignal; release(): void } {
  if (typeof AbortSignal.any === 'function') return { signal: AbortSignal.any(signals), release() {} };
  const controller = new AbortController();
  const abort = () => {
    release();
    controller.abort(signals.find((signal) => signal.aborted)?.reason);
  };
  const release = () => {
    for (const signal of signals) signal.removeEventListener('abort', abort);
  };
  for (const signal of signals) signal.addEventListener('abort', abort, { once: true });
  if (signals.some((signal) => signal.aborted)) abort();
  return { signal: controller.signal, release };
}

/** A signal that follows another and, once armed, aborts at a set time (see `expiring`). */
export interface Expiring {
  readonly signal: AbortSignal;
  /** Whether it aborted at its time (not because the signal it follows did). */
  readonly expired: boolean;
  /** Starts the timer (once). */
  arm(): void;
  /** Clears the timer and the listeners: call it once the wait is over. */
  release(): void;
}

/**
 * A signal that aborts when `signal` does, or `ms` after `arm()` with `reason()`. Only armed where something is
 * waited for, so that a wait that ends at once sets no timer.
 */
export function expiring(
  signal: AbortSignal | undefined,
  ms: number,
  reason: () => unknown,
  timers: TimerProvider,
): Expiring {
  const controller = new AbortController();
  const { signal: either, release } = signal ? anySignal([signal, controller.signal]) : noRelease(controller);
  let timer: unknown;
  let expired = false;
  return {
    signal: either,
    get expired() {
      return expired;
    },
    arm() {
      timer ??= timers.setTimeout(() => {
        expired = true;
        controller.abort(reason());
      }, ms);
    },
    release() {
      if (timer !== undefined) timers.clearTimeout(timer);
      release();
    },
  };
}

const noRelease = (controller: AbortController) => ({ signal: controller.signal, release() {} });
