import { type ChildProcess, fork } from 'node:child_process';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import {
  axiosBare,
  axiosPassThrough,
  axiosWithAxiosRetry,
  axiosWithBackoff,
  axiosWithRetryAxios,
  type Client,
  calibration,
  control,
  type Family,
  fetchBare,
  fetchWithBackoff,
  kyBeforeRequestFloor,
  kyDefaults,
  kyDesignFloor,
  kyEmptyHooksFloor,
  kyFetchFloor,
  kyNoRetry,
  kyShouldRetryFloor,
  kyWithBackoff,
  type Transport,
  type Variant,
} from './clients.js';
import { gc } from './gc.js';
import { MockTransport, requestUrl } from './mock-transport.js';
import { type Spread, spread } from './stats.js';
import { fixed, markdownTable, ratio } from './table.js';

/**
 * The first variant of each family is its baseline (the client as installed, with nothing added). Each family
 * has its two controls: the same bare client measured again (A/A: the noise) and the bare client plus a known
 * amount of CPU work (calibration: what a cost of that size reads as).
 */
export const OVERHEAD_VARIANTS: readonly Variant[] = [
  axiosBare,
  control(axiosBare),
  calibration(axiosBare),
  axiosPassThrough,
  axiosWithBackoff,
  axiosWithAxiosRetry,
  axiosWithRetryAxios,
  kyDefaults,
  control(kyDefaults),
  calibration(kyDefaults),
  kyNoRetry,
  // Floors: what each ky mechanism kyBackoff uses costs by itself, doing nothing (issue 13).
  kyFetchFloor,
  kyShouldRetryFloor,
  kyEmptyHooksFloor,
  kyBeforeRequestFloor,
  kyDesignFloor,
  kyWithBackoff,
  fetchBare,
  control(fetchBare),
  calibration(fetchBare),
  fetchWithBackoff,
];

/** Issue 17's target: axios-backoff's own work per successful request, in-process, over bare axios. */
export const AXIOS_ADDED_TARGET_US = 2;

/**
 * `loopback`: the keep-alive server on 127.0.0.1 (the issue's measure). `in-process`: the same clients on the
 * in-process mock (axios adapter / fetch), so only JavaScript is timed: the added µs are the libraries' own work,
 * without the socket and parser costs that make the loopback ratios noisy.
 */
export type OverheadServer = 'loopback' | 'in-process';

/** The target: a backoff client at most 1% more CPU per successful request than the bare client. */
export const OVERHEAD_TARGET = 1.01;

/**
 * Issue 13's targets for ky-backoff, against ky with its default retry (the `ky` row): CPU per successful
 * request in-process and on the loopback, and retained heap per parked retry against ky's built-in retry.
 */
export const KY_TARGETS = { inProcess: 1.1, loopback: 1.05, memory: 1.2 } as const;

/** The loopback target of one row: ky-backoff's own, else the 1% one. */
export function loopbackTarget(row: OverheadRow): number {
  return row.variant.id === 'ky-backoff' ? KY_TARGETS.loopback : OVERHEAD_TARGET;
}

export interface OverheadOptions {
  /** Timed rounds per family; each round runs every client of the family once, in a shuffled order. @default 12 */
  readonly rounds?: number;
  /** Requests per variant per round. @default 1000 */
  readonly requests?: number;
  /** Requests in flight at once (per variant). @default 4 */
  readonly concurrency?: number;
  /** Untimed requests per variant before the first round. @default 1000 */
  readonly warmup?: number;
  readonly variants?: readonly Variant[];
  /** @default 'loopback' */
  readonly server?: OverheadServer;
  /** Pins the loopback server's process to its own core (see pinning.ts); returns whether it did. */
  readonly pinServer?: ((pid: number) => boolean) | undefined;
}

