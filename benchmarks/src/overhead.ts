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
 * has its A/A and calibration controls (benchmarks/README.md says what each is for).
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
  // Floors: what each ky mechanism kyBackoff uses costs by itself, doing nothing.
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

/**
 * `loopback`: the keep-alive server on 127.0.0.1. `in-process`: the same clients on the in-process mock (axios
 * adapter / fetch), so only JavaScript is timed: the added µs are the libraries' own work, without the socket and
 * parser costs that make the loopback ratios noisy.
 */
export type OverheadServer = 'loopback' | 'in-process';

/** The speed targets RESULTS.md judges by (benchmarks/README.md says why these). */
export const SPEED_TARGETS = {
  /** CPU µs per successful request over the bare client, in-process. */
  addedUs: { 'axios-backoff': 3, 'with-backoff': 3 } as Readonly<Record<string, number>>,
  /**
   * ky-backoff's CPU per successful request against ky with its default retry (the `ky` row), in-process. On the
   * loopback it has no target: it is judged against ky's own floor for a plugin of its shape (the design floor).
   */
  kyRatio: 1.5,
} as const;

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
  /**
   * Each client in a Node process of its own (overhead-client.ts), run one at a time. In one process the
   * clients share axios's, ky's and undici's functions: every other client's config shapes and adapters make
   * their inline caches polymorphic, and a client is timed on code that others have de-optimised. A process of
   * its own times each client as an application that uses only it would run it. The processes run the built
   * packages through tsx, so the packages must have been built (`pnpm bench` does). @default false
   */
  readonly isolate?: boolean;
  /**
   * With `isolate`: the processes each client runs in, one after another, the rounds shared out between them.
   * A process's JIT settles on its own inlining and tiering choices, which can shift a client's CPU per request
   * by a µs for all of that process's rounds: more processes put several of those choices into the median.
   * @default 4
   */
  readonly processes?: number;
  /**
   * With `isolate`: the processes load the backoff packages from their TypeScript sources (the `@backoff/source`
   * condition, as the smoke test does), not as built. @default false
   */
  readonly fromSources?: boolean;
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
  /** Whether each client ran in a process of its own (`isolate`). */
  readonly isolated: boolean;
  /** The processes each client ran in, one after another (1 when not isolated: this one). */
  readonly processes: number;
}

interface Server {
  readonly url: string;
  readonly pinned: boolean;
  /** What each variant's client is built on (its own agent or mock, made by `transport()`). */
  transport(): Transport;
  close(): Promise<void>;
}

