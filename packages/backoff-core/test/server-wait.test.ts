import { type BackoffOptions, createBackoff, RetryBudget } from 'backoff-core';
import { type Call, type Decision, type Outcome, startCall } from 'backoff-core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_REPEAT_FLOOR,
  MAX_WINDOW,
  repeatFloor,
  serverWait,
  serverWaitBound,
  serverWaitWindow,
} from '../src/decide/server-wait.ts';
import { next as decideNow } from './support/calls.ts';

const fixed = (value: number) => () => value;
const NONE = Number.POSITIVE_INFINITY;

const told = (seconds: number, status = 503): Outcome => ({
  type: 'response',
  status,
  headers: { 'retry-after': String(seconds) },
});
const failed: Outcome = { type: 'response', status: 503 };

/** A call on a clock that moves by each wait (answers take no time); random 0.5 and no budget unless given. */
function call(options: BackoffOptions = {}) {
  const clock = { t: 0 };
  const policy = createBackoff({ random: fixed(0.5), now: () => clock.t, budget: false, ...options });
  const state: Call = startCall(policy, { url: 'https://api.test/items' });
  const next = (outcome: Outcome): Decision => {
    const decision = decideNow(state, outcome);
    if (decision.retry) clock.t += decision.delay;
    return decision;
  };
  return { clock, state, next };
}

describe('serverWaitWindow: 1.5 x the delay, at most 3.5 s, doubled on each repeated ask, at most 30 s', () => {
  it.each([
    // serverDelay, told, window
    [0, 1, 150],
    [50, 1, 150],
    [100, 1, 150],
    [1000, 1, 1500],
    [2000, 1, 3000],
    [2333, 1, 3499.5],
    [3000, 1, 3500],
    [10_000, 1, 3500],
    [30_000, 1, 3500],
    [60_000, 1, 3500],
  ])('the first ask: server delay %i -> a window of %d ms', (serverDelay, told, window) => {
    expect(serverWaitWindow(serverDelay, told, 1)).toBe(window);
  });

  it.each([
    [1000, 2, 3000],
    [1000, 3, 6000],
    [1000, 4, 12_000],
    [1000, 5, 24_000],
    [1000, 6, 30_000],
    [3000, 2, 7000],
    [3000, 5, 30_000],
    [0, 2, 300],
    [0, 8, 19_200],
  ])('told again: server delay %i, ask %i -> a window of %i ms', (serverDelay, told, window) => {
    expect(serverWaitWindow(serverDelay, told, 1)).toBe(window);
  });

  it('a huge ask count stays at the widest window, never Infinity or NaN', () => {
    expect(serverWaitWindow(1000, 10_000, 1)).toBe(MAX_WINDOW);
    expect(serverWaitWindow(1000, 10_000, 0)).toBe(0);
  });

  it('retryAfterSpread scales every window, the caps included; 0 is no window at all', () => {
    expect(serverWaitWindow(1000, 1, 0.5)).toBe(750);
    expect(serverWaitWindow(10_000, 1, 2)).toBe(7000);
    expect(serverWaitWindow(1000, 6, 2)).toBe(60_000);
    expect(serverWaitWindow(10_000, 1, 0)).toBe(0);
    expect(serverWaitWindow(10_000, 4, 0)).toBe(0);
  });
});