export interface OverheadRow {
  readonly variant: Variant;
  /** Client CPU time (user + system) per request, in µs, over the rounds. */
  readonly cpuUs: Spread;
  /** Per round: this variant's CPU per request over its family baseline's in the same round. */
  readonly ratio: Spread;
  /** Per round: this variant's CPU per request minus its family baseline's, in µs. */
  readonly addedUs: Spread;
  readonly wallUs: Spread;
  /** The user-mode part of `cpuUs` (JS, GC, the HTTP parser); the rest is the kernel's socket work. */
  readonly userUs: Spread;
  readonly isBaseline: boolean;
}

export interface OverheadResult {
  readonly server: OverheadServer;
  readonly rows: readonly OverheadRow[];
  readonly rounds: number;
  readonly requests: number;
  readonly concurrency: number;
  readonly warmup: number;
  readonly seconds: number;
  /** Whether the loopback server ran pinned to a core of its own. */
  readonly serverPinned: boolean;
}

interface Server {
  readonly url: string;
  readonly pinned: boolean;
  /** What each variant's client is built on (its own agent or mock, made by `transport()`). */
  transport(): Transport;
  close(): Promise<void>;
}

/** The in-process server: every attempt answered 200 at once, through each client's own response objects. */
function mockServer(): Server {
  const mock = new MockTransport(() => 200);
  return {
    url: requestUrl(0),
    pinned: false,
    transport: () => ({ axiosAdapter: mock.axiosAdapter, fetch: mock.fetch }),
    close: async () => {},
  };
}

/** Starts the loopback server in a child process and resolves once it listens. */
function startServer(pinServer: (pid: number) => boolean = () => false): Promise<Server> {
  const agents: Agent[] = [];
  const script = fileURLToPath(new URL('./server-process.ts', import.meta.url));
  // No inherited execArgv (tsx's or vitest's loaders): the child is plain Node, which runs the .ts itself.
  const child: ChildProcess = fork(script, [], {
    execArgv: ['--no-warnings'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`The bench server exited early (code ${code}).`)));
    child.once('message', (message: { port: number }) => {
      child.removeAllListeners('exit');
      resolve({
        url: `http://127.0.0.1:${message.port}/items`,
        pinned: child.pid !== undefined && pinServer(child.pid),
        // Each axios client its own keep-alive agent, as its own instance would have; fetch keeps connections
        // alive by itself (undici's global pool).
        transport: () => {
          const httpAgent = new Agent({ keepAlive: true });
          agents.push(httpAgent);
          return { httpAgent };
        },
        close: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            for (const agent of agents.splice(0)) agent.destroy();
            child.once('exit', () => done());
            child.disconnect();
          }),
      });
    });
  });
}

/** A seeded PRNG (mulberry32), so that a run's orders can be reproduced. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

async function send(client: Client, url: string, requests: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < requests) {
      next++;
      const status = await client.get(url);
      if (status !== 200) throw new Error(`Expected 200 from the bench server, got ${status}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, requests) }, worker));
}

/**
 * Measure 1: CPU time per successful request through each client against a keep-alive server on 127.0.0.1.
 * The server runs in a child process, so `process.cpuUsage()` counts the client only (its JS, its GC and the
 * socket work it does). Rounds interleave a family's clients in a shuffled order; each round's ratio is taken
 * against the family baseline of the same round, and the median over rounds is reported with its spread.
 */
