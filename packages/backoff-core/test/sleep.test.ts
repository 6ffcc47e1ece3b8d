import { getEventListeners } from 'node:events';
import { sleep, type TimerProvider } from 'backoff-core/adapter';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { abortReason, defaultTimers, expiring } from '../src/run/sleep.ts';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

/** Records how a promise settled, without ever leaving a rejection unhandled. */
function track(promise: Promise<void>) {
  const state: { settled: 'pending' | 'resolved' | 'rejected'; reason?: unknown } = { settled: 'pending' };
  promise.then(
    () => {
      state.settled = 'resolved';
    },
    (reason: unknown) => {
      state.settled = 'rejected';
      state.reason = reason;
    },
  );
  return state;
}

describe('sleep (vi fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after exactly the delay and leaves no timer behind', async () => {
    const state = track(sleep(1000));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(state.settled).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(state.settled).toBe('resolved');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('removes its abort listener when the wait ends', async () => {
    const controller = new AbortController();
    const state = track(sleep(500, controller.signal));
    expect(listeners(controller.signal)).toBe(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(state.settled).toBe('resolved');
    expect(listeners(controller.signal)).toBe(0);
    // A later abort changes nothing (and rejects nothing).
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.settled).toBe('resolved');
  });

  it('rejects at once with signal.reason on abort and clears its timer and listener', async () => {
    const controller = new AbortController();
    const state = track(sleep(10_000, controller.signal));
    await vi.advanceTimersByTimeAsync(200);
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await Promise.resolve();
    expect(state).toEqual({ settled: 'rejected', reason });
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners(controller.signal)).toBe(0);
  });

  it("rejects with the signal's default AbortError when aborted without a reason", async () => {
    const controller = new AbortController();
    const pending = sleep(1000, controller.signal);
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    expect(error).toBe(controller.signal.reason);
  });

  it('with an already-aborted signal rejects without setting a timer or a listener', async () => {
    const reason = new Error('already gone');
    const signal = AbortSignal.abort(reason);
    const add = vi.spyOn(signal, 'addEventListener');
    const timers: TimerProvider = { setTimeout: vi.fn(), clearTimeout: vi.fn() };
    await expect(sleep(1000, signal, timers)).rejects.toBe(reason);
    await expect(sleep(1000, signal)).rejects.toBe(reason);
    expect(timers.setTimeout).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
    expect(add).not.toHaveBeenCalled();
  });

  it('the default timers look the globals up at call time, so fake timers installed later apply', async () => {
    const state = track(new Promise<void>((resolve) => defaultTimers.setTimeout(resolve, 50)));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(50);
    expect(state.settled).toBe('resolved');
  });
});

describe('sleep with an injected TimerProvider', () => {
  it('sets one timer of the given length and clears it on abort', async () => {
    let fire: (() => void) | undefined;
    const timers = {
      setTimeout: vi.fn((callback: () => void) => {
        fire = callback;
        return 'handle-1';
      }),
      clearTimeout: vi.fn(),
    };
    const controller = new AbortController();
    const state = track(sleep(250, controller.signal, timers));
    expect(timers.setTimeout).toHaveBeenCalledTimes(1);
    expect(timers.setTimeout).toHaveBeenCalledWith(expect.any(Function), 250);
    controller.abort();
    await Promise.resolve();
    expect(state.settled).toBe('rejected');
    expect(timers.clearTimeout).toHaveBeenCalledWith('handle-1');
    // A timer provider that fires late anyway changes nothing.
    fire?.();
    await Promise.resolve();
    expect(state.settled).toBe('rejected');
  });

  it('leaves no listener behind when the provider calls back synchronously (an "instant" fake)', async () => {
    const instant: TimerProvider = {
      setTimeout: (callback) => {
        callback();
        return 0;
      },
      clearTimeout: () => {},
    };
    const controller = new AbortController();
    await sleep(5000, controller.signal, instant);
    expect(listeners(controller.signal)).toBe(0);
  });

  it('abortReason falls back to an AbortError for a signal without a reason', () => {
    const reason = abortReason({ aborted: true, reason: undefined } as AbortSignal);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('AbortError');
    const given = new Error('x');
    expect(abortReason(AbortSignal.abort(given))).toBe(given);
  });
});

describe('expiring: a signal that follows another and aborts at a set time once armed', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sets no timer until armed, then aborts at its time with its reason, saying it expired', async () => {
    const late = new Error('late');
    const limit = expiring(undefined, 3000, () => late, defaultTimers);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(limit.signal.aborted).toBe(false);
    limit.arm();
    limit.arm();
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(2999);
    expect(limit.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(limit.signal.reason).toBe(late);
    expect(limit.expired).toBe(true);
    limit.release();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('follows the signal it was given, without expiring; release clears the timer', () => {
    const caller = new AbortController();
    const limit = expiring(caller.signal, 3000, () => new Error('late'), defaultTimers);
    limit.arm();
    caller.abort('stop');
    expect(limit.signal.reason).toBe('stop');
    expect(limit.expired).toBe(false);
    limit.release();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('without AbortSignal.any, release removes the listeners it added', () => {
    const any = AbortSignal.any;
    Object.defineProperty(AbortSignal, 'any', { value: undefined, configurable: true });
    try {
      const caller = new AbortController();
      const limit = expiring(caller.signal, 3000, () => new Error('late'), defaultTimers);
      expect(listeners(caller.signal)).toBe(1);
      limit.release();
      expect(listeners(caller.signal)).toBe(0);
    } finally {
      Object.defineProperty(AbortSignal, 'any', { value: any, configurable: true });
    }
  });
});
