import { type Backoff, type BackoffResult, createBackoff, RetryBudget } from 'backoff-core';
import { isRetryBudget, type Outcome, type TimerProvider } from 'backoff-core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { run } from './support/calls.ts';

describe('RetryBudget accounting', () => {
  it('starts full: reserve 20, ratio 0.1 by default', () => {
    const budget = new RetryBudget();
    expect(budget.snapshot()).toEqual({ tokens: 20, capacity: 20, acquired: 0, refused: 0, successes: 0 });
    expect(budget.available).toBe(20);
  });

  it('spends one token per retry and refuses, taking nothing, when less than one is left', () => {
    const budget = new RetryBudget({ reserve: 2, ratio: 0.1 });
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.tryAcquire()).toBe(false);
    expect(budget.tryAcquire()).toBe(false);
    expect(budget.snapshot()).toEqual({ tokens: 0, capacity: 2, acquired: 2, refused: 2, successes: 0 });
  });

  it('earns exactly `ratio` per success: 9 successes are not a retry, 10 are', () => {
    const budget = new RetryBudget({ reserve: 2, ratio: 0.1 });
    budget.tryAcquire();
    budget.tryAcquire();
    for (let i = 0; i < 9; i++) budget.recordSuccess();
    expect(budget.snapshot().tokens).toBe(0.9);
    expect(budget.available).toBe(0);
    expect(budget.tryAcquire()).toBe(false);
    budget.recordSuccess();
    expect(budget.snapshot().tokens).toBe(1);
    expect(budget.tryAcquire()).toBe(true);
    expect(budget.snapshot()).toEqual({ tokens: 0, capacity: 2, acquired: 3, refused: 1, successes: 10 });
  });

  it('keeps integer-scaled tokens: 10,000 x 0.1 is exactly 1000 (floating point would drift)', () => {
    const budget = new RetryBudget({ reserve: 2000, ratio: 0.1 });
    for (let i = 0; i < 2000; i++) budget.tryAcquire();
    expect(budget.snapshot().tokens).toBe(0);
    for (let i = 0; i < 10_000; i++) budget.recordSuccess();
    expect(budget.snapshot().tokens).toBe(1000);
    expect(budget.available).toBe(1000);
  });

  it('never holds more than its capacity', () => {
    const budget = new RetryBudget({ reserve: 2, ratio: 0.5 });
    budget.tryAcquire();
    for (let i = 0; i < 100; i++) budget.recordSuccess();
    expect(budget.snapshot()).toMatchObject({ tokens: 2, capacity: 2, successes: 100 });
  });

  it('reserve 0 refuses every retry; ratio 0 never earns; ratio 1 earns a retry per success', () => {
    const none = new RetryBudget({ reserve: 0 });
    none.recordSuccess();
    expect(none.tryAcquire()).toBe(false);
    const noEarning = new RetryBudget({ reserve: 1, ratio: 0 });
    noEarning.tryAcquire();
    for (let i = 0; i < 50; i++) noEarning.recordSuccess();
    expect(noEarning.tryAcquire()).toBe(false);
    const generous = new RetryBudget({ reserve: 1, ratio: 1 });
    generous.tryAcquire();
    generous.recordSuccess();
    expect(generous.tryAcquire()).toBe(true);
  });

  it('a throttling retry costs 5/14 of a retry (the AWS SDK quota: 5 tokens against 14)', () => {
    const budget = new RetryBudget({ reserve: 1 });
    expect(budget.tryAcquire('throttling')).toBe(true);
    expect(budget.snapshot().tokens).toBe(0.643);
    expect(budget.tryAcquire('throttling')).toBe(true);
    expect(budget.tryAcquire('throttling')).toBe(false);
    // A full default bucket holds 56 throttling retries, 20 transient ones.
    const full = new RetryBudget();
    let granted = 0;
    while (full.tryAcquire('throttling')) granted++;
    expect(granted).toBe(56);
    const free = new RetryBudget({ reserve: 0, throttlingCost: 0 });
    expect(free.tryAcquire('throttling')).toBe(true);
    expect(free.tryAcquire()).toBe(false);
  });

  it('explicit undefined options keep the defaults', () => {
    expect(new RetryBudget({ reserve: undefined, ratio: undefined }).snapshot().capacity).toBe(20);
  });

  it.each<[string, object, RegExp, typeof RangeError?]>([
    ['reserve -1', { reserve: -1 }, /`budget.reserve`/],
    ['reserve 1.5', { reserve: 1.5 }, /`budget.reserve`/],
    ['reserve NaN', { reserve: Number.NaN }, /`budget.reserve`/],
    ['reserve Infinity', { reserve: Number.POSITIVE_INFINITY }, /`budget.reserve`/],
    ['reserve above 1e9', { reserve: 1e9 + 1 }, /`budget.reserve`/],
    ["reserve '20'", { reserve: '20' }, /`budget.reserve` to be a number/, TypeError],
    ['ratio -0.1', { ratio: -0.1 }, /`budget.ratio`/],
    ['ratio 1.1', { ratio: 1.1 }, /`budget.ratio`/],
    ['ratio NaN', { ratio: Number.NaN }, /`budget.ratio`/],
    ["ratio '0.1'", { ratio: '0.1' }, /`budget.ratio` to be a number/, TypeError],
    ['throttlingCost -0.1', { throttlingCost: -0.1 }, /`budget.throttlingCost`/],
    ['throttlingCost 2', { throttlingCost: 2 }, /`budget.throttlingCost`/],
    ['throttlingCost NaN', { throttlingCost: Number.NaN }, /`budget.throttlingCost`/],
  ])(
    'bad options (%s) -> RangeError (TypeError for a non-number) naming the option',
    (_label, options, message, kind = RangeError) => {
      expect(() => new RetryBudget(options as never)).toThrow(kind);
      expect(() => new RetryBudget(options as never)).toThrow(message);
      // The same through createBackoff's `budget` option.
      expect(() => createBackoff({ budget: options as never })).toThrow(message);
    },
  );

  it.each<[string, unknown, RegExp]>([
    ['a misspelt key', { reserv: 5 }, /Unknown budget option `budget.reserv`/],
    ['an array', [], /Expected `budget` to be/],
  ])('bad budget options (%s) -> TypeError naming the problem', (_label, options, message) => {
    expect(() => new RetryBudget(options as never)).toThrow(TypeError);
    expect(() => createBackoff({ budget: options as never })).toThrow(message);
  });

  it('isRetryBudget matches by shape, so a budget from another copy of the package is accepted', () => {
    const foreign = { tryAcquire: () => true, recordSuccess: () => {} };
    expect(isRetryBudget(new RetryBudget())).toBe(true);
    expect(isRetryBudget(foreign)).toBe(true);
    expect(isRetryBudget({ reserve: 5 })).toBe(false);
    expect(isRetryBudget(null)).toBe(false);
    expect(createBackoff({ budget: foreign as unknown as RetryBudget }).budget).toBe(foreign);
  });

  it('property: tokens stay in [0, capacity] and match an exact integer model for any sequence', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.constantFrom('acquire', 'success'), { maxLength: 300 }),
        (reserve, ratio, operations) => {
          const budget = new RetryBudget({ reserve, ratio });
          const capacity = reserve * 1000;
          const credit = Math.round(ratio * 1000);
          let model = capacity;
          let acquired = 0;
          let refused = 0;
          for (const operation of operations) {
            if (operation === 'acquire') {
              const granted = budget.tryAcquire();
              expect(granted).toBe(model >= 1000);
              if (granted) {
                model -= 1000;
                acquired++;
              } else {
                refused++;
              }
            } else {
              budget.recordSuccess();
              model = Math.min(capacity, model + credit);
            }
            const { tokens } = budget.snapshot();
            expect(tokens).toBeGreaterThanOrEqual(0);
            expect(tokens).toBeLessThanOrEqual(reserve);
            expect(tokens).toBe(model / 1000);
          }
          expect(budget.snapshot()).toMatchObject({ acquired, refused });
        },
      ),
    );
  });
});

