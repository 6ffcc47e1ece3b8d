import { type Backoff, createBackoff, parseRetryAfter } from 'backoff-core';
import type { Outcome, RetryState } from 'backoff-core/adapter';
import { type Spread, spread } from './stats.js';
import { fixed, markdownTable } from './table.js';

// The value every loop folds its results into, read at the end, so the JIT cannot drop the work.
let sink = 0;

/** One micro-benchmark: `prepare` builds a round's inputs (untimed), `run` does `count` calls over them. */
interface Case<T> {
  readonly name: string;
  readonly group: 'decision' | 'parseRetryAfter';
  /** The loop with the same shape and no call: its time per iteration is subtracted. */
  readonly baseline: 'counter' | 'array';
  prepare(count: number): T;
  run(input: T, count: number): number;
}

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const REQUEST = {
  method: 'GET',
  url: 'https://api.example.com/items?page=2',
  headers: { accept: 'application/json', 'user-agent': 'bench', 'x-request-id': 'abc' },
};
// What a typical error response carries (lower-case keys, as axios and Node give them), none of them timing.
const TYPICAL_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': '57',
  date: 'Wed, 02 Dec 2026 12:00:00 GMT',
  connection: 'keep-alive',
  'cache-control': 'no-store',
  server: 'nginx',
  vary: 'Accept-Encoding',
  'x-request-id': '5f0c1e2a',
};
const response = (status: number, headers: Readonly<Record<string, string>> = {}): Outcome => ({
  type: 'response',
  status,
  headers,
});
const networkError = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

/** The default policy, with a budget that never runs dry during the bench (a dry one takes a shorter path). */
function policy(): Backoff {
  return createBackoff({ budget: { reserve: 1_000_000_000 }, now: () => NOW });
}

function states(backoff: Backoff, count: number): RetryState[] {
  return Array.from({ length: count }, () => backoff.start(REQUEST));
}

function nextCase(name: string, outcome: Outcome): Case<RetryState[]> {
  const backoff = policy();
  return {
    name,
    group: 'decision',
    baseline: 'array',
    prepare: (count) => states(backoff, count),
    run: (input, count) => {
      let acc = 0;
      for (let i = 0; i < count; i++) acc += (input[i] as RetryState).next(outcome).retry ? 1 : 0;
      return acc;
    },
  };
}

function parseCase(name: string, headers: Record<string, string> | Headers): Case<null> {
  return {
    name,
    group: 'parseRetryAfter',
    baseline: 'counter',
    prepare: () => null,
    run: (_input, count) => {
      let acc = 0;
      for (let i = 0; i < count; i++) acc += parseRetryAfter(headers, NOW) ?? 1;
      return acc;
    },
  };
}