export async function runOverhead(options: OverheadOptions = {}): Promise<OverheadResult> {
  const rounds = options.rounds ?? 12;
  const requests = options.requests ?? 1000;
  const concurrency = options.concurrency ?? 4;
  const warmup = options.warmup ?? 1000;
  const variants = options.variants ?? OVERHEAD_VARIANTS;
  const mode = options.server ?? 'loopback';
  const started = performance.now();
  const server = mode === 'loopback' ? await startServer(options.pinServer) : mockServer();
  try {
    const clients = variants.map((variant) => variant.create(server.transport()));
    const cpu = variants.map(() => [] as number[]);
    const wall = variants.map(() => [] as number[]);
    const user = variants.map(() => [] as number[]);
    // One family at a time (its ratios never span two families), warmed up just before its rounds. Within a
    // round the order is a fresh seeded shuffle: a fixed cyclic order would always put the same client right
    // after a switch of code paths, which showed as a steady bias of up to 20% on an A/A pair.
    const random = mulberry32(0x5eed);
    for (const family of new Set(variants.map((variant) => variant.family))) {
      const members = variants.flatMap((variant, i) => (variant.family === family ? [i] : []));
      for (const i of members) await send(clients[i] as Client, server.url, warmup, concurrency);
      for (let round = 0; round < rounds; round++) {
        for (const i of shuffle(members, random)) {
          // Each batch starts with an empty young generation: no client pays for another's garbage.
          gc();
          const cpuBefore = process.cpuUsage();
          const wallBefore = performance.now();
          await send(clients[i] as Client, server.url, requests, concurrency);
          const used = process.cpuUsage(cpuBefore);
          wall[i]?.push(((performance.now() - wallBefore) * 1000) / requests);
          cpu[i]?.push((used.user + used.system) / requests);
          user[i]?.push(used.user / requests);
        }
      }
    }

    const baselineOf = (family: Family) => variants.findIndex((variant) => variant.family === family);
    const rows = variants.map((variant, i) => {
      const base = baselineOf(variant.family);
      const own = cpu[i] ?? [];
      const baseAt = (round: number) => cpu[base]?.[round] ?? Number.NaN;
      return {
        variant,
        cpuUs: spread(own),
        ratio: spread(own.map((value, round) => value / baseAt(round))),
        addedUs: spread(own.map((value, round) => value - baseAt(round))),
        wallUs: spread(wall[i] ?? []),
        userUs: spread(user[i] ?? []),
        isBaseline: base === i,
      };
    });
    const seconds = (performance.now() - started) / 1000;
    return {
      server: mode,
      rows,
      rounds,
      requests,
      concurrency,
      warmup,
      seconds,
      serverPinned: server.pinned,
    };
  } finally {
    await server.close();
  }
}

/**
 * Whether a backoff row meets its target; undefined where none applies. In-process: issue 17's µs for
 * axios-backoff, issue 13's ratio for ky-backoff. On the loopback: the ratios of issues 7 and 13.
 */
export function overheadVerdict(result: OverheadResult, row: OverheadRow): 'met' | 'missed' | undefined {
  if (!/backoff/i.test(row.variant.name)) return undefined;
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  if (result.server === 'loopback') return met(row.ratio.median <= loopbackTarget(row));
  if (row.variant.id === 'axios-backoff') return met(row.addedUs.median <= AXIOS_ADDED_TARGET_US);
  if (row.variant.id === 'ky-backoff') return met(row.ratio.median <= KY_TARGETS.inProcess);
  return undefined;
}

export function signed(us: number, digits = 1): string {
  return `${us >= 0 ? '+' : ''}${fixed(us, digits)}`;
}

/** A spread of added µs as `+1.2 … +2.0` (its IQR). */
export function addedRange(spread: Spread): string {
  return `${signed(spread.q1)} \u2026 ${signed(spread.q3)}`;
}

/** One table per server: µs first (what the in-process measure resolves), then the ratios. */
export function overheadTable(result: OverheadResult): string {
  const rows = result.rows.map((row) => {
    const relative = row.isBaseline
      ? ['baseline', '', '', '']
      : [
          signed(row.addedUs.median),
          addedRange(row.addedUs),
          ratio(row.ratio.median),
          `${ratio(row.ratio.min)}\u2013${ratio(row.ratio.max)}`,
        ];
    return [
      row.variant.name,
      row.variant.config,
      fixed(row.cpuUs.median, 1),
      ...relative,
      fixed(row.userUs.median, 1),
      fixed(row.wallUs.median, 0),
      overheadVerdict(result, row) ?? '',
    ];
  });
  const header = [
    'client',
    'config',
    'CPU µs/req',
    'added µs/req (median)',
    'added IQR',
    'ratio (median)',
    'ratio min\u2013max',
    'user µs/req',
    'wall µs/req',
    'target',
  ];
  return markdownTable(header, rows, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l']);
}
