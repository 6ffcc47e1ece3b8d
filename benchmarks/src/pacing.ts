// Pacing against real rate limiters on 127.0.0.1: a steady stream of calls into a quota too small for it, without
// and with a Pacer, counted server-side. Run with `pnpm --filter @backoff/benchmarks pacing` (about 2 minutes:
// every row takes real seconds, because the limiters' windows are real).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, Pacer, withBackoff } from 'backoff-core';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import ky from 'ky';
import { kyBackoff } from 'ky-backoff';
import { axiosClient, type Client, fetchClient, kyClient } from './clients.js';
import { writeSection } from './results-sections.js';
import { type Measured, runRows } from './rows.js';
import { fixed, markdownTable } from './table.js';

export interface PacingConfig {
  /** Requests per window the server allows. @default 20 */
  readonly limit: number;
  /** The limiter's fixed window, ms. @default 1000 */
  readonly windowMs: number;
  /** Calls started per second, evenly spaced. @default 50 */
  readonly rate: number;
  /** Calls in all. @default 200 */
  readonly calls: number;
  /** Retries each call may make. @default 20 */
  readonly retries: number;
}

export const PACING_FULL: PacingConfig = { limit: 20, windowMs: 1000, rate: 50, calls: 200, retries: 20 };
/** A few seconds: checks that every row runs. */
export const PACING_QUICK: PacingConfig = { limit: 5, windowMs: 1000, rate: 10, calls: 12, retries: 20 };

export type LimiterKind = 'headers' | 'bare';
export type ClientKind = 'fetch' | 'axios' | 'ky' | 'shared';

export interface PacingRowSpec {
  readonly label: string;
  readonly limiter: LimiterKind;
  readonly client: ClientKind;
  /** Whether the client(s) get a Pacer (one, shared by all three in the `shared` rows). */
  readonly pacer: boolean;
  /** The retry budget as shipped (on) or off; off by default here, so that every call can finish. */
  readonly budget?: boolean;
}

// The same five clients against each limiter.
const CLIENT_ROWS: readonly Omit<PacingRowSpec, 'limiter'>[] = [
  { label: 'withBackoff, no pacer, default budget', client: 'fetch', pacer: false, budget: true },
  { label: 'withBackoff, no pacer', client: 'fetch', pacer: false },
  { label: 'withBackoff + Pacer', client: 'fetch', pacer: true },
  { label: 'axios + ky + withBackoff, no pacer', client: 'shared', pacer: false },
  { label: 'axios + ky + withBackoff, one Pacer', client: 'shared', pacer: true },
];

export const PACING_ROWS: readonly PacingRowSpec[] = (['headers', 'bare'] as const).flatMap((limiter) =>
  CLIENT_ROWS.map((row) => ({ ...row, limiter })),
);

/** What the server counted: every request that arrived, and the 429s among them. */
interface Counts {
  requests: number;
  throttled: number;
  /** Arrivals and 429s per second since the first request. */
  readonly perSecond: Array<{ requests: number; throttled: number }>;
  first: number | undefined;
}

interface LimitedServer {
  readonly url: string;
  readonly counts: Counts;
  close(): Promise<void>;
}

/**
 * express on 127.0.0.1 behind a fixed-window limiter: express-rate-limit with draft-8 RateLimit headers (and its
 * Retry-After on a 429), or a limiter of the same window that answers a bare 429, no header at all.
 */
