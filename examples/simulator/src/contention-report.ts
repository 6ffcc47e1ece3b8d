import type { Jitter } from 'backoff-core';
import type { ChartFile, ScenarioReport } from './chart-file.js';
import {
  CONTENTION_JITTERS,
  type ContentionPoint,
  type ContentionSweep,
  sweepContention,
} from './contention.js';
import { lineChart } from './svg.js';
import { count, difference, markdownTable, seconds } from './table.js';

/**
 * A rerun of the blog's own simulator at 100 clients (notes/anchors.md): calls, and completion time in ms. Its
 * network is the one simulated here (|N(10 ms, 2 ms)| per message); its exponential step is `base x 2^n` from
 * n = 1, so its first retry waits up to 2 x base where backoff-core's waits up to base.
 */
export const AWS_RERUN_AT_100: Readonly<
  Record<Jitter, { readonly calls: number; readonly completion: number }>
> = {
  none: { calls: 1848, completion: 63_000 },
  equal: { calls: 813, completion: 6600 },
  full: { calls: 795, completion: 5000 },
  decorrelated: { calls: 996, completion: 4600 },
};

const label = (jitter: Jitter) => CONTENTION_JITTERS.find((j) => j.jitter === jitter)?.label ?? jitter;

/** Values within this fraction of each other are a near-tie: 5 seeds cannot rank them. */
const TIE = 0.03;

const near = (a: number, b: number) => Math.abs(a - b) <= TIE * Math.min(a, b);

/** Smallest first, joined by "<", or by "≈" between near-ties. */
function ranking(values: ReadonlyArray<readonly [Jitter, number]>): string {
  const sorted = [...values].sort((a, b) => a[1] - b[1]);
  return sorted
    .map(([j, v], i) => {
      const previous = sorted[i - 1];
      return previous === undefined ? label(j) : `${near(previous[1], v) ? '≈' : '<'} ${label(j)}`;
    })
    .join(' ');
}

/** Whether `ours` ranks every pair as `theirs` does, except pairs that are near-ties in `ours`. */
function sameRanking(ours: ReadonlyMap<Jitter, number>, theirs: ReadonlyMap<Jitter, number>): boolean {
  for (const [a, oa] of ours) {
    for (const [b, ob] of ours) {
      const ta = theirs.get(a) as number;
      const tb = theirs.get(b) as number;
      if (Math.sign(oa - ob) !== Math.sign(ta - tb) && !near(oa, ob)) return false;
    }
  }
  return true;
}

export function contentionReport(
  sweep: ContentionSweep,
  onProgress?: (done: number, total: number) => void,
): ScenarioReport & { readonly points: readonly ContentionPoint[] } {
  const points = sweepContention(sweep, onProgress);
  const jitters = CONTENTION_JITTERS.map((j) => j.jitter);
  const clientCounts = [...new Set(points.map((p) => p.clients))];
  const at = (clients: number, jitter: Jitter) =>
    points.find((p) => p.clients === clients && p.jitter === jitter) as ContentionPoint;

  const headers = ['clients', ...CONTENTION_JITTERS.map((j) => j.label)];
  const callsTable = markdownTable(
    headers,
    clientCounts.map((n) => [String(n), ...jitters.map((j) => count(at(n, j).calls))]),
  );
  const timeTable = markdownTable(
    headers,
    clientCounts.map((n) => [String(n), ...jitters.map((j) => seconds(at(n, j).completion))]),
  );
  const gaveUp = points.reduce((sum, p) => sum + p.gaveUp * sweep.runs, 0);

  const text = [
    `Every client updates one shared row once: read its version, then a conditional write (\`If-Match\`); a 412 means another write got in first, so the client backs off (base ${sweep.baseDelay} ms, cap 2 s, up to 100 retries, no budget) and re-reads. Network: |N(${sweep.latency} ms, ${sweep.latency * 0.2} ms)| per message, as in the blog's simulator. Each number is the mean of ${sweep.runs} seeded runs. "Calls" are attempts (a read and a write each), as in the blog.`,
    '',
    'Calls (attempts) until every client has written:',
    '',
    callsTable,
    '',
    'Completion time (the last write):',
    '',
    timeTable,
    '',
    gaveUp === 0
      ? 'No client used up its 100 retries in any run.'
      : `${count(gaveUp)} client runs used up their 100 retries and gave up.`,
    '',
    ...comparison(clientCounts.includes(100) ? jitters.map((j) => at(100, j)) : undefined),
  ].join('\n');

  return {
    title: '2. Contention (AWS "Exponential Backoff And Jitter")',
    text,
    charts: contentionCharts(sweep, points),
    points,
  };
}

function comparison(at100: readonly ContentionPoint[] | undefined): string[] {
  if (at100 === undefined) return ['(No run at 100 clients, so no comparison with the AWS rerun.)'];
  const rows = at100.map((p) => {
    const ref = AWS_RERUN_AT_100[p.jitter];
    return [
      label(p.jitter),
      count(p.calls),
      count(ref.calls),
      difference(p.calls, ref.calls),
      seconds(p.completion),
      seconds(ref.completion),
      difference(p.completion, ref.completion),
    ];
  });
  const verdict = (value: (p: ContentionPoint) => number, reference: (j: Jitter) => number) => {
    const ours = new Map(at100.map((p) => [p.jitter, value(p)] as const));
    const theirs = new Map(at100.map((p) => [p.jitter, reference(p.jitter)] as const));
    const same = sameRanking(ours, theirs)
      ? `the same order, up to near-ties (within ${TIE * 100}%)`
      : 'a different order';
    return `here: ${ranking([...ours])}; rerun: ${ranking([...theirs])}: ${same}.`;
  };
  return [
    "At 100 clients, against the rerun of the blog's simulator (notes/anchors.md):",
    '',
    markdownTable(['jitter', 'calls', 'rerun', 'diff', 'time', 'rerun', 'diff'], rows),
    '',
    `Fewest calls first — ${verdict(
      (p) => p.calls,
      (j) => AWS_RERUN_AT_100[j].calls,
    )}`,
    `Fastest first — ${verdict(
      (p) => p.completion,
      (j) => AWS_RERUN_AT_100[j].completion,
    )}`,
  ];
}

function contentionCharts(sweep: ContentionSweep, points: readonly ContentionPoint[]): ChartFile[] {
  const series = (value: (p: ContentionPoint) => number) =>
    CONTENTION_JITTERS.map(({ jitter, label: name }) => ({
      name,
      points: points.filter((p) => p.jitter === jitter).map((p) => [p.clients, value(p)] as const),
    }));
  const subtitle = `One row, optimistic concurrency; base ${sweep.baseDelay} ms, cap 2 s, ${sweep.latency} ms per message; mean of ${sweep.runs} runs per point.`;
  return [
    {
      file: 'contention-calls.svg',
      svg: lineChart({
        title: 'Contention: total calls until every client has written',
        subtitle,
        xLabel: 'contending clients',
        yLabel: 'calls (read + conditional write)',
        series: series((p) => p.calls),
      }),
    },
    {
      file: 'contention-time.svg',
      svg: lineChart({
        title: 'Contention: time until the last client has written',
        subtitle,
        xLabel: 'contending clients',
        yLabel: 'completion time (s)',
        series: series((p) => p.completion / 1000),
      }),
    },
  ];
}