describe('serverWait: the server delay, then a random share of the window', () => {
  it.each([
    // serverDelay, random, wait, closes
    [1000, 0, 1000, 2500],
    [1000, 0.5, 1750, 2500],
    [1000, 1, 2500, 2500],
    [10_000, 0.5, 11_750, 13_500],
    [10_000, 0.999, 13_496.5, 13_500],
    [30_000, 1, 33_500, 33_500],
  ])(
    'told once %i ms, random %d -> waits %d ms; its window closes at %i',
    (serverDelay, random, wait, closes) => {
      expect(serverWait(serverDelay, 1, 0, NONE, 1, fixed(random))).toEqual({ wait, closes });
    },
  );

  it('told again: the wait starts no sooner than the last window closes, and its window is twice as wide', () => {
    // The last window closes in 2.5 s; the server asks for 1 s: from 2.5 s, plus 0.5 x 3 s.
    expect(serverWait(1000, 2, 2500, NONE, 1, fixed(0.5))).toEqual({ wait: 4000, closes: 5500 });
    // A window that closes before the server's delay ends (or has closed) changes nothing.
    expect(serverWait(1000, 2, 400, NONE, 1, fixed(0.5))).toEqual({ wait: 2500, closes: 4000 });
    expect(serverWait(1000, 2, -3000, NONE, 1, fixed(0.5))).toEqual({ wait: 2500, closes: 4000 });
  });

  it('the window shrinks to fit under the ceiling: the waits spread over the room left, none past it', () => {
    expect(serverWait(2000, 1, 0, 2100, 1, fixed(0.5))).toEqual({ wait: 2050, closes: 2100 });
    expect(serverWait(2000, 1, 0, 2100, 1, fixed(1))).toEqual({ wait: 2100, closes: 2100 });
    expect(serverWait(60_000, 1, 0, 60_000, 1, fixed(0.5))).toEqual({ wait: 60_000, closes: 60_000 });
    // The rest of the last window does not push the start past the ceiling either.
    expect(serverWait(1000, 2, 50_000, 5000, 1, fixed(0.5))).toEqual({ wait: 5000, closes: 5000 });
  });

  it('a ceiling below the server delay never shortens it: the wait is the server delay exactly', () => {
    expect(serverWait(2000, 1, 0, 1500, 1, fixed(0.5))).toEqual({ wait: 2000, closes: 2000 });
    expect(serverWait(2000, 1, 0, -5, 1, fixed(0.5))).toEqual({ wait: 2000, closes: 2000 });
  });

  it('retryAfterSpread 0 waits exactly the server delay, whatever the ask count and the last window', () => {
    expect(serverWait(5000, 1, 0, NONE, 0, fixed(0.9))).toEqual({ wait: 5000, closes: 5000 });
    expect(serverWait(1000, 4, 2500, NONE, 0, fixed(0.9))).toEqual({ wait: 1000, closes: 1000 });
  });

  it.each([Number.NaN, 1.5, -1, Number.POSITIVE_INFINITY])(
    'random returning %d counts as 1, the longest (documented) wait',
    (bad) => {
      expect(serverWait(2000, 1, 0, 60_000, 1, fixed(bad)).wait).toBe(5000);
    },
  );

  it('a server delay and the floor on repeated asks are never shortened; the wait stays under the ceiling unless they pass it', () => {
    const anyRandom = fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true }), fc.double());
    // Whole ms up to 30 years either way, as the decider's times are (the clock's ms, a Retry-After in seconds, a
    // finite ceiling: maxRetryAfter caps it). Sums of whole ms below 2^53 are exact, so the bounds hold to the ms.
    const anyTime = fc.double({ min: -1e12, max: 1e12, noNaN: true }).map(Math.floor);
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e12, noNaN: true }).map(Math.floor),
        fc.integer({ min: 1, max: 10_000 }),
        anyTime,
        anyTime,
        fc.integer({ min: 0, max: 100 }).map((n) => n / 10),
        anyRandom,
        (serverDelay, told, left, ceiling, spread, r) => {
          const { wait, closes } = serverWait(serverDelay, told, left, ceiling, spread, () => r);
          const least = Math.max(serverDelay, repeatFloor(told));
          expect(wait).toBeGreaterThanOrEqual(least);
          expect(wait).toBeLessThanOrEqual(Math.max(least, ceiling));
          expect(wait).toBeLessThanOrEqual(closes);
          // 1 ms of slack for the float sum at 1e12 ms.
          expect(wait - Math.max(least, left)).toBeLessThanOrEqual(spread * MAX_WINDOW + 1);
        },
      ),
    );
  });
});

