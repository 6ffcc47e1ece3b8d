import { describe, expect, it } from 'vitest';
import { runAmplification } from '../src/amplification.js';
import { runContention } from '../src/contention.js';
import { type HerdConfig, type HerdResult, herdStrategies, runHerd } from '../src/herd.js';
import { deriveSeed, mulberry32 } from '../src/rng.js';

const herd: HerdConfig = { clients: 200, downFor: 3000, capacity: 40, latency: 10, seed: 7 };
const strategy = (id: string) => herdStrategies(10).find((s) => s.id === id) ?? expect.unreachable(id);

/** Everything a run reports, as plain data. */
const numbers = (r: HerdResult) => ({
  calls: r.calls,
  gaveUp: r.gaveUp,
  completion: r.completion,
  peak: r.peak,
  load: r.load.counts,
  end: r.end,
});

describe('mulberry32', () => {
  it('gives the same sequence for a seed, in [0, 1)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const draws = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(draws);
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(draws).size).toBe(1000);
    expect(mulberry32(43)()).not.toBe(draws[0]);
  });

  it('derives different streams for different labels and seeds', () => {
    const seeds = new Set([
      deriveSeed(1, 'jitter', 0),
      deriveSeed(1, 'jitter', 1),
      deriveSeed(1, 'network'),
      deriveSeed(2, 'jitter', 0),
    ]);
    expect(seeds.size).toBe(4);
    expect(deriveSeed(1, 'jitter', 0)).toBe(deriveSeed(1, 'jitter', 0));
  });
});

describe('the same seed gives the same numbers, another seed other numbers', () => {
  it.each(['full', 'decorrelated', 'defaults-retry-after', 'exact-server-spread'])('herd, %s', (id) => {
    const first = numbers(runHerd(herd, strategy(id)));
    expect(numbers(runHerd(herd, strategy(id)))).toEqual(first);
    expect(numbers(runHerd({ ...herd, seed: 8 }, strategy(id)))).not.toEqual(first);
  });

  it('contention', () => {
    const config = { clients: 40, latency: 10, baseDelay: 5, maxDelay: 2000, retries: 100, seed: 3 };
    const first = runContention(config, 'full');
    expect(runContention(config, 'full')).toEqual(first);
    const other = runContention({ ...config, seed: 4 }, 'full');
    expect([other.calls, other.completion]).not.toEqual([first.calls, first.completion]);
  });

  it('amplification', () => {
    const config = { rate: 20, duration: 10_000, failFrom: 2000, failTo: 6000, latency: 10, seed: 5 };
    const pick = (budget: boolean, seed: number) => {
      const r = runAmplification({ ...config, seed }, budget);
      return { calls: r.calls, failed: r.failed, load: r.load.counts, end: r.end };
    };
    expect(pick(false, 5)).toEqual(pick(false, 5));
    expect(pick(false, 6)).not.toEqual(pick(false, 5));
  });
});
