import type { ChartFile, ScenarioReport } from './chart-file.js';
import { PACING_STRATEGIES, type PacingConfig, type PacingResult, runPacing } from './pacing.js';
import { smallMultiples } from './svg.js';
import { count, markdownTable, seconds } from './table.js';

/** The ideal: every call served at the limit's rate, ms. */
export function idealMs(config: PacingConfig, calls: number): number {
  return (calls / config.limit) * config.windowMs;
}

/** Runs every strategy against the same limiter and stream, and reports them side by side. */
export async function pacingReport(
  config: PacingConfig,
  onProgress?: (done: number, total: number) => void,
): Promise<ScenarioReport & { readonly results: readonly PacingResult[] }> {
  const results: PacingResult[] = [];
  for (const strategy of PACING_STRATEGIES) {
    results.push(await runPacing(config, strategy));
    onProgress?.(results.length, PACING_STRATEGIES.length);
  }
  const calls = results[0]?.calls ?? 0;
  const ideal = idealMs(config, calls);
  const table = markdownTable(
    ['client', 'calls ok', '429s', 'requests', 'last done', 'vs ideal'],
    results.map((r) => [
      r.strategy.label,
      `${count(r.ok)} / ${count(r.calls)}`,
      count(r.throttled),
      count(r.requests),
      seconds(r.last),
      `${(r.last / ideal).toFixed(2)}x`,
    ]),
  );
  const byId = new Map(results.map((r) => [r.strategy.id, r]));
  const notes: string[] = [];
  const pacer = byId.get('pacer');
  const without = byId.get('backoff');
  if (pacer && without) {
    notes.push(
      `With the RateLimit fields the Pacer got ${count(pacer.throttled)} 429s against ${count(without.throttled)} without it and ${count(byId.get('own')?.throttled ?? 0)} for requests on their own; its last call ended at ${seconds(pacer.last)} (${(pacer.last / ideal).toFixed(2)}x the ideal ${seconds(ideal)}).`,
    );
  }
  const bare = byId.get('pacer-bare');
  const bareWithout = byId.get('backoff-bare');
  if (bare && bareWithout) {
    notes.push(
      `With bare 429s the Pacer got ${count(bare.throttled)} 429s against ${count(bareWithout.throttled)} without it (${bare.throttled === 0 ? 'none' : `${(bareWithout.throttled / bare.throttled).toFixed(1)}x fewer`}); its last call ended at ${seconds(bare.last)}.`,
    );
  }
  const text = [
    `A server allows ${count(config.limit)} requests per ${seconds(config.windowMs)} window (fixed windows from t = 0, as express-rate-limit counts them); one client process starts ${count(config.rate)} calls/s, evenly spaced, for ${seconds(config.duration)} (${count(calls)} calls), each with \`retries: ${config.retries}\` and \`budget: false\` so that every call can finish. "headers": every answer carries draft-8 \`RateLimit-Policy\` and \`RateLimit\` fields, and a 429 a \`Retry-After\`; "bare 429s": no header at all. "every request on its own" is how the peers retry: each 429 waits exactly its Retry-After, nothing shared between requests. The backoff rows are the real \`withBackoff\` (and \`new Pacer()\`) on the queue's timers and clock. The ideal is ${count(calls)} / ${count(config.limit)} per window = ${seconds(ideal)}.`,
    '',
    table,
    '',
    ...notes,
  ].join('\n');
  return {
    title: '5. Pacing: a stream of calls into a rate limit',
    text,
    charts: [pacingChart(config, results)],
    results,
  };
}

function perSecond(values: readonly number[], span: number): Array<readonly [number, number]> {
  return Array.from({ length: span }, (_, s) => [s + 0.5, values[s] ?? 0] as const);
}

function pacingChart(config: PacingConfig, results: readonly PacingResult[]): ChartFile {
  const span = Math.ceil(Math.max(...results.map((r) => r.last)) / 1000);
  const svg = smallMultiples({
    title: `Pacing: ${count(config.rate)} calls/s for ${seconds(config.duration)} into a limit of ${count(config.limit)} per ${seconds(config.windowMs)}`,
    subtitle:
      'Per second: 429s the server answered (solid) and calls that completed (dashed), one panel per client.',
    xLabel: 'time (s)',
    yLabel: 'per second',
    xMax: span,
    panels: results.map((r) => ({
      title: r.strategy.label,
      series: [
        { name: '429s', points: perSecond(r.throttledPerSecond.counts, span) },
        { name: 'completed', points: perSecond(r.completedPerSecond.counts, span), dashed: true },
      ],
      guides: [{ y: (config.limit * 1000) / config.windowMs, label: 'limit' }],
    })),
  });
  return { file: 'pacing.svg', svg };
}