describe('repeatFloor: a repeated ask waits at least 100 ms, doubled with each repeat, at most 30 s', () => {
  it.each([
    [1, 0],
    [2, 100],
    [3, 200],
    [4, 400],
    [10, 25_600],
    [11, MAX_REPEAT_FLOOR],
    [10_000, MAX_REPEAT_FLOOR],
  ])('ask %i -> at least %i ms', (told, floor) => {
    expect(repeatFloor(told)).toBe(floor);
  });

  it('raises the start of a short wait, with or without a spread; a longer server delay is unchanged', () => {
    expect(serverWait(0, 1, 0, NONE, 0, fixed(0.5))).toEqual({ wait: 0, closes: 0 });
    expect(serverWait(0, 2, 0, NONE, 0, fixed(0.5))).toEqual({ wait: 100, closes: 100 });
    expect(serverWait(0, 4, 0, NONE, 0, fixed(0.5))).toEqual({ wait: 400, closes: 400 });
    // The window is the documented one (1.5 x 100 ms, doubled per repeat), above the floor.
    expect(serverWait(0, 2, 0, NONE, 1, fixed(0.5))).toEqual({ wait: 250, closes: 400 });
    expect(serverWait(1000, 4, 0, NONE, 0, fixed(0.5))).toEqual({ wait: 1000, closes: 1000 });
    // A ceiling below the floor does not shorten it: the decider stops such a retry instead.
    expect(serverWait(0, 3, 0, 50, 1, fixed(0.5))).toEqual({ wait: 200, closes: 200 });
  });
});

describe('serverWaitBound', () => {
  it('is twice maxRetryAfter: 2 minutes by default', () => {
    expect(serverWaitBound(60_000)).toBe(120_000);
    expect(serverWaitBound(0)).toBe(0);
  });
});

