import type { ChartFile, ScenarioReport } from './chart-file.js';
import { type HerdMatrixCell, type HerdMatrixConfig, meetsTargets, runHerdMatrix } from './herd-matrix.js';
import { smallMultiples } from './svg.js';
import { count, markdownTable, seconds } from './table.js';

/** Runs the matrix and reports its table (one row per cell) and its chart (one panel per cell). */
export function herdMatrixReport(
  config: HerdMatrixConfig,
  onProgress?: (done: number, total: number) => void,
): ScenarioReport & { readonly cells: readonly HerdMatrixCell[] } {
  const cells = runHerdMatrix(config, onProgress);
  const cap = config.capacity / 10;
  const rows = cells.map((cell) => {
    const r = cell.result;
    const reasons = Object.entries(r.stopReasons)
      .map(([reason, n]) => `${reason} ${count(n)}`)
      .join(', ');
    return [
      count(cell.clients),
      seconds(cell.outage),
      count(r.calls),
      (r.calls / r.clients).toFixed(1),
      `${count(r.peakAfterRecovery.count)} (${cell.peakRatio.toFixed(1)}x)`,
      `${cell.peakTarget}x`,
      reasons === '' ? '0' : `${count(r.gaveUp)} (${reasons})`,
      seconds(r.completion.p50),
      seconds(r.completion.p99),
      seconds(cell.p99Target),
      meetsTargets(cell) ? 'yes' : 'NO',
    ];
  });
  const table = markdownTable(
    [
      'clients',
      'outage',
      'requests',
      'per client',
      'peak after recovery (x cap)',
      'target',
      'gave up',
      'p50',
      'p99',
      'p99 target',
      'met',
    ],
    rows,
  );
  const met = cells.filter(meetsTargets).length;
  const text = [
    `Each client is its own \`createBackoff(${JSON.stringify(config.options)})\` (the defaults otherwise) and sends one GET; the first sends are spread over ${config.startSpread} ms. The server is down for the outage, answering 503 with \`Retry-After\` = the seconds until it is back, then serves ${count(config.capacity)} req/s (${count(cap)} per 100 ms, a token bucket) and answers the excess 503 with \`Retry-After: 1\`. Network: ${config.latency} ms per message (sd ${config.latency * 0.2} ms). The peak is the busiest 100 ms after the server is back, against the ${count(cap)} it serves; times are from the first send, of the clients that got their 200.`,
    'Targets: nobody gives up; the peak at most 2.5x capacity up to 1,000 clients and 10x above; p99 within T + 1.5 x N / capacity + 2 s.',
    '',
    table,
    '',
    `${met} of ${cells.length} cells meet every target.`,
  ].join('\n');
  return {
    title: 'Herd matrix: fleets told the same moment',
    text,
    charts: [matrixChart(config, cells)],
    cells,
  };
}

/** The chart shows the first minute after recovery: every cell's traffic is over by then. */
const CHART_WINDOW = 60_000;

function matrixChart(config: HerdMatrixConfig, cells: readonly HerdMatrixCell[]): ChartFile {
  const cap = config.capacity / 10;
  const after = Math.max(...cells.map((c) => c.result.end - c.outage));
  const windowMs = Math.min(CHART_WINDOW, Math.max(5000, Math.ceil(after / 5000) * 5000));
  const buckets = Math.ceil(windowMs / 100);
  const panels = cells.map((cell) => {
    const r = cell.result;
    // Time from the server's return: every panel's x = 0 is its own recovery.
    const first = Math.floor(cell.outage / 100);
    const counts = r.load.padded(first + buckets).slice(first);
    return {
      title: `${count(cell.clients)} clients, down ${seconds(cell.outage)}: peak ${count(r.peakAfterRecovery.count)}/100 ms (${cell.peakRatio.toFixed(1)}x), ${count(r.gaveUp)} gave up, p99 ${seconds(r.completion.p99)}`,
      series: [
        {
          name: `${cell.clients}/${cell.outage}`,
          points: counts.map((c, i) => [(i * 100) / 1000, c] as const),
        },
      ],
      guides: [
        { y: cap, label: `capacity ${count(cap)}/100 ms` },
        { y: cap * cell.peakTarget, label: `target ${cell.peakTarget}x` },
      ],
    };
  });
  const svg = smallMultiples({
    title: `Fleets told the same moment: ${config.clients.map(count).join(' / ')} clients, outages of ${config.outages.join(' / ')} s`,
    subtitle:
      'Requests reaching the server per 100 ms after it is back (log scale), one panel per fleet and outage. Dashed: capacity and the peak target.',
    xLabel: 'time since the server is back (s)',
    yLabel: 'requests per 100 ms',
    yScale: 'symlog',
    xMax: windowMs / 1000,
    panels,
  });
  return { file: 'herd-matrix.svg', svg };
}
