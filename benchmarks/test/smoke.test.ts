import { beforeAll, describe, expect, it } from 'vitest';
import { AMPLIFICATION_VARIANTS, FAILURE_RATES } from '../src/amplification.js';
import type { Variant } from '../src/clients.js';
import { MEMORY_SUBJECTS } from '../src/memory.js';
import {
  OVERHEAD_VARIANTS,
  type OverheadResult,
  type OverheadRow,
  overheadVerdict,
  runOverhead,
} from '../src/overhead.js';
import { renderResults } from '../src/results.js';
import { memoryVerdicts } from '../src/results-overhead.js';
import { spread } from '../src/stats.js';
import { type BenchReport, QUICK, runSuite } from '../src/suite.js';

// Every measure at a tiny size: this checks that the bench runs and what its output looks like, never how
// fast anything is (the numbers of a real run are in RESULTS.md).
const realSetTimeout = globalThis.setTimeout;
let report: BenchReport;

beforeAll(async () => {
  report = await runSuite(QUICK, undefined, 'pnpm bench --quick');
});

describe('the bench at a tiny size', () => {
  it('measures the success-path overhead of every client, on the loopback and in-process', () => {
    for (const result of [report.overhead, report.overheadInProcess]) {
      expect(result?.rows.map((row) => row.variant.id)).toEqual(
        OVERHEAD_VARIANTS.map((variant) => variant.id),
      );
      for (const row of result?.rows ?? []) {
        expect(row.cpuUs.n).toBe(QUICK.overhead.rounds);
        expect(row.cpuUs.median).toBeGreaterThan(0);
        expect(Number.isFinite(row.ratio.median)).toBe(true);
      }
      expect(result?.rows.filter((row) => row.isBaseline).map((row) => row.variant.id)).toEqual([
        'axios',
        'ky',
        'fetch',
      ]);
    }
    expect(report.overhead?.server).toBe('loopback');
    expect(report.overheadInProcess?.server).toBe('in-process');
    // Every family has its A/A and calibration controls.
    for (const family of ['axios', 'ky', 'fetch']) {
      const ids = report.overheadInProcess?.rows.map((row) => row.variant.id);
      expect(ids).toContain(`${family}-control`);
      expect(ids).toContain(`${family}-calibration`);
    }
    // The smoke test runs unpinned (pinning its process would slow the tests beside it).
    expect(report.pinning).toBeUndefined();
    expect(report.overhead?.serverPinned).toBe(false);
  });

  it('counts attempts on the server side, with every wait instant and no timer left behind', () => {
    const rows = report.amplification?.rows ?? [];
    expect(rows.map((row) => row.variant.id)).toEqual(AMPLIFICATION_VARIANTS.map((variant) => variant.id));
    const at = (id: string, rate: number) =>
      rows.find((row) => row.variant.id === id)?.cells.find((cell) => cell.rate === rate);
    const requests = QUICK.amplification.requests ?? 0;
    for (const rate of FAILURE_RATES) {
      // Harness checks, not benchmarks: these follow from each library's documented defaults.
      expect(at('axios', rate)?.attemptsPerRequest).toBe(1);
      expect(at('ky-retry-0', rate)?.attemptsPerRequest).toBe(1);
    }
    expect(at('axios', 1)?.successRate).toBe(0);
    expect(at('axios-retry', 1)?.attemptsPerRequest).toBe(4);
    expect(at('retry-axios', 1)?.attemptsPerRequest).toBe(4);
    expect(at('ky', 1)?.attemptsPerRequest).toBe(3);
    expect(at('ky-backoff-no-budget', 1)?.attemptsPerRequest).toBe(4);
    // The default budget's reserve of 20 retries is all a total outage gets.
    expect(at('axios-backoff', 1)?.attemptsPerRequest).toBeCloseTo((requests + 20) / requests, 10);
    expect(at('with-backoff', 1)?.attemptsPerRequest).toBeCloseTo((requests + 20) / requests, 10);
    // retry-axios's default waits (50 + 150 + 350 ms) went through the virtual clock, not real time.
    expect(at('retry-axios', 1)?.waitPerRequestMs).toBe(550);
    expect(globalThis.setTimeout).toBe(realSetTimeout);
  });

  it('measures retained heap per parked request for every subject', () => {
    const rows = report.memory?.rows ?? [];
    expect(rows).toHaveLength(MEMORY_SUBJECTS.length);
    for (const row of rows) expect(Number.isFinite(row.bytesPerRequest)).toBe(true);
    expect(globalThis.setTimeout).toBe(realSetTimeout);
  });

  it('renders RESULTS.md with the machine, the targets and one section per measure', () => {
    const markdown = renderResults(report);
    expect(markdown).toContain('Command: `pnpm bench --quick`');
    expect(markdown).toContain(`Node ${process.version}`);
    for (const heading of [
      '## Targets',
      '## 1. Success-path overhead',
      '**What this run resolves.**',
      '### On the loopback',
      '## 2. Amplification',
      '## 3. Memory',
    ]) {
      expect(markdown).toContain(heading);
    }
    // The speed and memory targets, one line each (the size budgets are `pnpm size`'s).
    expect(markdown).toMatch(
      /axios \+ axios-backoff: [+-][\d.]+ µs per successful request over bare axios, in-process \(IQR [^)]*\): target ≤ \+3 µs (met|missed)/,
    );
    expect(markdown).toMatch(
      /fetch \+ withBackoff: [+-][\d.]+ µs per successful request over bare fetch, in-process \(IQR [^)]*\): target ≤ \+3 µs (met|missed)/,
    );
    expect(markdown).toMatch(
      /ky-backoff against ky with its default retry \(limit 2\): in-process [\d.]+x \(target ≤ 1\.5x (met|missed)\)[^;]*; loopback [\d.]+x, beside ky's own floor for a plugin of its shape \([^)]*\) [\d.]+x: no target there/,
    );
    expect(markdown).toMatch(/the 3 µs calibration read as [+-][\d.]+ µs/);
    expect(markdown).toMatch(
      /axios \+ axios-backoff -?[\d,]+ B \(target ≤ 4\.3 kB (met|missed)\); fetch \+ withBackoff -?[\d,]+ B \(target ≤ 2\.3 kB (met|missed)\); ky \+ ky-backoff -?[\d,]+ B \(target ≤ 12\.7 kB (met|missed)\)/,
    );
    expect(markdown).not.toMatch(/min\+gzip: target/);
  });
});