/** A seeded PRNG (mulberry32), so the "random" failures are the same on every run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// Waits end at once: the simulation is about decisions and load, not time.
const instant: TimerProvider = {
  setTimeout: (callback) => {
    callback();
    return 0;
  },
  clearTimeout: () => {},
};

interface Tally {
  requests: number;
  attempts: number;
  failedAttempts: number;
  retries: number;
  /** How each request ended. */
  final: Record<string, number>;
  /** Failed attempts that were refused a retry although `retries` was not used up. */
  failuresDenied: number;
}

/**
 * A client on the real runner and RetryBudget: `requests` GETs, each attempt failing with a 503 when `fails()`
 * says so. Returns what a server-side counter would see, plus how every request ended.
 */
async function simulate(
  policy: Backoff,
  requests: number,
  fails: () => boolean,
  unavailable: Outcome = { type: 'response', status: 503 },
): Promise<Tally> {
  const tally: Tally = { requests, attempts: 0, failedAttempts: 0, retries: 0, final: {}, failuresDenied: 0 };
  const ok: Outcome = { type: 'response', status: 200 };
  for (let i = 0; i < requests; i++) {
    let failed = false;
    const answer = () => {
      tally.attempts++;
      failed = fails();
      if (failed) tally.failedAttempts++;
      return failed ? unavailable : ok;
    };
    const { result } = await run(policy, answer, { method: 'GET', url: `https://api.test/items/${i}` });
    const { reason, attempts } = result as BackoffResult;
    tally.retries += attempts - 1;
    tally.final[reason] = (tally.final[reason] ?? 0) + 1;
    if (failed && attempts <= policy.options.retries) tally.failuresDenied++;
  }
  return tally;
}