describe('a call told to wait, as the decider decides it', () => {
  it('a lone client told Retry-After: 10 waits 10 s plus at most the 3.5 s window', () => {
    for (const [random, wait] of [
      [0, 10_000],
      [0.5, 11_750],
      [1, 13_500],
    ] as const) {
      expect(call({ random: fixed(random) }).next(told(10))).toMatchObject({ retry: true, delay: wait });
    }
  });

  it('each repeated ask doubles the window and starts no sooner than the last window closes', () => {
    const { next, state } = call();
    // 1 s + 0.5 x 1.5 s; its window closes at 2.5 s.
    expect(next(told(1))).toMatchObject({ delay: 1750, serverDelay: 1000 });
    // At 1.75 s the last window has 0.75 s left, less than the server's 1 s: 1 s + 0.5 x 3 s. Closes at 5.75 s.
    expect(next(told(1))).toMatchObject({ delay: 2500 });
    // At 4.25 s the last window has 1.5 s left, more than the server's 1 s: 1.5 s + 0.5 x 6 s.
    expect(next(told(1))).toMatchObject({ delay: 4500 });
    expect(state.told).toBe(3);
    expect(state.serverAsked).toBe(3);
  });

  it('retryAfterSpread: 0 waits exactly what the server said, every time', () => {
    const { next } = call({ retryAfterSpread: 0, random: fixed(0.9) });
    expect([told(1), told(1), told(3)].map((o) => next(o))).toMatchObject([
      { delay: 1000 },
      { delay: 1000 },
      { delay: 3000 },
    ]);
  });

  it('a server-asked retry spends no `retries`: with retries 1, five asks are honoured, then one own retry', () => {
    const { next, state } = call({ retries: 1 });
    for (let i = 1; i <= 5; i++) expect(next(told(1))).toMatchObject({ retry: true, retryNumber: i });
    expect(next(failed)).toMatchObject({ retry: true, retryNumber: 6, serverDelay: undefined });
    expect(next(failed)).toStrictEqual({ retry: false, reason: 'retries-exhausted', serverDelay: undefined });
    expect(state).toMatchObject({ attempts: 7, told: 5, serverAsked: 5 });
  });

  it('own retries are counted whatever asks come between them', () => {
    const { next, state } = call({ retries: 2 });
    expect(next(failed)).toMatchObject({ retry: true });
    expect(next(told(2))).toMatchObject({ retry: true });
    expect(next(failed)).toMatchObject({ retry: true });
    expect(next(told(2))).toMatchObject({ retry: true });
    expect(next(failed)).toMatchObject({ retry: false, reason: 'retries-exhausted' });
    expect(state).toMatchObject({ attempts: 5, told: 2, serverAsked: 2 });
  });

  it('retries: 0 still means no retry at all, even when the server asks', () => {
    const { next, state } = call({ retries: 0 });
    expect(next(told(1))).toStrictEqual({ retry: false, reason: 'retries-exhausted', serverDelay: 1000 });
    expect(state).toMatchObject({ told: 1, serverAsked: 0 });
  });

  it('an answer that tells the call to wait counts as told even when it stops it', () => {
    const { next, state } = call();
    expect(next(told(120))).toMatchObject({ retry: false, reason: 'retry-after-too-long' });
    expect(state).toMatchObject({ told: 1, serverAsked: 0 });
  });

  it('without a deadline, a server that keeps asking holds the call at most 2 x maxRetryAfter from its first ask', () => {
    const { next, clock, state } = call({ maxRetryAfter: 10_000 });
    clock.t = 5000; // the bound counts from the first ask, not from the start
    const waits: number[] = [];
    let decision = next(told(1));
    for (; decision.retry; decision = next(told(1))) waits.push(decision.delay);
    // The windows grow, then shrink to fit under the 20 s bound; the sixth ask would end past it.
    expect(waits).toEqual([1750, 2500, 4500, 6500, 4125]);
    expect(decision).toStrictEqual({ retry: false, reason: 'deadline', serverDelay: 1000 });
    expect(clock.t - 5000).toBe(19_375);
    expect(state).toMatchObject({ told: 6, serverAsked: 5 });
  });

  it('with the default maxRetryAfter the bound is 2 minutes', () => {
    const { next, clock } = call();
    const waits: number[] = [];
    let decision = next(told(1));
    for (; decision.retry; decision = next(told(1))) waits.push(decision.delay);
    expect(waits).toEqual([1750, 2500, 4500, 9000, 18_000, 27_000, 30_000, 21_125]);
    // The ninth ask's floor (12.8 s) does not fit in the 6.125 s left of the 2 minutes.
    expect(decision).toMatchObject({ retry: false, reason: 'deadline' });
    expect(clock.t).toBe(113_875);
  });

  it('with a deadline, the deadline bounds the asks instead', () => {
    const { next, clock } = call({ deadline: 8000 });
    let decision = next(told(1));
    while (decision.retry) decision = next(told(1));
    expect(decision).toMatchObject({ retry: false, reason: 'deadline' });
    expect(clock.t).toBeLessThanOrEqual(8000);
  });

  it('the budget still bounds server-asked retries', () => {
    const budget = new RetryBudget({ reserve: 2 });
    const { next, state } = call({ budget });
    expect(next(told(1))).toMatchObject({ retry: true });
    expect(next(told(1))).toMatchObject({ retry: true });
    expect(next(told(1))).toStrictEqual({ retry: false, reason: 'budget-exhausted', serverDelay: 1000 });
    expect(state.serverAsked).toBe(2);
  });
});

