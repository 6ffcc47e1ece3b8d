import type { ChartFile, ScenarioReport } from './chart-file.js';
import { type DeadBackendConfig, type DeadBackendResult, runDeadBackend } from './dead-backend.js';
import type { Histogram } from './stats.js';
import { lineChart } from './svg.js';
import { count, markdownTable, seconds } from './table.js';

/** The breaker's target: the share of calls after the trip that still reach a dead backend. */
export const TARGET_SHARE = 0.05;

/** Sum of a 100 ms histogram's buckets over [from, to) ms. */
function between(histogram: Histogram, from: number, to: number): number {
  let total = 0;
  for (let i = Math.ceil(from / histogram.width); i * histogram.width < to; i++)
    total += histogram.counts[i] ?? 0;
  return total;
}

/** What the table and the tests read from one run. */
export interface DeadBackendSummary {
  readonly result: DeadBackendResult;
  /** When the circuit first opened (the breaker run's time is used for both runs), ms. */
  readonly trippedAt: number | undefined;
  /** Requests that reached the dead backend per call started, from the trip until the backend returned. */
  readonly shareAfterTrip: number;
  /** From the backend's return to the first call that succeeded, ms. */
  readonly recovery: number | undefined;
  /** The break in effect when the backend returned (the last open before it), ms. */
  readonly breakAtReturn: number | undefined;
  /** When the circuit closed again after the backend returned, ms. */
  readonly closedAt: number | undefined;
}

export function summarize(
  config: DeadBackendConfig,
  result: DeadBackendResult,
  trippedAt: number | undefined,
): DeadBackendSummary {
  const from = trippedAt ?? config.downFrom;
  const calls = between(result.started, from, config.downTo);
  const lastOpen = result.changes.filter((c) => c.to === 'open' && c.at < config.downTo).at(-1);
  return {
    result,
    trippedAt,
    shareAfterTrip: calls === 0 ? 0 : between(result.dead, from, config.downTo) / calls,
    recovery:
      result.firstSuccessAfterReturn === undefined
        ? undefined
        : result.firstSuccessAfterReturn - config.downTo,
    breakAtReturn: lastOpen === undefined ? undefined : (lastOpen.openUntil ?? lastOpen.at) - lastOpen.at,
    closedAt: result.changes.find((c) => c.to === 'closed' && c.at >= config.downTo)?.at,
  };
}

const percent = (value: number) => `${(value * 100).toFixed(value < 0.1 ? 2 : 1)} %`;

/** Runs the dead backend without and with the breaker (its defaults) and reports them side by side. */
export async function deadBackendReport(
  config: DeadBackendConfig,
  onProgress?: (done: number, total: number) => void,
): Promise<ScenarioReport & { readonly summaries: readonly DeadBackendSummary[] }> {
  const without = await runDeadBackend(config, false);
  onProgress?.(1, 2);
  const withBreaker = await runDeadBackend(config, true);
  onProgress?.(2, 2);
  const trippedAt = withBreaker.changes.find((c) => c.to === 'open')?.at;
  const summaries = [summarize(config, without, trippedAt), summarize(config, withBreaker, trippedAt)];

  const rows = summaries.map((s) => [
    s.result.breaker ? 'circuit breaker (defaults)' : 'no breaker',
    count(s.result.calls),
    count(s.result.reachedDead),
    percent(s.shareAfterTrip),
    count(s.result.failedFast),
    seconds(s.recovery),
    s.result.breaker ? seconds(s.breakAtReturn) : '—',
    count(s.result.metrics.attempts),
  ]);
  const table = markdownTable(
    [
      'client',
      'calls',
      'reached the dead backend',
      'of the calls after the trip',
      'failed fast',
      'recovery',
      'break at return',
      'attempts sent',
    ],
    rows,
  );
  const breaker = summaries[1] as DeadBackendSummary;
  const recoveryBound = (breaker.breakAtReturn ?? 0) + 4 * config.latency;
  const verdict = [
    `Trip: ${trippedAt === undefined ? 'never' : `${seconds(trippedAt - config.downFrom)} after the backend died`}.`,
    `After the trip, ${percent(breaker.shareAfterTrip)} of the calls reached the dead backend (target <= ${percent(TARGET_SHARE)}: ${breaker.shareAfterTrip <= TARGET_SHARE ? 'met' : 'missed'}); without the breaker ${percent((summaries[0] as DeadBackendSummary).shareAfterTrip)} did (every first attempt, plus the retries the budget allowed).`,
    `Recovery: the first call succeeded ${seconds(breaker.recovery)} after the backend returned, with the circuit's break at ${seconds(breaker.breakAtReturn)} then (target: within one break plus a probe, ${seconds(recoveryBound)}: ${breaker.recovery !== undefined && breaker.recovery <= recoveryBound ? 'met' : 'missed'}); the circuit closed at ${seconds(breaker.closedAt)}. Without the breaker: ${seconds((summaries[0] as DeadBackendSummary).recovery)}.`,
    `Circuit: ${breaker.result.changes.map((c) => `${c.to} at ${seconds(c.at)}`).join(', ')}.`,
  ];
  const text = [
    `One client sends ${count(config.rate)} calls/s (first attempts, evenly spaced) for ${seconds(config.duration)}; the backend answers 503 to everything from ${seconds(config.downFrom)} to ${seconds(config.downTo)}. The client is \`createBackoff()\` with its defaults (the budget on), once without and once with \`circuitBreaker: new CircuitBreaker()\` (its defaults: 5 consecutive failures or 50 % of 20+ calls in 30 s; break 5 s doubling to 30 s; 1 probe). Every decision, wait and circuit change is backoff-core's own (its runner, \`runCall\`, on virtual timers).`,
    '',
    table,
    '',
    ...verdict,
  ].join('\n');
  return { title: '4. Dead backend', text, charts: [deadBackendChart(config, summaries)], summaries };
}

function perSecond(histogram: Histogram, seconds: number): Array<readonly [number, number]> {
  return Array.from(
    { length: seconds },
    (_, s) => [s, between(histogram, s * 1000, (s + 1) * 1000)] as const,
  );
}

function deadBackendChart(config: DeadBackendConfig, summaries: readonly DeadBackendSummary[]): ChartFile {
  const span = Math.ceil(config.duration / 1000);
  const series = summaries.flatMap((s) => {
    const name = s.result.breaker ? 'with breaker' : 'no breaker';
    return [
      { name: `${name}: requests sent`, points: perSecond(s.result.load, span) },
      { name: `${name}: calls that succeeded`, points: perSecond(s.result.succeeded, span), dashed: true },
    ];
  });
  const svg = lineChart({
    title: `Dead backend: ${count(config.rate)} calls/s, backend down ${seconds(config.downTo - config.downFrom)}`,
    subtitle:
      'Per second: requests that reached the backend (solid) and calls that succeeded (dashed), by the time they started.',
    xLabel: 'time (s)',
    yLabel: 'per second',
    yScale: 'symlog',
    xMax: span,
    series,
    markers: [
      { x: config.downFrom / 1000, label: 'backend dies' },
      { x: config.downTo / 1000, label: 'backend returns' },
    ],
  });
  return { file: 'dead-backend.svg', svg };
}