describe('the retry budget bounds the load: 10,000 requests, up to 3 retries each, through the runner + RetryBudget', () => {
  const policy = (options = {}) =>
    createBackoff({ retries: 3, random: () => 0.5, timers: instant, now: () => 0, ...options });

  it('at 100% 503 without timing headers the load is 10,000 + reserve attempts (<= 1.01x), then the budget refuses', async () => {
    const client = policy();
    const tally = await simulate(client, 10_000, () => true);
    expect(tally.attempts).toBe(10_020);
    expect(tally.attempts).toBeLessThanOrEqual(1.01 * 10_000);
    expect(tally.retries).toBe(20);
    // Six requests spend 3 retries each (18), the seventh gets 2, then every request fails once.
    expect(tally.final).toEqual({ 'retries-exhausted': 6, 'budget-exhausted': 9994 });
    expect(client.budget?.snapshot()).toEqual({
      tokens: 0,
      capacity: 20,
      acquired: 20,
      refused: 9994,
      successes: 0,
    });
  });

  it('1,000 requests at 100% 503 with Retry-After: 1 on every answer: 1,020 attempts (<= 1.1x)', async () => {
    const client = policy();
    const tally = await simulate(client, 1000, () => true, {
      type: 'response',
      status: 503,
      headers: { 'retry-after': '1' },
    });
    expect(tally.attempts).toBe(1020);
    expect(tally.attempts).toBeLessThanOrEqual(1.1 * 1000);
    // A wait the server asked for spends no `retries`, and at most `serverRetries` (10) are taken per call: the
    // first two requests spend the reserve of 20, ten retries each.
    expect(tally.final).toEqual({ 'server-retries-exhausted': 2, 'budget-exhausted': 998 });
  });

  it('1,000 requests at 100% 429 with Retry-After: 1: throttling retries cost 5/14, so 56 of them, 1,056 attempts (<= 1.1x)', async () => {
    const client = policy();
    const tally = await simulate(client, 1000, () => true, {
      type: 'response',
      status: 429,
      headers: { 'retry-after': '1' },
    });
    expect(tally.attempts).toBe(1056);
    expect(tally.attempts).toBeLessThanOrEqual(1.1 * 1000);
  });

  it('(a, contrast) without a budget the same outage costs 4x the load', async () => {
    const tally = await simulate(policy({ budget: false }), 10_000, () => true);
    expect(tally.attempts).toBe(40_000);
  });

  it('(b) at 5% random failure every retryable failure gets its retries: no budget-exhausted at all', async () => {
    const client = policy();
    const random = mulberry32(20_261_202);
    const tally = await simulate(client, 10_000, () => random() < 0.05);
    expect(tally.final['budget-exhausted']).toBeUndefined();
    expect(tally.failuresDenied).toBe(0);
    expect(client.budget?.snapshot().refused).toBe(0);
    // Every failure was retried: one retry per failed attempt, and every request ended in success.
    expect(tally.retries).toBe(tally.failedAttempts);
    expect(tally.final).toEqual({ success: 10_000 });
    // The exact numbers of this seed (deterministic).
    expect(tally).toMatchObject({ attempts: 10_512, failedAttempts: 512, retries: 512 });
    expect(client.budget?.snapshot()).toEqual({
      tokens: 20,
      capacity: 20,
      acquired: 512,
      refused: 0,
      successes: 10_000,
    });
  });
});
