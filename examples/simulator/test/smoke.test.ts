import { describe, expect, it } from 'vitest';
import { amplificationReport } from '../src/amplification-report.js';
import { parseCli } from '../src/cli.js';
import { AWS_RERUN_AT_100, contentionReport } from '../src/contention-report.js';
import { herdReport } from '../src/herd-report.js';
import { progress } from '../src/progress.js';

// Each scenario end to end at --quick sizes: the tables, the charts and the headline facts.
const config = parseCli(['--quick']) ?? expect.unreachable();

describe('smoke runs at --quick sizes', () => {
  it('herd: a row per strategy; immediate retry spends every retry and jitter finishes everyone', () => {
    const ticks: number[] = [];
    const report = herdReport(config.herd, (done) => ticks.push(done));
    expect(ticks).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const byId = new Map(report.results.map((r) => [r.strategy.id, r]));
    expect(byId.get('immediate')?.calls).toBe(config.herd.clients * 11);
    expect(byId.get('full')?.gaveUp).toBe(0);
    expect(byId.get('full')?.peakAfterRecovery.count).toBeLessThan(
      byId.get('exponential')?.peakAfterRecovery.count ?? 0,
    );
    // The server's own spread lowers the peak of clients that come back exactly when told.
    expect(byId.get('exact-server-spread')?.peakAfterRecovery.count).toBeLessThan(
      byId.get('exact-retry-after')?.peakAfterRecovery.count ?? 0,
    );
    expect(byId.get('defaults-server-spread')?.gaveUp).toBe(0);
    expect(report.text.split('\n').filter((l) => l.startsWith('| '))).toHaveLength(1 + 12);
    expect(report.charts.map((c) => c.file)).toEqual(['herd-load.svg']);
    expect(report.charts[0]?.svg.match(/<polyline /g)).toHaveLength(12);
  });

  it('contention: points for every size and jitter; no jitter does the most work', () => {
    const report = contentionReport(config.contention);
    expect(report.points.map((p) => p.clients)).toEqual([10, 10, 10, 10, 30, 30, 30, 30, 50, 50, 50, 50]);
    const at50 = report.points.filter((p) => p.clients === 50);
    const none = at50.find((p) => p.jitter === 'none')?.calls ?? 0;
    for (const p of at50) if (p.jitter !== 'none') expect(p.calls).toBeLessThan(none);
    expect(report.text).toContain('(No run at 100 clients');
    expect(report.charts.map((c) => c.file)).toEqual(['contention-calls.svg', 'contention-time.svg']);
    for (const chart of report.charts) expect(chart.svg.match(/<polyline /g)).toHaveLength(4);
  });

  it('contention at 100 clients lands within 15% of the AWS rerun, in the same order', () => {
    const report = contentionReport({ ...config.contention, minClients: 100, maxClients: 100, runs: 3 });
    for (const p of report.points) {
      const reference = AWS_RERUN_AT_100[p.jitter];
      expect(Math.abs(p.calls / reference.calls - 1)).toBeLessThan(0.15);
      expect(Math.abs(p.completion / reference.completion - 1)).toBeLessThan(0.15);
    }
    expect(report.text).toMatch(/\| full jitter +\| +[\d,]+ \| +795 \|/);
    expect(report.text).toMatch(/Fewest calls first — here: .*: the same order/);
    expect(report.text).toMatch(/Fastest first — here: .*: the same order/);
  });

  it('amplification: the budget holds the load near 1x during the outage', () => {
    const report = amplificationReport(config.amplification);
    const [without, withBudget] = report.results;
    const outage = (i: number) => report.results[i]?.phases[1] ?? expect.unreachable();
    expect(without?.budget).toBe(false);
    expect(withBudget?.budget).toBe(true);
    expect(outage(0).calls / outage(0).requests).toBeGreaterThan(2);
    expect(outage(1).calls / outage(1).requests).toBeLessThan(1.25);
    expect(report.text).toContain('the budget refused');
    expect(report.charts[0]?.svg.match(/<polyline /g)).toHaveLength(2);
  });
});

describe('progress', () => {
  it('prints each quarter when stderr is not a terminal', () => {
    const lines: string[] = [];
    const tick = progress('runs', { isTTY: false, write: (t) => lines.push(t) });
    for (let i = 1; i <= 8; i++) tick(i, 8);
    expect(lines).toEqual(['runs: 2/8 runs\n', 'runs: 4/8 runs\n', 'runs: 6/8 runs\n', 'runs: 8/8 runs\n']);
  });

  it('redraws one line on a terminal, at most every 100 ms, and ends it', () => {
    const out: string[] = [];
    let now = 5000;
    const tick = progress('runs', { isTTY: true, write: (t) => out.push(t) }, () => now);
    tick(1, 4);
    now += 99;
    tick(2, 4);
    now += 1;
    tick(3, 4);
    tick(4, 4);
    expect(out).toEqual(['\rruns: 1/4 runs', '\rruns: 3/4 runs', '\rruns: 4/4 runs\n']);
  });
});
