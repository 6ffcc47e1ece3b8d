import { describe, expect, it } from 'vitest';
import { runAmplification } from '../src/amplification.js';
import { CONTENTION_JITTERS, runContention } from '../src/contention.js';
import { herdStrategies, runHerd } from '../src/herd.js';
import { sum } from '../src/stats.js';

// Conservation: every client finishes (succeeds or gives up) exactly once, and the calls the server counted are
// the attempts the clients' calls counted. A lost or doubled event breaks one of these.

describe('herd', () => {
  const config = { clients: 150, downFor: 2000, capacity: 30, latency: 10, seed: 11 };

  it.each(herdStrategies(6).map((s) => [s.id, s] as const))('%s', (_id, strategy) => {
    const r = runHerd(config, strategy);
    expect(r.finishes).toHaveLength(config.clients);
    expect(r.finishes.every((n) => n === 1)).toBe(true);
    expect(r.succeeded + r.gaveUp).toBe(config.clients);
    expect(r.calls).toBe(r.attempts);
    expect(sum(r.load.counts)).toBe(r.calls);
    expect(sum(Object.values(r.stopReasons))).toBe(r.gaveUp);
    // Nobody can make more attempts than the policy allows: 1 + retries, and a server-asked retry spends no
    // `retries` but a token of the client's own budget (20 by default in every row with Retry-After).
    const retries = strategy.options.retries ?? 3;
    const most = strategy.retryAfter ? Math.max(retries, 20) : retries;
    expect(r.calls).toBeLessThanOrEqual(config.clients * (1 + most));
    expect(r.calls).toBeGreaterThanOrEqual(config.clients);
  });
});

describe('contention', () => {
  it.each(CONTENTION_JITTERS.map((j) => j.jitter))('%s: every client commits exactly once', (jitter) => {
    const r = runContention(
      { clients: 30, latency: 10, baseDelay: 5, maxDelay: 2000, retries: 100, seed: 2 },
      jitter,
    );
    expect(r.finishes.every((n) => n === 1)).toBe(true);
    expect(r.committed + r.gaveUp).toBe(30);
    expect(r.gaveUp).toBe(0);
    expect(r.calls).toBe(r.attempts);
    expect(r.requests).toBe(2 * r.calls);
    // Each commit bumps the row's version once, and only a commit ends a request well: exactly 30 writes won.
    expect(r.calls).toBeGreaterThan(30);
  });

  it('counts a client that runs out of retries as given up, once', () => {
    const r = runContention(
      { clients: 30, latency: 10, baseDelay: 5, maxDelay: 2000, retries: 1, seed: 2 },
      'none',
    );
    expect(r.gaveUp).toBeGreaterThan(0);
    expect(r.committed + r.gaveUp).toBe(30);
    expect(r.finishes.every((n) => n === 1)).toBe(true);
    expect(r.calls).toBeLessThanOrEqual(60);
  });
});

describe('amplification', () => {
  it.each([false, true])('budget %s', (budget) => {
    const config = { rate: 20, duration: 15_000, failFrom: 3000, failTo: 9000, latency: 10, seed: 1 };
    const r = runAmplification(config, budget);
    expect(r.requests).toBe(300);
    expect(r.finishes.every((n) => n === 1)).toBe(true);
    expect(r.calls).toBe(r.attempts);
    expect(sum(r.load.counts)).toBe(r.calls);
    expect(sum(r.offered.counts)).toBe(r.requests);
    expect(sum(r.phases.map((p) => p.requests))).toBe(r.requests);
    expect(sum(r.phases.map((p) => p.calls))).toBe(r.calls);
    expect(sum(r.phases.map((p) => p.failed))).toBe(r.failed);
  });
});