async function startServer(kind: LimiterKind, config: PacingConfig): Promise<LimitedServer> {
  const counts: Counts = { requests: 0, throttled: 0, perSecond: [], first: undefined };
  const app = express();
  app.use((_request, response, next) => {
    const now = performance.now();
    counts.first ??= now;
    const second = Math.floor((now - counts.first) / 1000);
    for (let s = counts.perSecond.length; s <= second; s++)
      counts.perSecond.push({ requests: 0, throttled: 0 });
    const bucket = counts.perSecond[second] as { requests: number; throttled: number };
    counts.requests++;
    bucket.requests++;
    response.on('finish', () => {
      if (response.statusCode === 429) {
        counts.throttled++;
        bucket.throttled++;
      }
    });
    next();
  });
  if (kind === 'headers') {
    app.use(
      rateLimit({
        windowMs: config.windowMs,
        limit: config.limit,
        standardHeaders: 'draft-8',
        legacyHeaders: false,
      }),
    );
  } else {
    // The same fixed window as express-rate-limit's memory store (it starts at the first request), no headers.
    let windowStart = Number.NEGATIVE_INFINITY;
    let used = 0;
    app.use((_request, response, next) => {
      const now = performance.now();
      if (now >= windowStart + config.windowMs) {
        windowStart = now;
        used = 0;
      }
      if (++used > config.limit) {
        response.status(429).end();
        return;
      }
      next();
    });
  }
  app.get('/item', (_request, response) => {
    response.json({ ok: true });
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/item`,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function createClient(kind: Exclude<ClientKind, 'shared'>, options: BackoffOptions): Client {
  if (kind === 'axios') {
    const instance = axios.create();
    axiosBackoff(instance, options);
    return axiosClient(instance);
  }
  // ky's own timeout would count a hold as part of an attempt: the other clients have none either.
  if (kind === 'ky') return kyClient(kyBackoff(ky.create({ timeout: false }), options));
  return fetchClient(withBackoff((input, init) => globalThis.fetch(input, init), options));
}

export interface PacingRow {
  readonly spec: PacingRowSpec;
  readonly ok: number;
  /** Calls that ended otherwise, by final status. */
  readonly failed: Readonly<Record<string, number>>;
  readonly throttled: number;
  readonly requests: number;
  /** From the first call's start to the last call's end, ms. */
  readonly last: number;
  readonly perSecond: Counts['perSecond'];
}

export async function runPacingRow(spec: PacingRowSpec, config: PacingConfig): Promise<PacingRow> {
  const server = await startServer(spec.limiter, config);
  try {
    // No `pacer` key at all in the rows without one: today's options, exactly.
    const options: BackoffOptions = {
      retries: config.retries,
      ...(spec.pacer ? { pacer: new Pacer() } : {}),
      ...(spec.budget === true ? {} : { budget: false }),
    };
    const clients =
      spec.client === 'shared'
        ? (['axios', 'ky', 'fetch'] as const).map((kind) => createClient(kind, options))
        : [createClient(spec.client, options)];
    const failed: Record<string, number> = {};
    let ok = 0;
    let last = 0;
    const started = performance.now();
    const spacing = 1000 / config.rate;
    const calls: Promise<void>[] = [];
    for (let i = 0; i < config.calls; i++) {
      const client = clients[i % clients.length] as Client;
      calls.push(
        new Promise<void>((resolve) =>
          setTimeout(resolve, Math.max(0, started + i * spacing - performance.now())),
        )
          .then(() => client.get(server.url))
          .then(
            (status) => {
              if (status === 200) ok++;
              else failed[status] = (failed[status] ?? 0) + 1;
            },
            (error: unknown) => {
              const name = (error as Error)?.name ?? 'error';
              failed[name] = (failed[name] ?? 0) + 1;
            },
          )
          .finally(() => {
            last = Math.max(last, performance.now() - started);
          }),
      );
    }
    await Promise.all(calls);
    return {
      spec,
      ok,
      failed,
      throttled: server.counts.throttled,
      requests: server.counts.requests,
      last,
      perSecond: server.counts.perSecond,
    };
  } finally {
    await server.close();
  }
}

export type PacingResult = Measured<PacingConfig, PacingRow>;

export function runPacing(
  config: PacingConfig,
  rows: readonly PacingRowSpec[] = PACING_ROWS,
  onRow?: (row: PacingRow) => void,
): Promise<PacingResult> {
  return runRows(config, rows, runPacingRow, onRow);
}

/** The ideal: every call served at the limit's rate, ms. */
export function idealMs(config: PacingConfig): number {
  return (config.calls / config.limit) * config.windowMs;
}

export function pacingTable(result: PacingResult): string {
  const ideal = idealMs(result.config);
  const rows = result.rows.map((row) => [
    row.spec.limiter === 'headers' ? 'draft-8 headers' : 'bare 429',
    row.spec.label,
    `${fixed(row.ok)} / ${fixed(result.config.calls)}`,
    fixed(row.throttled),
    fixed(row.requests),
    `${fixed(row.last / 1000, 2)} s`,
    `${fixed(row.last / ideal, 2)}x`,
    Object.entries(row.failed)
      .map(([status, n]) => `${n} x ${status}`)
      .join(', ') || '—',
  ]);
  return markdownTable(
    ['limiter', 'client', 'calls ok', '429s (server)', 'requests sent', 'last done', 'vs ideal', 'failed'],
    rows,
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
}

/** The targets, each checked against its row. */
export function pacingVerdicts(result: PacingResult): string[] {
  const ideal = idealMs(result.config);
  const find = (limiter: LimiterKind, client: ClientKind, pacer: boolean) =>
    result.rows.find(
      (r) =>
        r.spec.limiter === limiter &&
        r.spec.client === client &&
        r.spec.pacer === pacer &&
        r.spec.budget !== true,
    );
  const verdict = (met: boolean) => (met ? 'met' : '**missed**');
  const lines: string[] = [];
  for (const client of ['fetch', 'shared'] as const) {
    const who = client === 'fetch' ? 'withBackoff' : 'axios + ky + withBackoff sharing one Pacer';
    const headers = find('headers', client, true);
    if (headers) {
      const met =
        headers.ok === result.config.calls && headers.throttled <= 25 && headers.last <= 1.15 * ideal;
      lines.push(
        `- ${who}, draft-8 headers: ${headers.ok} of ${result.config.calls} ok, ${headers.throttled} 429s, last done at ${fixed(headers.last / 1000, 2)} s (${fixed(headers.last / ideal, 2)}x the ideal ${fixed(ideal / 1000, 0)} s). Target: all ok, <= 25 429s, <= 1.15x: ${verdict(met)}.`,
      );
    }
    const bare = find('bare', client, true);
    const bareWithout = find('bare', client, false);
    if (bare && bareWithout) {
      const fewer = bare.throttled === 0 ? Number.POSITIVE_INFINITY : bareWithout.throttled / bare.throttled;
      const met = bare.ok === result.config.calls && fewer >= 4;
      lines.push(
        `- ${who}, bare 429s: ${bare.ok} of ${result.config.calls} ok, ${bare.throttled} 429s against ${bareWithout.throttled} without a pacer (${fixed(fewer, 1)}x fewer). Target: all ok, >= 4x fewer 429s: ${verdict(met)}. No target for the time, but the last call ended at ${fixed(bare.last / 1000, 2)} s, ${fixed(bare.last / ideal, 2)}x the ideal, against ${fixed(bareWithout.last / 1000, 2)} s without a pacer.`,
      );
    }
  }
  return lines;
}

export function pacingSection(result: PacingResult, command: string): string {
  const c = result.config;
  return [
    '## Pacing: a stream of calls into a rate limit',
    '',
    `- Command: \`${command}\` (${fixed(result.seconds, 0)} s), ${new Date().toISOString()}`,
    `- Servers: express 5.3.0 on 127.0.0.1, in the bench's process. "draft-8 headers": express-rate-limit 8.7.5, \`standardHeaders: 'draft-8'\`, ${c.limit} requests per ${c.windowMs} ms window (its memory store: the window starts at the first request). "bare 429": a limiter with the same fixed window that answers 429 with no header at all.`,
    `- Load: ${c.calls} GETs, ${c.rate} started per second, evenly spaced (${fixed(c.calls / c.rate, 1)} s), each call with \`retries: ${c.retries}\` and \`budget: false\` (so that every call can finish; the "default budget" rows keep the shipped budget), the other options at their defaults. A fresh server (fresh quota) and fresh clients for each row. In the axios + ky + withBackoff rows each client takes every third call.`,
    `- Counts are the server's. "last done" runs from the first call's start to the last call's end; the ideal is ${c.calls} / ${c.limit} per ${c.windowMs / 1000} s = ${fixed(idealMs(c) / 1000, 0)} s.`,
    '',
    pacingTable(result),
    '',
    ...pacingVerdicts(result),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
  const config = values.quick ? PACING_QUICK : PACING_FULL;
  const command = `pnpm --filter @backoff/benchmarks pacing${values.quick ? ' --quick' : ''}`;
  const result = await runPacing(config, PACING_ROWS, (row) =>
    console.error(
      `[pacing] ${row.spec.limiter} / ${row.spec.label}: ${row.ok} ok, ${row.throttled} 429s, ${row.requests} requests, last ${fixed(row.last / 1000, 2)} s`,
    ),
  );
  const section = pacingSection(result, command);
  console.log(section);
  if (!values.quick) writeSection('pacing', section);
}
