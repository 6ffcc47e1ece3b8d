// Hedged requests against a real server on 127.0.0.1 with a slow tail, counted server-side. Run with
// `pnpm --filter @backoff/benchmarks hedging` (about 2 minutes, most of it the row in which every request stalls).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, Hedge, type HedgeOptions, withBackoff } from 'backoff-core';
import ky from 'ky';
import { kyBackoff } from 'ky-backoff';
import { lineChart, type Series } from '../../examples/simulator/src/svg.js';
import { axiosClient, type Client, fetchClient, kyClient } from './clients.js';
import { writeSection } from './results-sections.js';
import { type Measured, runRows } from './rows.js';
import { quantile } from './stats.js';
import { fixed, markdownTable } from './table.js';

export interface HedgingConfig {
  /** Calls per row. @default 400 */
  readonly calls: number;
  /** Calls in flight at once. @default 4 */
  readonly concurrency: number;
  /** How long a normal answer takes, ms. @default 5 */
  readonly fastMs: number;
  /** How long a stalled answer takes, ms. @default 800 */
  readonly stallMs: number;
  /** Every n-th request the server receives stalls. @default 20 */
  readonly stallEvery: number;
}

export const HEDGING_FULL: HedgingConfig = {
  calls: 400,
  concurrency: 4,
  fastMs: 5,
  stallMs: 800,
  stallEvery: 20,
};
/** Seconds: checks that every row runs. */
export const HEDGING_QUICK: HedgingConfig = {
  calls: 40,
  concurrency: 4,
  fastMs: 5,
  stallMs: 200,
  stallEvery: 10,
};

export type HedgeClientKind = 'fetch' | 'axios' | 'ky';

export interface HedgingRowSpec {
  readonly label: string;
  readonly client: HedgeClientKind;
  /** What the row's `new Hedge()` is given, or `false` for no hedging. */
  readonly hedge: false | HedgeOptions;
  readonly method: 'GET' | 'POST';
  /** Every request stalls, not one in `stallEvery`. */
  readonly allStall?: boolean;
}

export const HEDGING_ROWS: readonly HedgingRowSpec[] = [
  { label: 'no hedge', client: 'fetch', hedge: false, method: 'GET' },
  { label: 'hedge: { delay: 50 }', client: 'fetch', hedge: { delay: 50 }, method: 'GET' },
  { label: "hedge: { delay: 'auto' }", client: 'fetch', hedge: { delay: 'auto' }, method: 'GET' },
  { label: 'axios, hedge: { delay: 50 }', client: 'axios', hedge: { delay: 50 }, method: 'GET' },
  { label: 'ky, hedge: { delay: 50 }', client: 'ky', hedge: { delay: 50 }, method: 'GET' },
  { label: 'keyless POST, hedge: { delay: 50 }', client: 'fetch', hedge: { delay: 50 }, method: 'POST' },
  { label: 'every request stalls, no hedge', client: 'fetch', hedge: false, method: 'GET', allStall: true },
  {
    label: 'every request stalls, hedge: { delay: 50 }',
    client: 'fetch',
    hedge: { delay: 50 },
    method: 'GET',
    allStall: true,
  },
];

interface SlowServer {
  readonly url: string;
  /** Requests that arrived, in all and per call (the call's number is in the query). */
  arrivals: number;
  readonly perCall: Map<string, number>;
  /** Stalled requests per call. */
  readonly stalledPerCall: Map<string, number>;
  /** Requests whose connection the client closed before the answer: aborted copies, noticed by the server. */
  closedEarly: number;
  close(): Promise<void>;
}

