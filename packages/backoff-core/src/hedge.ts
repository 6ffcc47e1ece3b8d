import type { Attempts, Settled } from './attempts.js';
import { type Check, checked, fail, range } from './check.js';
import type { RetryState } from './decision.js';
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

/** The reason a losing copy is aborted with. */
function lost(): DOMException {
  return new DOMException('Another copy of this request answered first', 'AbortError');
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

/** How an attempt's race ended: with a copy's outcome, or interrupted (`onHedge` threw). */
export type Raced<T> = Settled<T> | { readonly ok: false; readonly interrupted: unknown };

/** What a race asks of a client: how to send a copy, what its result means, the caller's signal, a discard. */
export type Racing<T> = Pick<Attempts<T>, 'send' | 'outcome' | 'signal' | 'discard'>;

interface Copy {
  readonly number: number;
  readonly controller: AbortController;
  readonly release: () => void;
  readonly started: number;
  settled: boolean;
}

/**
 * One attempt, hedged: sends the first copy, then after `plan.delay` ms without an answer another (while the
 * call allows one: its budget, circuit and deadline), up to `plan.max` more. The first answer that settles the
 * race wins; every other copy is aborted at once and its late result discarded, never reported. Each copy is
 * sent with a signal of its own that also follows the caller's.
 */
export function race<T>(call: RetryState, attempts: Racing<T>, plan: HedgePlan): Promise<Raced<T>> {
  const { timers, now } = plan;
  if (plan.delay === undefined) {
    // Not hedged yet ('auto' before it learned a delay): one copy, timed.
    const started = now();
    return sendCopy(attempts, undefined).then((settled) => {
      call.won(1, attempts.outcome(settled), now() - started);
      return settled;
    });
  }
  const delay = plan.delay;
  const caller = attempts.signal();
  const copies: Copy[] = [];
  let done = false;
  let timer: unknown;
  return new Promise<Raced<T>>((resolve) => {
    const finish = (raced: Raced<T>, winner?: Copy) => {
      done = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      for (const copy of copies) {
        if (copy !== winner && !copy.settled) copy.controller.abort(lost());
        copy.release();
      }
      resolve(raced);
    };
    const settle = (copy: Copy, settled: Settled<T>) => {
      copy.settled = true;
      // A loser's late answer: let go of it (an unread body holds its connection).
      if (done) return attempts.discard?.(settled);
      const outcome = attempts.outcome(settled);
      const inFlight = copies.filter((other) => !other.settled).length;
      if (!settlesRace(call.retryable(outcome), inFlight)) return attempts.discard?.(settled);
      call.won(copy.number, outcome, now() - copy.started);
      finish(settled, copy);
    };
    const send = () => {
      const controller = new AbortController();
      const { signal, release } = caller ? anySignal([caller, controller.signal]) : noCombiner(controller);
      const copy: Copy = { number: copies.length + 1, controller, release, started: now(), settled: false };
      copies.push(copy);
      sendCopy(attempts, signal).then((settled) => settle(copy, settled));
      if (copies.length <= plan.max) timer = timers.setTimeout(hedge, delay);
    };
    const hedge = () => {
      timer = undefined;
      // The caller's abort ends every copy: none is added meanwhile.
      if (done || caller?.aborted) return;
      let allowed: boolean;
      try {
        allowed = call.hedge(copies.length + 1, delay);
      } catch (interrupted) {
        finish({ ok: false, interrupted });
        return;
      }
      if (allowed) send();
    };
    send();
  });
}

const noCombiner = (controller: AbortController) => ({ signal: controller.signal, release() {} });

/**
 * Sends one copy of the attempt and settles with its outcome, never rejecting. The one place every copy goes
 * through on its way out.
 */
function sendCopy<T>(attempts: Racing<T>, signal: AbortSignal | undefined): Promise<Settled<T>> {
  let sent: Promise<T>;
  try {
    sent = attempts.send(signal);
  } catch (error) {
    sent = Promise.reject(error);
  }
  return sent.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}
