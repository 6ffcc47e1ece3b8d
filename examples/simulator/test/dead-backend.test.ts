import { describe, expect, it } from 'vitest';
import { parseCli } from '../src/cli.js';
import { runDeadBackend } from '../src/dead-backend.js';
import { deadBackendReport, TARGET_SHARE } from '../src/dead-backend-report.js';
import { sum } from '../src/stats.js';

// The breaker's targets, at the default sizes (100 calls/s, backend down 60 s: about 0.3 s of wall time).
const config = (parseCli([]) ?? expect.unreachable()).deadBackend;

describe('dead backend', () => {
  it('with the default breaker, <= 5 % of the calls after the trip reach the dead backend, and it recovers within one break plus a probe', async () => {
    const report = await deadBackendReport(config);
    const [without, withBreaker] = report.summaries;
    expect(withBreaker?.trippedAt).toBeGreaterThan(config.downFrom);
    expect(withBreaker?.shareAfterTrip).toBeLessThanOrEqual(TARGET_SHARE);
    expect(without?.shareAfterTrip).toBeGreaterThanOrEqual(1);
    const bound = (withBreaker?.breakAtReturn ?? 0) + 4 * config.latency;
    expect(withBreaker?.recovery).toBeLessThanOrEqual(bound);
    expect(withBreaker?.closedAt).toBeGreaterThanOrEqual(config.downTo);
    expect(without?.recovery).toBeLessThan(100);
    expect(report.text).toMatch(/target <= 5\.00 %: met/);
    expect(report.text).toMatch(/within one break plus a probe, [\d.]+ s: met/);
    expect(report.charts[0]?.svg.match(/<polyline /g)).toHaveLength(4);
  });

  it.each([false, true])(
    'conservation (breaker: %s): every call ends once; the metrics match the server',
    async (breaker) => {
      const quick = (parseCli(['--quick']) ?? expect.unreachable()).deadBackend;
      const r = await runDeadBackend(quick, breaker);
      expect(r.finished).toBe(r.calls);
      expect(r.metrics.calls).toBe(r.calls);
      // Every request the server saw is one the metrics counted as sent, and the other way round.
      expect(r.metrics.attempts).toBe(sum(r.load.counts));
      expect(r.metrics.circuitRefusals).toBe(r.failedFast);
      expect(r.metrics.circuitChanges.open).toBe(r.changes.filter((c) => c.to === 'open').length);
    },
  );

  it('is deterministic for a seed', async () => {
    const quick = (parseCli(['--quick']) ?? expect.unreachable()).deadBackend;
    const a = await runDeadBackend(quick, true);
    const b = await runDeadBackend(quick, true);
    expect(b.metrics).toEqual(a.metrics);
    expect(b.changes).toEqual(a.changes);
  });
});
