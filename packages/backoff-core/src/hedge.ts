import { type Check, checked, fail, range } from './check.js';
import type { Outcome } from './outcome.js';
import { describeValue } from './show.js';
import type { TimerProvider } from './sleep.js';

/** The `hedge` option: send a copy of an attempt that has not answered after `delay` ms. */
export interface HedgeOptions {
  /** Ms without an answer before a copy is sent, or `'auto'`: learned per origin from recent response times. */
  delay: number | 'auto';
  /**
   * Copies sent beyond the first, per attempt, at most (each `delay` after the previous one).
   * @default 1
   */
  max?: number | undefined;
}

/** The `hedge` option after validation. */
export interface ResolvedHedge {
  readonly delay: number | 'auto';
  readonly max: number;
}

/** What one attempt's race runs on: `delay` `undefined` means one copy, only timed (learning `'auto'`). */
export interface HedgePlan {
  readonly delay: number | undefined;
  readonly max: number;
  readonly timers: TimerProvider;
  readonly now: () => number;
  /**
   * Asks to send copy `copy` (2: the first hedge), unanswered after `delay` ms: `false` when the call may not
   * (deadline, circuit, pacer, budget). Throws what `onHedge` threw: the call has then ended.
   */
  hedge(copy: number, delay: number): boolean;
  /** Whether an outcome is one another copy might improve on (a failure the default rules retry). */
  retryable(outcome: Outcome): boolean;
  /** Records the copy that answered the attempt, and how long a successful answer took (for `'auto'`). */
  won(copy: number, outcome: Outcome, elapsed: number): void;
}

const HEDGE_CHECKS: Readonly<Record<keyof HedgeOptions, Check>> = {
  delay: (value, name) => (value === 'auto' ? value : range()(value, name)),
  // More copies than that multiply the load of a slow backend for no gain in latency.
  max: range(10, 1, 'an integer'),
};

/** Checks the `hedge` option: `false` (none) or `{ delay, max }`. */
export const checkHedge: Check = (value, name) => {
  if (value === false) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(name, `false or { delay: ms | 'auto', max? }, got ${describeValue(value)}`);
  }
  const valid = checked(value, HEDGE_CHECKS, 'hedge', '', 'hedge.');
  if (valid.delay === undefined) fail('hedge.delay', `a number of ms or 'auto', got undefined`);
  return { delay: valid.delay, max: valid.max ?? 1 } as ResolvedHedge;
};

/** Samples kept per origin, the least that makes a learned delay, and the shortest learned delay (ms). */
const SAMPLES = 100;
const ENOUGH = 20;
const FLOOR = 10;

/**
 * The recent response times of a policy, per origin, for `hedge: { delay: 'auto' }`: the last 100 answers'
 * times, and the hedge delay they give (their 95th percentile, at least 10 ms) once 20 are known. Pure: the
 * caller measures the times with its own clock.
 */
export class ResponseTimes {
  readonly #origins = new Map<string, { samples: number[]; next: number; delay: number | undefined }>();

  /** Records one answer from `origin` that took `ms`. */
  record(origin: string, ms: number): void {
    let times = this.#origins.get(origin);
    if (times === undefined) {
      times = { samples: [], next: 0, delay: undefined };
      this.#origins.set(origin, times);
    }
    times.samples[times.next] = ms;
    times.next = (times.next + 1) % SAMPLES;
    times.delay = undefined;
  }

  /** The hedge delay learned for `origin`, or `undefined` while fewer than 20 answers are known. */
  delay(origin: string): number | undefined {
    const times = this.#origins.get(origin);
    if (times === undefined || times.samples.length < ENOUGH) return undefined;
    if (times.delay === undefined) {
      const sorted = [...times.samples].sort((a, b) => a - b);
      const p95 = sorted[Math.ceil(sorted.length * 0.95) - 1] as number;
      times.delay = Math.max(FLOOR, Math.ceil(p95));
    }
    return times.delay;
  }
}

/**
 * Whether a copy's outcome ends the race at once: a success, or a failure no other copy can improve on. A
 * retryable failure ends it only when no other copy is still in flight (then it is the attempt's outcome).
 */
export function settlesRace(retryable: boolean, inFlight: number): boolean {
  return !retryable || inFlight === 0;
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
