import type { Jitter } from 'backoff-core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeDelay, type DelayOptions, exponentialDelay } from '../src/decide/delay.ts';
import { MAX_TIMER_DELAY } from '../src/options/validate.ts';

const DEFAULTS: DelayOptions = { baseDelay: 1000, maxDelay: 30_000, factor: 2, jitter: 'full' };
const opts = (overrides: Partial<DelayOptions> = {}): DelayOptions => ({ ...DEFAULTS, ...overrides });
const fixed = (value: number) => () => value;

describe('delay: exponential growth with the cap applied before jitter', () => {
  it.each([
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [4, 8000],
    [5, 16_000],
    [6, 30_000],
    [7, 30_000],
  ])('retry %i -> %i ms un-jittered (baseDelay 1000, factor 2, maxDelay 30000)', (retry, expected) => {
    expect(exponentialDelay(retry, DEFAULTS)).toBe(expected);
  });

  it('uses factor and baseDelay as given', () => {
    expect(exponentialDelay(3, opts({ baseDelay: 100, factor: 3 }))).toBe(900);
    expect(exponentialDelay(4, opts({ baseDelay: 250, factor: 1 }))).toBe(250);
    expect(exponentialDelay(3, opts({ baseDelay: 100, factor: 1.5 }))).toBe(225);
  });

  it('caps before jitter: full jitter at retry 6 draws from [0, 30000], not [0, 32000]', () => {
    expect(computeDelay(6, DEFAULTS, fixed(0.5))).toBe(15_000);
    expect(computeDelay(6, opts({ jitter: 'equal' }), fixed(0.5))).toBe(22_500);
    expect(computeDelay(6, opts({ jitter: 'none' }), fixed(0.5))).toBe(30_000);
  });

  it.each([
    [1e6, 30_000],
    [Number.MAX_SAFE_INTEGER, 30_000],
    [Number.MAX_VALUE, 30_000],
  ])('a huge retry number (%d) yields maxDelay, never Infinity or NaN', (retry, expected) => {
    expect(exponentialDelay(retry, DEFAULTS)).toBe(expected);
    expect(exponentialDelay(retry, opts({ factor: 100 }))).toBe(expected);
    for (const jitter of ['full', 'equal', 'decorrelated', 'none'] as const) {
      expect(Number.isFinite(computeDelay(retry, opts({ jitter }), fixed(0.5)))).toBe(true);
    }
  });

  it('a zero baseDelay stays 0 at any retry number (0 x Infinity would be NaN)', () => {
    expect(exponentialDelay(2000, opts({ baseDelay: 0 }))).toBe(0);
    expect(computeDelay(2000, opts({ baseDelay: 0, jitter: 'equal' }), fixed(0.5))).toBe(0);
    expect(exponentialDelay(5, opts({ baseDelay: 0, maxDelay: 0 }))).toBe(0);
  });
});

describe('delay: jitter with an injected random', () => {
  it.each<[Jitter, number, number, number]>([
    // jitter, retry, random, expected
    ['full', 1, 0, 0],
    ['full', 1, 0.25, 250],
    ['full', 1, 0.5, 500],
    ['full', 2, 0.5, 1000],
    ['full', 3, 0.75, 3000],
    ['full', 3, 0.999, 3996],
    ['equal', 1, 0, 500],
    ['equal', 1, 0.5, 750],
    ['equal', 2, 0.25, 1250],
    ['equal', 3, 0.5, 3000],
    ['none', 1, 0.9, 1000],
    ['none', 2, 0.1, 2000],
    ['none', 3, 0, 4000],
  ])('%s jitter, retry %i, random %d -> %d ms', (jitter, retry, random, expected) => {
    expect(computeDelay(retry, opts({ jitter }), fixed(random))).toBe(expected);
  });

  it.each([
    // previous, random, expected: uniform in [baseDelay, min(maxDelay, 3 x previous)], starting from baseDelay
    [undefined, 0, 1000],
    [undefined, 0.5, 2000],
    [2000, 0.5, 3500],
    [3500, 0.25, 3375],
    [20_000, 0.5, 15_500],
    [20_000, 0.999, 29_971],
    [100_000, 0.5, 15_500],
  ])('decorrelated jitter: previous %s, random %d -> %d ms', (previous, random, expected) => {
    expect(computeDelay(4, opts({ jitter: 'decorrelated' }), fixed(random), previous)).toBe(expected);
  });

  it('decorrelated jitter ignores the retry number: its state is the previous delay', () => {
    const decorrelated = opts({ jitter: 'decorrelated' });
    expect(computeDelay(1, decorrelated, fixed(0.5), 2000)).toBe(
      computeDelay(9, decorrelated, fixed(0.5), 2000),
    );
  });

  it.each([Number.NaN, 1.5, -1, Number.POSITIVE_INFINITY, -0.0001])(
    'random returning %d counts as 1, the longest (documented) wait',
    (bad) => {
      expect(computeDelay(1, opts({ jitter: 'full' }), fixed(bad))).toBe(1000);
      expect(computeDelay(2, opts({ jitter: 'equal' }), fixed(bad))).toBe(2000);
      expect(computeDelay(1, opts({ jitter: 'decorrelated' }), fixed(bad))).toBe(3000);
    },
  );

  it('random returning exactly 1 is accepted as it is', () => {
    expect(computeDelay(1, DEFAULTS, fixed(1))).toBe(1000);
  });
});

describe('delay properties', () => {
  const delayOptions = fc
    .record({
      a: fc.double({ min: 0, max: MAX_TIMER_DELAY, noNaN: true }),
      b: fc.double({ min: 0, max: MAX_TIMER_DELAY, noNaN: true }),
      factor: fc.double({ min: 1, max: 100, noNaN: true }),
      jitter: fc.constantFrom<Jitter>('full', 'equal', 'decorrelated', 'none'),
    })
    .map(({ a, b, factor, jitter }) => ({
      baseDelay: Math.min(a, b),
      maxDelay: Math.max(a, b),
      factor,
      jitter,
    }));
  // Any double at all, including NaN, infinities and values outside [0, 1).
  const anyRandom = fc.oneof(fc.double({ min: 0, max: 1, maxExcluded: true }), fc.double());

  it('a computed delay is always in [0, maxDelay]', () => {
    fc.assert(
      fc.property(
        delayOptions,
        fc.integer({ min: 1, max: 100_000 }),
        anyRandom,
        fc.option(fc.double({ min: 0, max: 2 * MAX_TIMER_DELAY, noNaN: true }), { nil: undefined }),
        (options, retry, r, previous) => {
          const delay = computeDelay(retry, options, () => r, previous);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(options.maxDelay);
        },
      ),
    );
  });

  it('a chain of decorrelated delays stays within [baseDelay, maxDelay]', () => {
    fc.assert(
      fc.property(delayOptions, fc.array(anyRandom, { minLength: 1, maxLength: 30 }), (options, draws) => {
        const decorrelated = { ...options, jitter: 'decorrelated' as const };
        let previous: number | undefined;
        draws.forEach((r, i) => {
          const delay = computeDelay(i + 1, decorrelated, () => r, previous);
          expect(delay).toBeGreaterThanOrEqual(options.baseDelay);
          expect(delay).toBeLessThanOrEqual(options.maxDelay);
          previous = delay;
        });
      }),
    );
  });
});