describe('a server that keeps answering "now" (Retry-After: 0, a past date): bounded in count and in time', () => {
  const now = told(0);
  /** Every decision until the call stops (or a thousand: a loop), and the stop. */
  const until = (next: (outcome: Outcome) => Decision, outcome: () => Outcome = () => now) => {
    const waits: number[] = [];
    let decision = next(outcome());
    for (; decision.retry && waits.length < 1000; decision = next(outcome())) waits.push(decision.delay);
    return { waits, stop: decision };
  };

  it('with no spread and no budget, each repeat waits the floor, and the eleventh ask ends the call', () => {
    const { next, state, clock } = call({ retryAfterSpread: 0 });
    const { waits, stop } = until(next);
    expect(waits).toEqual([0, 100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600]);
    expect(stop).toStrictEqual({ retry: false, reason: 'server-retries-exhausted', serverDelay: 0 });
    expect(state).toMatchObject({ attempts: 11, told: 11, serverAsked: 10 });
    expect(clock.t).toBe(51_100);
  });

  it('a Retry-After date in the past is "now" too: the same floor and the same cap', () => {
    const { next, clock } = call({ retryAfterSpread: 0 });
    const past = (): Outcome => ({
      type: 'response',
      status: 503,
      headers: { 'retry-after': new Date(clock.t - 5000).toUTCString() },
    });
    const { waits, stop } = until(next, past);
    expect(waits).toEqual([0, 100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600]);
    expect(stop).toMatchObject({ retry: false, reason: 'server-retries-exhausted' });
  });

  it('a floor above maxRetryAfter ends the call as a delay above it would', () => {
    const { next, state } = call({ retryAfterSpread: 0, maxRetryAfter: 1000 });
    const { waits, stop } = until(next);
    expect(waits).toEqual([0, 100, 200, 400, 800]);
    expect(stop).toStrictEqual({ retry: false, reason: 'retry-after-too-long', serverDelay: 0 });
    expect(state.attempts).toBe(6);
    // maxRetryAfter: 0 takes the server's "now" once, never in a loop.
    expect(until(call({ retryAfterSpread: 0, maxRetryAfter: 0 }).next)).toEqual({
      waits: [0],
      stop: { retry: false, reason: 'retry-after-too-long', serverDelay: 0 },
    });
  });

  it('a wait of your own is raised to the floor, as to the server delay', () => {
    const { next } = call({ retryAfterSpread: 0, delay: () => 0, serverRetries: 4 });
    expect(until(next).waits).toEqual([0, 100, 200, 400]);
  });

  it('serverRetries raises the cap, and the floor stops doubling at 30 s; the time bound still ends the call', () => {
    const { next, state } = call({ retryAfterSpread: 0, serverRetries: 20 });
    const { waits, stop } = until(next);
    // 51.1 s of floors, then 30 s twice: a third 30 s would end past 2 x maxRetryAfter.
    expect(waits).toEqual([0, 100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
    expect(stop).toMatchObject({ retry: false, reason: 'deadline' });
    expect(state.serverAsked).toBe(12);
  });

  it('serverRetries: 0 takes no server-asked retry, and leaves the own retries as they are', () => {
    const { next, state } = call({ serverRetries: 0, retries: 2 });
    expect(next(failed)).toMatchObject({ retry: true, serverDelay: undefined });
    expect(next(told(1))).toStrictEqual({
      retry: false,
      reason: 'server-retries-exhausted',
      serverDelay: 1000,
    });
    expect(state).toMatchObject({ attempts: 2, serverAsked: 0 });
  });

  it('own retries and server-asked ones are capped apart: at most retries + serverRetries + 1 attempts', () => {
    const { next, state } = call({ retryAfterSpread: 0, retries: 2, serverRetries: 3 });
    const outcomes = [failed, now, now, failed, now, failed];
    expect(outcomes.map((o) => next(o).retry)).toEqual([true, true, true, true, true, false]);
    expect(state).toMatchObject({ attempts: 6, serverAsked: 3 });
    expect(state.last).toMatchObject({ reason: 'retries-exhausted' });
  });
});
