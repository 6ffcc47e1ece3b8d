import {
  axiosBare,
  axiosWithAxiosRetry,
  axiosWithBackoff,
  axiosWithBackoffNoBudget,
  axiosWithRetryAxios,
  fetchWithBackoff,
  kyDefaults,
  kyNoRetry,
  kyRetry3,
  kyWithBackoff,
  kyWithBackoffNoBudget,
  type Variant,
} from './clients.js';
import { MockTransport, randomFailures, requestUrl } from './mock-transport.js';
import { fixed, markdownTable, percent } from './table.js';
import { withVirtualTimers } from './virtual-timers.js';

/** The failure rates measured: an outage, then light random failure. */
export const FAILURE_RATES = [1, 0.05, 0.01] as const;

/**
 * Each library with its defaults, and at an equal retry count of 3. axios-retry, retry-axios and the backoff
 * packages all default to 3 retries, so for them "defaults" is also the equal-count row; ky defaults to 2 and
 * gets a `retry: 3` row. The `budget: false` rows show what the retry budget alone changes.
 */
export const AMPLIFICATION_VARIANTS: readonly Variant[] = [
  axiosBare,
  axiosWithBackoff,
  axiosWithBackoffNoBudget,
  axiosWithAxiosRetry,
  axiosWithRetryAxios,
  kyNoRetry,
  kyDefaults,
  kyRetry3,
  kyWithBackoff,
  kyWithBackoffNoBudget,
  fetchWithBackoff,
];

export interface AmplificationOptions {
  /** Logical requests per (library, failure rate). @default 10000 */
  readonly requests?: number;
  /** Seed of the failure pattern (the same for every library). @default 7 */
  readonly seed?: number;
  readonly variants?: readonly Variant[];
  readonly rates?: readonly number[];
}

export interface AmplificationCell {
  readonly rate: number;
  /** Attempts the server saw, per logical request: the load factor over a client that never retries. */
  readonly attemptsPerRequest: number;
  /** Logical requests that ended in a 2xx. */
  readonly successRate: number;
  /** The most attempts one request made. */
  readonly maxAttempts: number;
  /** Mean time each request would have spent waiting between attempts (virtual, in ms). */
  readonly waitPerRequestMs: number;
}

export interface AmplificationRow {
  readonly variant: Variant;
  readonly cells: readonly AmplificationCell[];
}

export interface AmplificationResult {
  readonly requests: number;
  readonly seed: number;
  readonly rows: readonly AmplificationRow[];
  readonly seconds: number;
}

async function measureCell(
  variant: Variant,
  rate: number,
  requests: number,
  seed: number,
): Promise<AmplificationCell> {
  const transport = new MockTransport(randomFailures(rate, seed));
  return withVirtualTimers(async (timers) => {
    // A fresh client per cell: a budget drained by the outage must not carry over to the 1% run.
    const client = variant.create({ axiosAdapter: transport.axiosAdapter, fetch: transport.fetch });
    let successes = 0;
    // One request at a time: the budget then sees the same order of outcomes for every library.
    for (let i = 0; i < requests; i++) {
      const status = await client.get(requestUrl(i));
      if (status >= 200 && status < 300) successes++;
      else if (status !== 503) throw new Error(`${variant.name}: unexpected final status ${status}`);
    }
    if (timers.pendingCount !== 0) {
      throw new Error(`${variant.name}: ${timers.pendingCount} timers left pending after the run`);
    }
    let maxAttempts = 0;
    for (let i = 0; i < requests; i++) maxAttempts = Math.max(maxAttempts, transport.attemptsOf(i));
    return {
      rate,
      attemptsPerRequest: transport.totalAttempts / requests,
      successRate: successes / requests,
      maxAttempts,
      waitPerRequestMs: timers.firedMs / requests,
    };
  });
}

/**
 * Measure 2: N sequential requests per library against an in-process server that answers 503 at the given rate
 * (seeded, the same attempts fail for everyone), with every wait made instant by the same virtual clock.
 */
export async function runAmplification(options: AmplificationOptions = {}): Promise<AmplificationResult> {
  const requests = options.requests ?? 10_000;
  const seed = options.seed ?? 7;
  const rates = options.rates ?? FAILURE_RATES;
  const started = performance.now();
  const rows: AmplificationRow[] = [];
  for (const variant of options.variants ?? AMPLIFICATION_VARIANTS) {
    const cells: AmplificationCell[] = [];
    for (const rate of rates) cells.push(await measureCell(variant, rate, requests, seed));
    rows.push({ variant, cells });
  }
  return { requests, seed, rows, seconds: (performance.now() - started) / 1000 };
}

export function amplificationTable(result: AmplificationResult): string {
  const rates = result.rows[0]?.cells.map((cell) => cell.rate) ?? [];
  const label = (rate: number) => `${percent(rate, 0)} 503`;
  const header = [
    'library',
    'config',
    ...rates.flatMap((rate) => [`${label(rate)}: attempts/req`, `${label(rate)}: success`]),
    `${label(rates[0] ?? 1)}: wait/req (virtual)`,
  ];
  const rows = result.rows.map(({ variant, cells }) => [
    variant.name,
    variant.config,
    ...cells.flatMap((cell) => [fixed(cell.attemptsPerRequest, 3), percent(cell.successRate, 2)]),
    `${fixed(cells[0]?.waitPerRequestMs ?? 0, 0)} ms`,
  ]);
  return markdownTable(header, rows, ['l', 'l', ...rates.flatMap(() => ['r', 'r'] as const), 'r']);
}
