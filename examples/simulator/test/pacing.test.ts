import { describe, expect, it } from 'vitest';
import { parseCli } from '../src/cli.js';
import { PACING_STRATEGIES, runPacing } from '../src/pacing.js';
import { pacingReport } from '../src/pacing-report.js';
import { sum } from '../src/stats.js';

// At --quick sizes (25 calls/s for 2 s into 10 per second): a fraction of a second of wall time.
const config = (parseCli(['--quick']) ?? expect.unreachable()).pacing;

describe('pacing', () => {
  it('the Pacer gets fewer 429s than the same client without it, with headers and with bare 429s, and every call succeeds', async () => {
    const report = await pacingReport(config);
    const byId = new Map(report.results.map((r) => [r.strategy.id, r]));
    for (const r of report.results) expect(r.ok).toBe(r.calls);
    const paced = byId.get('pacer') ?? expect.unreachable();
    const unpaced = byId.get('backoff') ?? expect.unreachable();
    expect(paced.throttled).toBeLessThan(unpaced.throttled);
    expect(paced.throttled).toBeLessThan(byId.get('own')?.throttled ?? 0);
    expect(paced.requests).toBeLessThan(unpaced.requests);
    const pacedBare = byId.get('pacer-bare') ?? expect.unreachable();
    expect(pacedBare.throttled).toBeLessThan(byId.get('backoff-bare')?.throttled ?? 0);
    expect(report.text.split('\n').filter((l) => l.startsWith('| '))).toHaveLength(
      1 + PACING_STRATEGIES.length,
    );
    expect(report.charts[0]?.svg.match(/<polyline /g)).toHaveLength(2 * PACING_STRATEGIES.length);
  });

  it.each(PACING_STRATEGIES.map((s) => [s.id, s] as const))(
    'conservation (%s): every call ends once; the per-second counts add up to the totals',
    async (_id, strategy) => {
      const r = await runPacing(config, strategy);
      expect(r.finished).toBe(r.calls);
      expect(sum(r.completedPerSecond.counts)).toBe(r.calls);
      expect(sum(r.throttledPerSecond.counts)).toBe(r.throttled);
      expect(r.requests).toBeGreaterThanOrEqual(r.calls);
    },
  );

  it('with bare 429s the Pacer ends soon after the quota allows: within 1.3x the ideal, with 4x fewer 429s', async () => {
    // The default sizes: 50 calls/s for 4 s into 20 per second (a third of a second of wall time).
    const full = (parseCli([]) ?? expect.unreachable()).pacing;
    const strategy = (id: string) => PACING_STRATEGIES.find((s) => s.id === id) ?? expect.unreachable();
    const paced = await runPacing(full, strategy('pacer-bare'));
    const unpaced = await runPacing(full, strategy('backoff-bare'));
    const ideal = ((full.rate * full.duration) / 1000 / full.limit) * full.windowMs;
    expect(paced.ok).toBe(paced.calls);
    expect(paced.last).toBeLessThanOrEqual(1.3 * ideal);
    expect(paced.throttled * 4).toBeLessThanOrEqual(unpaced.throttled);
  });

  it('is deterministic for a seed', async () => {
    const strategy = PACING_STRATEGIES.find((s) => s.id === 'pacer-bare') ?? expect.unreachable();
    const a = await runPacing(config, strategy);
    const b = await runPacing(config, strategy);
    expect([b.requests, b.throttled, b.last]).toEqual([a.requests, a.throttled, a.last]);
  });
});
