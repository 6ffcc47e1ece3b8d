import { type AmplificationConfig, type AmplificationResult, runAmplification } from './amplification.js';
import type { ChartFile, ScenarioReport } from './chart-file.js';
import { lineChart } from './svg.js';
import { count, markdownTable, seconds } from './table.js';

const runName = (r: AmplificationResult) => (r.budget ? 'default budget' : 'budget: false');

/** Attempts per request in each second: calls that reached the server / new requests sent in that second. */
export function attemptsPerRequest(r: AmplificationResult, span: number): number[] {
  const offered = r.offered.padded(span);
  const load = r.load.padded(span);
  return offered.map((o, i) => (o === 0 ? 0 : (load[i] ?? 0) / o));
}

export function amplificationReport(
  config: AmplificationConfig,
  onProgress?: (done: number, total: number) => void,
): ScenarioReport & { readonly results: readonly AmplificationResult[] } {
  const results = [false, true].map((budget, i) => {
    const result = runAmplification(config, budget);
    onProgress?.(i + 1, 2);
    return result;
  });
  const secondsOfTraffic = Math.ceil(config.duration / 1000);

  const rows = results.flatMap((r) =>
    r.phases.map((p) => [
      runName(r),
      `${p.label} (${seconds(p.from)}–${seconds(Math.min(p.to, r.end))})`,
      count(p.requests),
      count(p.calls),
      p.requests === 0 ? '—' : (p.calls / p.requests).toFixed(2),
      count(p.failed),
    ]),
  );
  const table = markdownTable(
    ['run', 'phase', 'requests', 'calls', 'attempts/request', 'failed requests'],
    rows,
    ['left', 'left', 'right', 'right', 'right', 'right'],
  );
  const lines = results.map((r) => {
    const peak = Math.max(...attemptsPerRequest(r, secondsOfTraffic));
    const budgetNote = r.budget
      ? `; the budget refused ${count(r.refused)} retries${budgetTimes(r, config)}`
      : '';
    return `- ${runName(r)}: ${count(r.calls)} calls for ${count(r.requests)} requests (${(r.calls / r.requests).toFixed(2)} per request), worst second ${peak.toFixed(2)} attempts per request, ${count(r.failed)} requests failed${budgetNote}.`;
  });

  const text = [
    `One client (\`createBackoff()\` defaults: 3 retries, full jitter, base 1 s) sends ${count(config.rate)} GET/s for ${seconds(config.duration)}; the backend answers 503 to everything from ${seconds(config.failFrom)} to ${seconds(config.failTo)}, then recovers. Network: ${config.latency} ms per message (sd ${config.latency * 0.2} ms). Same traffic and jitter draws in both runs; only the budget differs.`,
    '',
    table,
    '',
    'Requests count in the phase they were sent in, calls in the phase they reached the server in: the retries of the last requests of the outage land after recovery.',
    '',
    ...lines,
  ].join('\n');

  return {
    title: '3. Amplification: a failing backend, with and without the budget',
    text,
    charts: [amplificationChart(config, results)],
    results,
  };
}

/** When the budget (sampled each whole second) first ran dry, and when it was full again after the outage. */
function budgetTimes(r: AmplificationResult, config: AmplificationConfig): string {
  const sampledAt = (index: number) => (index + 1) * 1000;
  const empty = r.budgetBySecond.findIndex((s) => s.tokens < 1);
  if (empty < 0) return '';
  const refilled = r.budgetBySecond.findIndex(
    (s, i) => sampledAt(i) > config.failTo && s.tokens === s.capacity,
  );
  const full = refilled < 0 ? '' : `, full again at ${seconds(sampledAt(refilled))}`;
  return ` (empty by ${seconds(sampledAt(empty))}${full})`;
}

function amplificationChart(config: AmplificationConfig, results: readonly AmplificationResult[]): ChartFile {
  const span = Math.ceil(config.duration / 1000);
  return {
    file: 'amplification.svg',
    svg: lineChart({
      title: `Amplification: backend down ${seconds(config.failFrom)}–${seconds(config.failTo)}, ${count(config.rate)} requests/s`,
      subtitle:
        'Attempts per request in each second (calls reaching the server ÷ new requests), createBackoff() defaults.',
      xLabel: 'time (s)',
      yLabel: 'attempts per request',
      xMax: span,
      series: results.map((r) => ({
        name: runName(r),
        points: attemptsPerRequest(r, span).map((v, i) => [i + 0.5, v] as const),
      })),
      guides: [{ y: 1, label: 'no retries' }],
      markers: [
        { x: config.failFrom / 1000, label: 'backend down' },
        { x: config.failTo / 1000, label: 'back up' },
      ],
    }),
  };
}
