import type { ChartFile, ScenarioReport } from './chart-file.js';
import { type HerdConfig, type HerdResult, herdStrategies, runHerd } from './herd.js';
import { smallMultiples } from './svg.js';
import { count, markdownTable, seconds } from './table.js';

/** The charts show the first minute: everything but no-jitter exponential's last few waves is done by then. */
const CHART_WINDOW = 60_000;

/** Runs every herd strategy against the same herd (same seed) and reports them side by side. */
export function herdReport(
  config: HerdConfig & { readonly retries: number },
  onProgress?: (done: number, total: number) => void,
): ScenarioReport & { readonly results: readonly HerdResult[] } {
  const strategies = herdStrategies(config.retries);
  const results = strategies.map((strategy, i) => {
    const result = runHerd(config, strategy);
    onProgress?.(i + 1, strategies.length);
    return result;
  });
  const cap = config.capacity / 10;

  const rows = results.map((r) => [
    r.strategy.label,
    count(r.calls),
    (r.calls / r.clients).toFixed(1),
    count(r.peak.count),
    `${count(r.peakAfterRecovery.count)} (${(r.peakAfterRecovery.count / cap).toFixed(1)}x)`,
    seconds(r.completion.p50),
    seconds(r.completion.p99),
    seconds(r.completion.max),
    count(r.gaveUp),
  ]);
  const table = markdownTable(
    [
      'strategy',
      'calls',
      'calls/client',
      'peak /100 ms',
      'peak once up (x cap)',
      'p50',
      'p99',
      'max',
      'gave up',
    ],
    rows,
  );
  const reasons = new Map<string, number>();
  for (const r of results)
    for (const [reason, n] of Object.entries(r.stopReasons))
      reasons.set(reason, (reasons.get(reason) ?? 0) + n);
  const reasonText = [...reasons].map(([reason, n]) => `${reason} ${count(n)}`).join(', ');

  const text = [
    `${count(config.clients)} clients send one GET each at t = 0. The server is down for ${seconds(config.downFor)} (a 503 to everything), then serves ${count(config.capacity)} req/s (${count(cap)} per 100 ms, a token bucket) and answers 503 to the excess. Network: ${config.latency} ms per message (sd ${config.latency * 0.2} ms).`,
    `The first six rows stand for other retry code: ${config.retries} retries, no budget, base 1 s, cap 30 s; only the delay shape differs. "backoff defaults" is \`createBackoff()\` as shipped (3 retries, full jitter, base 1 s, the budget on) against a server whose 503s carry no Retry-After; in the rows marked "+ Retry-After" every 503 carries one (the seconds until the outage ends, then 1 s when overloaded). The "retries: ${config.retries}" row is the defaults with ${config.retries} retries (without Retry-After it would be the full-jitter row, number for number). The last three rows show what the server's own spread buys: \`retryAfterSpread: 0\` comes back exactly when told, and a "server-spread" Retry-After adds a random whole number of seconds below ${count(config.clients)} / ${count(config.capacity)} (the clients over the capacity). Completion times are of the clients that got their 200.`,
    '',
    table,
    '',
    `Why the clients that gave up stopped, over all rows (the core's stop reasons): ${reasonText || 'none gave up'}.`,
  ].join('\n');

  return { title: '1. Thundering herd', text, charts: [herdChart(config, results)], results };
}

function herdChart(config: HerdConfig, results: readonly HerdResult[]): ChartFile {
  const end = Math.max(...results.map((r) => r.end));
  const windowMs = Math.min(CHART_WINDOW, Math.ceil(end / 5000) * 5000);
  const buckets = Math.ceil(windowMs / 100);
  const cap = config.capacity / 10;
  const panels = results.map((r) => {
    const counts = r.load.padded(buckets);
    const later = r.calls - counts.reduce((a, b) => a + b, 0);
    const tail = later > 0 ? `, ${count(later)} more after ${seconds(windowMs)}` : '';
    return {
      title: `${r.strategy.label}: ${count(r.calls)} calls, peak once up ${count(r.peakAfterRecovery.count)}/100 ms, ${count(r.gaveUp)} gave up${tail}`,
      series: [{ name: r.strategy.label, points: counts.map((c, i) => [(i * 100) / 1000, c] as const) }],
      guides: [{ y: cap, label: `capacity ${count(cap)}/100 ms` }],
    };
  });
  const svg = smallMultiples({
    title: `Thundering herd: ${count(config.clients)} clients, server down ${seconds(config.downFor)}, then ${count(config.capacity)} req/s`,
    subtitle:
      'Requests reaching the server per 100 ms (log scale), one panel per retry strategy. Dashed: what the server can serve.',
    xLabel: 'time (s)',
    yLabel: 'requests per 100 ms',
    yScale: 'symlog',
    xMax: windowMs / 1000,
    markers: [{ x: config.downFor / 1000, label: 'server back' }],
    panels,
  });
  return { file: 'herd-load.svg', svg };
}
