import { RetryBudget } from 'backoff-core';
import { describe, expect, it } from 'vitest';
import { runAmplification } from '../src/amplification.js';
import { runContention } from '../src/contention.js';
import { type HerdConfig, type HerdStrategy, runHerd } from '../src/herd.js';

// The simulator must run backoff-core's own code, not a copy: options go through createBackoff (and its
// validation), delays come from its computeDelay, budgets are its RetryBudget.

const herd: HerdConfig = { clients: 100, downFor: 3000, capacity: 20, latency: 10, seed: 1 };
const custom = (options: HerdStrategy['options']): HerdStrategy => ({
  id: 'custom',
  label: 'custom',
  options,
  retryAfter: false,
});

describe('the simulator drives backoff-core', () => {
  it("changing the core's jitter option changes the result", () => {
    const base = { retries: 8, baseDelay: 500, maxDelay: 10_000, budget: false } as const;
    const results = (['full', 'equal', 'decorrelated', 'none'] as const).map((jitter) => {
      const r = runHerd(herd, custom({ ...base, jitter }));
      return `${r.calls}/${r.completion.p50}/${r.end}`;
    });
    expect(new Set(results).size).toBe(4);
  });

  it("passes options through the core's validation", () => {
    expect(() => runHerd(herd, custom({ jitter: 'bogus' as 'full' }))).toThrow(
      new TypeError("Expected `jitter` to be one of 'full', 'equal', 'decorrelated', 'none', got \"bogus\"."),
    );
    expect(() => runHerd(herd, custom({ retries: 101 }))).toThrow(RangeError);
  });

  it('waits exactly what the core computes: no jitter, base x factor^(n-1)', () => {
    // No network delay and a server that never comes back: each client ends after its waits and nothing else.
    const down: HerdConfig = { ...herd, latency: 0, downFor: 1e9 };
    const wait = (factor: number) =>
      runHerd(down, custom({ retries: 3, baseDelay: 1000, maxDelay: 60_000, factor, jitter: 'none' })).end;
    expect(wait(2)).toBe(1000 + 2000 + 4000);
    expect(wait(3)).toBe(1000 + 3000 + 9000);
    // The cap applies before the (absent) jitter: 1000, 2000, 2500.
    expect(runHerd(down, custom({ retries: 3, baseDelay: 1000, maxDelay: 2500, jitter: 'none' })).end).toBe(
      5500,
    );
  });

  it("spends the core's RetryBudget: one shared budget of 5 allows 5 retries to the whole herd", () => {
    const budget = new RetryBudget({ reserve: 5, ratio: 0.1 });
    const r = runHerd({ ...herd, downFor: 1e9 }, custom({ retries: 3, budget }));
    expect(r.calls).toBe(herd.clients + 5);
    expect(budget.snapshot()).toMatchObject({ acquired: 5, refused: herd.clients, successes: 0 });
    // The 5 that got a retry fail again and are refused too: every client ends on the budget.
    expect(r.stopReasons).toEqual({ 'budget-exhausted': herd.clients });
  });

  it('honours Retry-After through the core: the defaults wait for the announced end of the outage', () => {
    const r = runHerd({ ...herd, downFor: 5000, capacity: 1000 }, { ...custom({}), retryAfter: true });
    // Every client is told "5 s" on its first 503 and comes back once: after 5 s plus at most 3.5 s (the core's
    // window for a 5 s server delay), plus four messages of 10 ms (sd 2 ms) each: 20 ms is 5 sd.
    expect(r.gaveUp).toBe(0);
    expect(r.calls).toBe(2 * herd.clients);
    expect(r.completion.p50).toBeGreaterThan(5000);
    expect(r.completion.max).toBeLessThanOrEqual(5000 + 3500 + 4 * 20);
  });

  it('with budget: false, the amplification run has no budget refusals; with the default one, it has', () => {
    const config = { rate: 50, duration: 20_000, failFrom: 5000, failTo: 15_000, latency: 10, seed: 1 };
    const without = runAmplification(config, false);
    const withBudget = runAmplification(config, true);
    expect(without.refused).toBe(0);
    expect(without.budgetBySecond).toEqual([]);
    // The default reserve (20) is what the outage gets; every later failure is refused.
    expect(withBudget.budgetBySecond[4]?.tokens).toBe(20);
    expect(withBudget.refused).toBeGreaterThan(400);
    expect(withBudget.calls).toBeLessThan(1.1 * withBudget.requests);
    expect(without.calls).toBeGreaterThan(2 * without.requests);
  });

  it('contention retries the 412 the core was told to retry, and commits every client', () => {
    const r = runContention(
      { clients: 20, latency: 10, baseDelay: 5, maxDelay: 2000, retries: 100, seed: 1 },
      'full',
    );
    expect(r.committed).toBe(20);
    expect(r.calls).toBeGreaterThan(20);
  });
});