describe('the overhead measure with each client in processes of its own (isolate)', () => {
  const pick = (...ids: string[]) => OVERHEAD_VARIANTS.filter((variant) => ids.includes(variant.id));
  const tiny = { server: 'in-process', rounds: 3, requests: 20, concurrency: 2, warmup: 10 } as const;

  it('runs every client in its own processes, one generation after another, with the rounds shared out', async () => {
    const result = await runOverhead({
      ...tiny,
      isolate: true,
      processes: 2,
      fromSources: true,
      // Two clients of one family, two generations: four process starts, kept few (they run beside other tests).
      variants: pick('axios', 'axios-backoff'),
    });
    expect(result.isolated).toBe(true);
    expect(result.processes).toBe(2);
    expect(result.rows.map((row) => row.variant.id)).toEqual(['axios', 'axios-backoff']);
    for (const row of result.rows) {
      expect(row.cpuUs.n).toBe(3);
      expect(row.cpuUs.median).toBeGreaterThan(0);
    }
  });

  it('fails with the variant named when its process cannot start it', async () => {
    const [axios] = pick('axios');
    await expect(
      runOverhead({ ...tiny, isolate: true, variants: [{ ...(axios as Variant), id: 'no-such-client' }] }),
    ).rejects.toThrow(/no-such-client.*exited \(code 1\)/);
  });
});

describe('spread', () => {
  it('gives the median, quartiles and extremes of the rounds', () => {
    expect(spread([4, 1, 3, 2])).toEqual({ median: 2.5, q1: 1.75, q3: 3.25, min: 1, max: 4, n: 4 });
  });
});

describe('the targets', () => {
  const judge = (server: 'in-process' | 'loopback', id: string, added: number, ratio: number) =>
    overheadVerdict(
      { server } as OverheadResult,
      {
        variant: { id, name: id },
        addedUs: spread([added]),
        ratio: spread([ratio]),
      } as unknown as OverheadRow,
    );

  it('holds axios-backoff and withBackoff to +3 µs in-process, and sets them no loopback target', () => {
    for (const id of ['axios-backoff', 'with-backoff']) {
      expect(judge('in-process', id, 3, 1.1)).toBe('met');
      expect(judge('in-process', id, 3.1, 1.1)).toBe('missed');
      expect(judge('loopback', id, 30, 1.2)).toBeUndefined();
    }
  });

  it('holds ky-backoff to 1.5x ky in-process, and sets it no loopback target (it is read beside the floor)', () => {
    expect(judge('in-process', 'ky-backoff', 25, 1.5)).toBe('met');
    expect(judge('in-process', 'ky-backoff', 25, 1.51)).toBe('missed');
    expect(judge('loopback', 'ky-backoff', 40, 1.1)).toBeUndefined();
    expect(judge('loopback', 'ky-backoff', 40, 1.5)).toBeUndefined();
  });

  it('compares bytes per parked retry at the 0.1 kB its target is stated to', () => {
    const parked = (bytes: number) =>
      memoryVerdicts({
        memory: {
          rows: [
            {
              subject: {
                variant: { id: 'axios-backoff', name: 'axios + axios-backoff' },
                parked: 'in retry wait',
              },
              bytesPerRequest: bytes,
            },
          ],
        },
      } as unknown as BenchReport);
    expect(parked(4354)).toEqual([
      '- **Memory per request parked in a retry wait: axios + axios-backoff 4,354 B (target ≤ 4.3 kB met).**',
    ]);
    expect(parked(4400)[0]).toContain('4,400 B (target ≤ 4.3 kB missed)');
  });
});