/** The in-process server: every attempt answered 200 at once, through each client's own response objects. */
export function mockServer(): Server {
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

/** Sends `requests` GETs through `client`, `concurrency` at a time, each expecting a 200. */
export async function send(
  client: Client,
  url: string,
  requests: number,
  concurrency: number,
): Promise<void> {
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
  const isolated = options.isolate === true;
  const generations = isolated ? Math.max(1, Math.min(options.processes ?? 4, rounds)) : 1;
  const server = mode === 'loopback' ? await startServer(options.pinServer) : mockServer();
  try {
    const cpu = variants.map(() => [] as number[]);
    const wall = variants.map(() => [] as number[]);
    const user = variants.map(() => [] as number[]);
    // One family at a time (its ratios never span two families), warmed up just before its rounds. Within a
    // round the order is a fresh seeded shuffle: a fixed cyclic order would always put the same client right
    // after a switch of code paths, which showed as a steady bias of up to 20% on an A/A pair.
    const random = mulberry32(0x5eed);
    for (const family of new Set(variants.map((variant) => variant.family))) {
      const members = variants.flatMap((variant, i) => (variant.family === family ? [i] : []));
      for (let generation = 0; generation < generations; generation++) {
        // This process generation's share of the rounds.
        const share =
          Math.floor(((generation + 1) * rounds) / generations) -
          Math.floor((generation * rounds) / generations);
        const runners = new Map<number, Runner>();
        try {
          for (const i of members) {
            const variant = variants[i] as Variant;
            runners.set(
              i,
              isolated
                ? await processRunner(variant, mode, server.url, options.fromSources === true)
                : inProcessRunner(variant.create(server.transport()), server.url),
            );
          }
          for (const i of members) await runners.get(i)?.send(warmup, concurrency);
          for (let round = 0; round < share; round++) {
            for (const i of shuffle(members, random)) {
              const cost = await (runners.get(i) as Runner).timed(requests, concurrency);
              cpu[i]?.push(cost.cpu);
              wall[i]?.push(cost.wall);
              user[i]?.push(cost.user);
            }
          }
        } finally {
          for (const runner of runners.values()) runner.close();
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
      isolated,
      processes: generations,
    };
  } finally {
    await server.close();
  }
}

/** Whether a backoff row meets its target; undefined where none applies. */
export function overheadVerdict(result: OverheadResult, row: OverheadRow): 'met' | 'missed' | undefined {
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  if (row.variant.id === 'ky-backoff') {
    return result.server === 'in-process' ? met(row.ratio.median <= SPEED_TARGETS.kyRatio) : undefined;
  }
  const added = SPEED_TARGETS.addedUs[row.variant.id];
  if (result.server === 'in-process' && added !== undefined) return met(row.addedUs.median <= added);
  return undefined;
}

export function signed(us: number, digits = 1): string {
  return `${us >= 0 ? '+' : ''}${fixed(us, digits)}`;
}

/** A spread of added µs as `+1.2 … +2.0` (its IQR). */
export function addedRange(spread: Spread, digits = 1): string {
  return `${signed(spread.q1, digits)} \u2026 ${signed(spread.q3, digits)}`;
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

/** What one timed batch used, per request, in µs: CPU (user + system), its user part, and wall time. */
export interface BatchCost {
  readonly cpu: number;
  readonly user: number;
  readonly wall: number;
}

/** `send`, timed by this process's CPU time, after a minor GC. */
export async function timedBatch(
  client: Client,
  url: string,
  requests: number,
  concurrency: number,
): Promise<BatchCost> {
  // Each batch starts with an empty young generation: no client pays for another's garbage. A full GC would also
  // drop, with no request in flight, the object shapes the warmed-up code was compiled for: every batch would then
  // time the JIT's warm-up again (withBackoff read +5 µs a request so, +1.2 µs after a minor GC).
  gc('minor');
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await send(client, url, requests, concurrency);
  const used = process.cpuUsage(cpuBefore);
  return {
    cpu: (used.user + used.system) / requests,
    user: used.user / requests,
    wall: ((performance.now() - wallBefore) * 1000) / requests,
  };
}

/** One client of the measure, wherever it runs: `send` untimed (the warm-up), `timed` for a round. */
interface Runner {
  send(requests: number, concurrency: number): Promise<void>;
  timed(requests: number, concurrency: number): Promise<BatchCost>;
  close(): void;
}

function inProcessRunner(client: Client, url: string): Runner {
  return {
    send: (requests, concurrency) => send(client, url, requests, concurrency),
    timed: (requests, concurrency) => timedBatch(client, url, requests, concurrency),
    close: () => {},
  };
}

/** A message to overhead-client.ts: a batch to send, timed or not. */
export interface BatchOrder {
  readonly requests: number;
  readonly concurrency: number;
  readonly timed: boolean;
}

/** overhead-client.ts's answer to a BatchOrder (or its start, `{}`). */
export interface BatchReply {
  readonly cost?: BatchCost;
  readonly error?: string;
}

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Starts `variant`'s client in a process of its own (overhead-client.ts, through tsx) and resolves once it is
 * ready. The process inherits this one's core (pinning.ts) and waits, idle, between its batches.
 */
function processRunner(
  variant: Variant,
  mode: OverheadServer,
  url: string,
  fromSources: boolean,
): Promise<Runner> {
  const script = fileURLToPath(new URL('./overhead-client.ts', import.meta.url));
  const child = fork(script, [variant.id, mode, url], {
    cwd: BENCH_DIR,
    execArgv: [...(fromSources ? ['--conditions=@backoff/source'] : []), '--import', 'tsx', '--no-warnings'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const reply = () =>
    new Promise<BatchReply>((resolve, reject) => {
      const exited = (code: number | null) =>
        reject(new Error(`The bench client process of ${variant.id} exited (code ${code}).`));
      child.once('exit', exited);
      child.once('message', (message: BatchReply) => {
        child.off('exit', exited);
        if (message.error !== undefined) reject(new Error(`${variant.id}: ${message.error}`));
        else resolve(message);
      });
    });
  const order = async (message: BatchOrder): Promise<BatchReply> => {
    const answer = reply();
    child.send(message);
    return answer;
  };
  return reply().then(() => ({
    send: async (requests, concurrency) => void (await order({ requests, concurrency, timed: false })),
    timed: async (requests, concurrency) => {
      const { cost } = await order({ requests, concurrency, timed: true });
      if (cost === undefined) throw new Error(`${variant.id}: a timed batch came back without its cost.`);
      return cost;
    },
    close: () => {
      if (child.connected) child.disconnect();
    },
  }));
}
