import { describe, expect, it } from 'vitest';
import { parseCli } from '../src/cli.js';
import { meetsTargets, p99Target, peakTarget, runHerdMatrix } from '../src/herd-matrix.js';
import { herdMatrixReport } from '../src/herd-matrix-report.js';

describe('the herd-matrix command', () => {
  it('runs alone, with the fleets and outages of the matrix by default', () => {
    const config = parseCli(['herd-matrix']) ?? expect.unreachable();
    expect(config.scenarios).toEqual(['herd-matrix']);
    expect(config.herdMatrix).toEqual({
      clients: [300, 1000, 5000],
      outages: [3, 10, 30],
      capacity: 200,
      latency: 10,
      seed: 1,
      startSpread: 100,
      options: { deadline: 120_000 },
    });
  });

  it('takes --clients and --outage as lists', () => {
    const config = parseCli(['herd-matrix', '--clients', '50, 200', '--outage', '2.5,7', '--seed', '3']);
    expect(config?.herdMatrix).toMatchObject({ clients: [50, 200], outages: [2.5, 7], seed: 3 });
    expect(parseCli(['herd-matrix', '--quick'])?.herdMatrix).toMatchObject({
      clients: [100, 300],
      outages: [3, 10],
    });
  });

  it('names the flag or the command that is wrong', () => {
    expect(() => parseCli(['herd-matrix', '--clients', '300,x'])).toThrow(
      new RangeError(
        'Expected `--clients` to be a comma-separated list of integers from 1 to 1000000, got "300,x".',
      ),
    );
    expect(() => parseCli(['herd-matrix', '--outage', '3,,10'])).toThrow(/`--outage`.*"3,,10"/);
    expect(() => parseCli(['herd-matrix', '--outage', '-1'])).toThrow(TypeError);
    expect(() => parseCli(['--outage', '3'])).toThrow(
      new TypeError('Expected `--outage` only with `herd-matrix`.'),
    );
    expect(() => parseCli(['herd-matrix', '--only', 'herd'])).toThrow(/`--only`/);
    expect(() => parseCli(['storm'])).toThrow(
      new TypeError('Expected no command or `herd-matrix`, got "storm".'),
    );
    expect(() => parseCli(['herd-matrix', 'herd'])).toThrow(/"herd-matrix herd"/);
  });
});

describe('the matrix', () => {
  const config = {
    clients: [40, 120],
    outages: [2, 5],
    capacity: 20,
    latency: 10,
    seed: 1,
    startSpread: 100,
    options: { deadline: 120_000 },
  };

  it('runs every fleet against every outage, and each client finishes exactly once', () => {
    const cells = runHerdMatrix(config);
    expect(cells.map((c) => [c.clients, c.outage])).toEqual([
      [40, 2000],
      [40, 5000],
      [120, 2000],
      [120, 5000],
    ]);
    for (const cell of cells) {
      expect(cell.result.finishes.every((n) => n === 1)).toBe(true);
      expect(cell.result.attempts).toBe(cell.result.calls);
      expect(cell.peakRatio).toBe(cell.result.peakAfterRecovery.count / 2);
    }
  });

  it('holds each cell to its targets: 2.5x up to 1,000 clients, 10x above; p99 within T + 1.5 N / C + 2 s', () => {
    expect([peakTarget(300), peakTarget(1000), peakTarget(5000)]).toEqual([2.5, 2.5, 10]);
    expect(p99Target(5000, 3000, 200)).toBe(3000 + 37_500 + 2000);
    const [cell] = runHerdMatrix({ ...config, clients: [40], outages: [2] });
    const met = cell ?? expect.unreachable();
    expect(meetsTargets(met)).toBe(
      met.result.gaveUp === 0 &&
        met.peakRatio <= 2.5 &&
        (met.result.completion.p99 ?? Number.POSITIVE_INFINITY) <= met.p99Target,
    );
    expect(meetsTargets({ ...met, peakTarget: 0 })).toBe(false);
    expect(meetsTargets({ ...met, p99Target: 0 })).toBe(false);
  });

  it('at its default sizes every cell meets every target: nobody gives up, the peak and the p99 within theirs', () => {
    const full = parseCli(['herd-matrix'])?.herdMatrix ?? expect.unreachable();
    const cells = runHerdMatrix(full);
    expect(cells).toHaveLength(9);
    for (const cell of cells) expect(meetsTargets(cell), `${cell.clients} / ${cell.outage} ms`).toBe(true);
  });

  it('a lone client told Retry-After: 10 finishes within 10 s plus the 3.5 s window', () => {
    const [cell] = runHerdMatrix({ ...config, clients: [1], outages: [10] });
    const r = cell?.result ?? expect.unreachable();
    expect(r.calls).toBe(2);
    // Its start (under 100 ms), four messages of 10 ms (sd 2 ms; 20 ms is 5 sd), 10 s and at most 3.5 s.
    expect(r.completion.max).toBeGreaterThanOrEqual(10_000);
    expect(r.completion.max).toBeLessThanOrEqual(100 + 10_000 + 3500 + 4 * 20);
  });

  it('reports a row per cell and a chart with a panel per cell', () => {
    const report = herdMatrixReport(config);
    expect(report.text.split('\n').filter((l) => /^\| +[\d,]+ /.test(l))).toHaveLength(4);
    expect(report.charts.map((c) => c.file)).toEqual(['herd-matrix.svg']);
    expect(report.charts[0]?.svg.match(/<polyline /g)).toHaveLength(4);
  });
});