async function startServer(config: HedgingConfig, allStall: boolean): Promise<SlowServer> {
  const state = {
    arrivals: 0,
    perCall: new Map<string, number>(),
    stalledPerCall: new Map<string, number>(),
    closedEarly: 0,
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    state.arrivals++;
    const call = new URL(request.url ?? '/', 'http://x').searchParams.get('call') ?? '?';
    state.perCall.set(call, (state.perCall.get(call) ?? 0) + 1);
    const stall = allStall || state.arrivals % config.stallEvery === 0;
    if (stall) state.stalledPerCall.set(call, (state.stalledPerCall.get(call) ?? 0) + 1);
    request.resume();
    const timer = setTimeout(
      () => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
      },
      stall ? config.stallMs : config.fastMs,
    );
    // A copy the client aborted: its socket closes, and the server stops working on it.
    response.on('close', () => {
      if (!response.writableFinished) {
        clearTimeout(timer);
        state.closedEarly++;
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/item`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

function createClient(kind: HedgeClientKind, method: 'GET' | 'POST', options: BackoffOptions): Client {
  if (kind === 'axios') {
    const instance = axios.create();
    axiosBackoff(instance, options);
    if (method === 'GET') return axiosClient(instance);
    return axiosClient({ get: (url: string) => instance.post(url, '{}') } as unknown as typeof instance);
  }
  if (kind === 'ky') {
    const instance = kyBackoff(ky.create({ timeout: false }), options);
    if (method === 'GET') return kyClient(instance);
    return kyClient({
      get: (url: string) => instance.post(url, { body: '{}' }),
    } as unknown as typeof instance);
  }
  const fetchWith = withBackoff((input, init) => globalThis.fetch(input, init), options);
  if (method === 'GET') return fetchClient(fetchWith);
  return fetchClient((input, init) => fetchWith(input, { ...init, method: 'POST', body: '{}' }));
}

export interface HedgingRow {
  readonly spec: HedgingRowSpec;
  readonly ok: number;
  /** Each call's latency, ms, in call order. */
  readonly latencies: readonly number[];
  readonly arrivals: number;
  readonly closedEarly: number;
  /** Calls the server saw more than once. */
  readonly callsSentTwice: number;
  /** Calls sent more than once whose every copy stalled: no hedge could help them. */
  readonly everyCopyStalled: number;
}

export async function runHedgingRow(spec: HedgingRowSpec, config: HedgingConfig): Promise<HedgingRow> {
  const server = await startServer(config, spec.allStall === true);
  try {
    // No `hedge` key in the rows without one: today's options, exactly. A fresh Hedge per row: 'auto' learns anew.
    const hedge = spec.hedge === false ? {} : { hedge: new Hedge(spec.hedge) };
    const client = createClient(spec.client, spec.method, hedge);
    const latencies: number[] = new Array(config.calls).fill(Number.NaN);
    let ok = 0;
    let next = 0;
    const worker = async () => {
      while (next < config.calls) {
        const i = next++;
        const started = performance.now();
        const status = await client.get(`${server.url}?call=${i}`);
        latencies[i] = performance.now() - started;
        if (status === 200) ok++;
      }
    };
    await Promise.all(Array.from({ length: config.concurrency }, worker));
    // Let the server see the last aborted copies' sockets close.
    await new Promise((resolve) => setTimeout(resolve, 50));
    let callsSentTwice = 0;
    let everyCopyStalled = 0;
    for (const [call, n] of server.perCall) {
      if (n > 1) callsSentTwice++;
      if (n > 1 && server.stalledPerCall.get(call) === n) everyCopyStalled++;
    }
    return {
      spec,
      ok,
      latencies,
      arrivals: server.arrivals,
      closedEarly: server.closedEarly,
      callsSentTwice,
      everyCopyStalled,
    };
  } finally {
    await server.close();
  }
}

export type HedgingResult = Measured<HedgingConfig, HedgingRow>;

export function runHedging(
  config: HedgingConfig,
  rows: readonly HedgingRowSpec[] = HEDGING_ROWS,
  onRow?: (row: HedgingRow) => void,
): Promise<HedgingResult> {
  return runRows(config, rows, runHedgingRow, onRow);
}

const ms = (value: number) => `${fixed(value, value < 100 ? 1 : 0)} ms`;

export function hedgingTable(result: HedgingResult): string {
  const rows = result.rows.map((row) => [
    row.spec.label,
    `${fixed(row.ok)} / ${fixed(result.config.calls)}`,
    ms(quantile(row.latencies, 0.5)),
    ms(quantile(row.latencies, 0.9)),
    ms(quantile(row.latencies, 0.99)),
    ms(Math.max(...row.latencies)),
    fixed(row.arrivals),
    fixed(row.arrivals / result.config.calls, 3),
    fixed(row.closedEarly),
    fixed(row.callsSentTwice),
    fixed(row.everyCopyStalled),
  ]);
  return markdownTable(
    [
      'client (withBackoff unless named)',
      'calls ok',
      'p50',
      'p90',
      'p99',
      'max',
      'requests (server)',
      'requests / call',
      'closed by the client',
      'calls sent twice+',
      'every copy stalled',
    ],
    rows,
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

export function hedgingVerdicts(result: HedgingResult): string[] {
  const calls = result.config.calls;
  const find = (predicate: (spec: HedgingRowSpec) => boolean) =>
    result.rows.find((row) => predicate(row.spec));
  const verdict = (met: boolean) => (met ? 'met' : '**missed**');
  const lines: string[] = [];
  const check = (row: HedgingRow | undefined, p99Max: number, perCallMax: number) => {
    if (!row) return;
    const p99 = quantile(row.latencies, 0.99);
    const perCall = row.arrivals / calls;
    lines.push(
      `- ${row.spec.label}${row.spec.client === 'fetch' ? '' : ''}: p99 ${ms(p99)}, ${fixed(perCall, 3)} requests per call. Target: p99 <= ${p99Max} ms, <= ${perCallMax} requests per call: ${verdict(p99 <= p99Max && perCall <= perCallMax)}.`,
    );
  };
  check(
    find(
      (s) =>
        s.client === 'fetch' &&
        s.method === 'GET' &&
        !s.allStall &&
        s.hedge !== false &&
        s.hedge.delay === 50,
    ),
    100,
    1.08,
  );
  check(
    find((s) => s.client === 'fetch' && !s.allStall && s.hedge !== false && s.hedge.delay === 'auto'),
    150,
    1.1,
  );
  for (const client of ['axios', 'ky'] as const) {
    check(
      find((s) => s.client === client && s.method === 'GET' && s.hedge !== false),
      100,
      1.08,
    );
  }
  const stalls = find((s) => s.allStall === true && s.hedge !== false);
  if (stalls) {
    const perCall = stalls.arrivals / calls;
    lines.push(
      `- Every request stalls, hedge on: ${fixed(perCall, 3)} requests per call (the retry budget caps the hedges). Target: <= 1.15: ${verdict(perCall <= 1.15)}.`,
    );
  }
  const posts = find((s) => s.method === 'POST');
  if (posts) {
    lines.push(
      `- Keyless POSTs with hedge on: ${fixed(posts.arrivals)} arrivals for ${fixed(calls)} calls, ${posts.callsSentTwice} calls sent more than once. Target: exactly one arrival each: ${verdict(posts.arrivals === calls && posts.callsSentTwice === 0)}.`,
    );
  }
  return lines;
}

/** The latency CDF of each GET row with a 5% tail, on a log axis: x is log10 of the latency in ms. */
export function hedgingChart(result: HedgingResult): string {
  const rows = result.rows.filter(
    (row) => row.spec.client === 'fetch' && row.spec.method === 'GET' && !row.spec.allStall,
  );
  const series: Series[] = rows.map((row) => {
    const sorted = [...row.latencies].sort((a, b) => a - b);
    const points: Array<readonly [number, number]> = [[0, 0]];
    sorted.forEach((latency, i) => {
      const x = Math.max(0, Math.log10(Math.max(1, latency)));
      points.push([x, (i / sorted.length) * 100], [x, ((i + 1) / sorted.length) * 100]);
    });
    return { name: row.spec.label, points };
  });
  const c = result.config;
  return lineChart({
    title: `Latency of ${fixed(c.calls)} GETs, ${c.concurrency} in flight, one request in ${c.stallEvery} stalls ${c.stallMs} ms`,
    subtitle:
      'Share of calls done (%) by each latency. x is log10 of the latency in ms: 1 = 10 ms, 2 = 100 ms, 3 = 1 s.',
    xLabel: 'latency, log10(ms)',
    yLabel: '% of calls done',
    xMax: 3,
    yMax: 100,
    series,
    markers: [
      { x: Math.log10(50), label: '50 ms' },
      { x: Math.log10(c.stallMs), label: `${c.stallMs} ms` },
    ],
  });
}

/** Where the chart goes: `.simulate/` at the repository root, with the simulator's charts. */
export const CHART_PATH = fileURLToPath(new URL('../../.simulate/hedging.svg', import.meta.url));

export function hedgingSection(result: HedgingResult, command: string, chart: string): string {
  const c = result.config;
  return [
    '## Hedging: a slow tail cut off',
    '',
    `- Command: \`${command}\` (${fixed(result.seconds, 0)} s), ${new Date().toISOString()}`,
    `- Server: node:http on 127.0.0.1, in the bench's process. It answers 200 after ${c.fastMs} ms, except every ${c.stallEvery}th request it receives (hedges included), which it answers after ${c.stallMs} ms; a request whose connection the client closes is dropped at once ("closed by the client"). In the "every request stalls" rows each request takes ${c.stallMs} ms.`,
    `- Load: ${fixed(c.calls)} calls per row, ${c.concurrency} in flight, a fresh server and client per row, the options at their defaults (retries 3, the retry budget on) plus the row's \`hedge\`. Latency is each call's, from the call to its body read. Requests are the server's count.`,
    `- Chart: \`${chart}\` (latency CDF, log scale).`,
    '',
    hedgingTable(result),
    '',
    ...hedgingVerdicts(result),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
  const config = values.quick ? HEDGING_QUICK : HEDGING_FULL;
  const command = `pnpm --filter @backoff/benchmarks hedging${values.quick ? ' --quick' : ''}`;
  const result = await runHedging(config, HEDGING_ROWS, (row) =>
    console.error(
      `[hedging] ${row.spec.label}: ${row.ok} ok, p50 ${ms(quantile(row.latencies, 0.5))}, p99 ${ms(quantile(row.latencies, 0.99))}, ${row.arrivals} requests`,
    ),
  );
  mkdirSync(dirname(CHART_PATH), { recursive: true });
  writeFileSync(CHART_PATH, hedgingChart(result));
  console.error(`[hedging] chart: ${CHART_PATH}`);
  const section = hedgingSection(result, command, join('.simulate', 'hedging.svg'));
  console.log(section);
  if (!values.quick) writeSection('hedging', section);
}