function cases(): Case<unknown>[] {
  const startPolicy = policy();
  return [
    {
      name: 'start(): a request\u2019s retry state (GET, 3 headers)',
      group: 'decision',
      baseline: 'counter',
      prepare: () => null,
      run: (_input, count) => {
        let acc = 0;
        for (let i = 0; i < count; i++) acc += startPolicy.start(REQUEST).attempts;
        return acc;
      },
    },
    nextCase('next(200): the success verdict', response(200)),
    nextCase('next(503, no headers): retry, full-jitter delay', response(503)),
    nextCase('next(503, 8 typical headers): retry, full-jitter delay', response(503, TYPICAL_HEADERS)),
    nextCase(
      'next(503 + Retry-After: 2): retry at the server\u2019s delay',
      response(503, { 'retry-after': '2' }),
    ),
    nextCase('next(ECONNRESET): network error, retry', {
      type: 'error',
      kind: 'network',
      error: networkError,
    }),
    nextCase('next(404): not retryable', response(404)),
    parseCase('no timing header (plain object, 1 header)', { 'content-type': 'application/json' }),
    parseCase('no timing header (plain object, 8 headers)', TYPICAL_HEADERS),
    parseCase('no timing header (fetch Headers, 8 headers)', new Headers(TYPICAL_HEADERS)),
    parseCase('Retry-After: 120 (plain object)', { 'retry-after': '120' }),
    parseCase('Retry-After: 120 (fetch Headers)', new Headers({ 'retry-after': '120' })),
    parseCase('Retry-After: IMF-fixdate', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:30 GMT' }),
    parseCase('Retry-After: asctime date', { 'retry-after': 'Wed Dec  2 12:00:30 2026' }),
    parseCase('RateLimit: "default";r=0;t=30', { ratelimit: '"default";r=0;t=30' }),
    parseCase('X-RateLimit-Reset: epoch s, Remaining: 0', {
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(NOW / 1000 + 30),
    }),
    parseCase('Retry-After: soon (malformed)', { 'retry-after': 'soon' }),
  ] as Case<unknown>[];
}

const baselines = {
  counter: {
    prepare: () => null,
    run: (_input: unknown, count: number) => {
      let acc = 0;
      for (let i = 0; i < count; i++) acc += i & 1;
      return acc;
    },
  },
  array: {
    prepare: (count: number) => Array.from({ length: count }, () => ({ retry: false })),
    run: (input: unknown, count: number) => {
      const items = input as { retry: boolean }[];
      let acc = 0;
      for (let i = 0; i < count; i++) acc += (items[i] as { retry: boolean }).retry ? 1 : 0;
      return acc;
    },
  },
};

function timed(run: (input: unknown, count: number) => number, input: unknown, count: number): number {
  const started = process.hrtime.bigint();
  sink += run(input, count);
  return Number(process.hrtime.bigint() - started) / count;
}

export interface DecisionOptions {
  /** Timed rounds per case (baseline and case interleaved). @default 25 */
  readonly rounds?: number;
  /** Calls per round. @default 5000 */
  readonly calls?: number;
  /** Untimed calls first, so the JIT has optimised both loops. @default 100000 */
  readonly warmup?: number;
}

export interface DecisionRow {
  readonly name: string;
  readonly group: Case<unknown>['group'];
  /** Net ns per call (the case minus its empty loop), per round. */
  readonly ns: Spread;
  /** The empty loop's own ns per iteration (median), for scale. */
  readonly baselineNs: number;
}

export interface DecisionResult {
  readonly rows: readonly DecisionRow[];
  readonly rounds: number;
  readonly calls: number;
  readonly warmup: number;
  readonly seconds: number;
}

/**
 * Measure 2: the core's decision and `parseRetryAfter` in ns per call. Each case runs `warmup` calls untimed,
 * then `rounds` timed rounds of `calls` calls, each round paired with a round of its empty loop; the median of
 * (case - empty loop) is reported. Inputs that a call consumes (a RetryState per `next`) are built untimed.
 */
export function runDecision(options: DecisionOptions = {}): DecisionResult {
  const rounds = options.rounds ?? 25;
  const calls = options.calls ?? 5_000;
  const warmup = options.warmup ?? 100_000;
  const started = performance.now();
  const rows: DecisionRow[] = [];
  for (const item of cases()) {
    const base = baselines[item.baseline];
    for (let done = 0; done < warmup; done += calls) {
      sink += item.run(item.prepare(calls), calls) + base.run(base.prepare(calls), calls);
    }
    const net: number[] = [];
    const empty: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const baseNs = timed(base.run, base.prepare(calls), calls);
      const caseNs = timed(item.run, item.prepare(calls), calls);
      net.push(caseNs - baseNs);
      empty.push(baseNs);
    }
    rows.push({ name: item.name, group: item.group, ns: spread(net), baselineNs: spread(empty).median });
  }
  if (Number.isNaN(sink)) throw new Error('unreachable: keeps the results alive');
  return { rows, rounds, calls, warmup, seconds: (performance.now() - started) / 1000 };
}

export function decisionTable(result: DecisionResult): string {
  const rows = result.rows.map((row) => [
    row.group === 'decision' ? 'RetryState' : 'parseRetryAfter',
    row.name,
    fixed(row.ns.median, 0),
    `${fixed(row.ns.min, 0)}\u2013${fixed(row.ns.max, 0)}`,
    fixed(1e9 / Math.max(row.ns.median, 1) / 1e6, 1),
  ]);
  return markdownTable(['api', 'case', 'ns/call (median)', 'min\u2013max', 'M calls/s'], rows, [
    'l',
    'l',
    'r',
    'r',
    'r',
  ]);
}
