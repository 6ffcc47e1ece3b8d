import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import {
  axiosBare,
  axiosWithAxiosRetry,
  axiosWithBackoff,
  type Client,
  fetchBare,
  fetchWithBackoff,
  kyDefaults,
  kyWithBackoff,
  type Variant,
} from './clients.js';
import { MockTransport, requestUrl } from './mock-transport.js';
import { fixed, markdownTable } from './table.js';

/** The clients profiled: each backoff package next to the client it wraps (and axios-retry, the peer). */
export const PROFILE_VARIANTS: readonly Variant[] = [
  axiosBare,
  axiosWithBackoff,
  axiosWithAxiosRetry,
  kyDefaults,
  kyWithBackoff,
  fetchBare,
  fetchWithBackoff,
];

export interface ProfileOptions {
  /** Profiled requests per variant. @default 20000 */
  readonly requests?: number;
  /** Untimed requests before the profile starts. @default 5000 */
  readonly warmup?: number;
  /** Sampling interval of V8's profiler, in µs. @default 50 */
  readonly intervalUs?: number;
  /** Functions listed per variant (the largest self-time first). @default 8 */
  readonly top?: number;
  readonly variants?: readonly Variant[];
}

/** Self time of one function, per request. */
export interface ProfileFrame {
  readonly name: string;
  /** Where it is: a path relative to the repository (or the package name in node_modules), and the line. */
  readonly where: string;
  /** Which package or part the function belongs to: `backoff` (this repository's packages), a library, `node`. */
  readonly owner: string;
  readonly selfUs: number;
}

export interface ProfileRow {
  readonly variant: Variant;
  /** Sampled time per request, every function. */
  readonly totalUs: number;
  /** Self time per request by owner (`backoff`, `axios`, `ky`, `node`, `gc`, ...). */
  readonly byOwner: Readonly<Record<string, number>>;
  /** The functions of this repository's packages, largest self time first. */
  readonly frames: readonly ProfileFrame[];
}

export interface ProfileResult {
  readonly requests: number;
  readonly intervalUs: number;
  readonly rows: readonly ProfileRow[];
  readonly seconds: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The owner of a script URL: this repository's packages are `backoff`, a dependency is its package name. */
function ownerOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'gc';
  if (url === '') return name.startsWith('(') ? name.slice(1, -1) : 'native';
  if (url.startsWith('node:')) return 'node';
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency) return dependency[1] as string;
  if (path.includes('/packages/')) return 'backoff';
  if (path.includes('/benchmarks/')) return 'harness';
  return 'other';
}

function whereOf(url: string, line: number): string {
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  const short = path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
  return `${short}:${line + 1}`;
}

/** Sums the profile's samples into self time (µs) per node, from the real time deltas between samples. */
function selfTimes(profile: CpuProfile): Map<number, number> {
  const times = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the delta to the next one (the last has none: the interval's mean would do; it is 1 of
    // tens of thousands).
    const delta = deltas[i + 1] ?? 0;
    const id = samples[i] as number;
    times.set(id, (times.get(id) ?? 0) + delta);
  }
  return times;
}

async function send(client: Client, requests: number, concurrency = 4): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < requests) {
      next++;
      const status = await client.get(requestUrl(0));
      if (status !== 200) throw new Error(`Expected 200 from the mock, got ${status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function profileOne(session: Session, variant: Variant, options: Required<ProfileOptions>) {
  const mock = new MockTransport(() => 200);
  const client = variant.create({ axiosAdapter: mock.axiosAdapter, fetch: mock.fetch });
  await send(client, options.warmup);
  await session.post('Profiler.start');
  await send(client, options.requests);
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  const times = selfTimes(profile);
  const byOwner: Record<string, number> = {};
  const frames = new Map<string, ProfileFrame>();
  let total = 0;
  for (const node of profile.nodes) {
    const us = times.get(node.id);
    if (us === undefined) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const owner = ownerOf(url, functionName);
    const perRequest = us / options.requests;
    total += perRequest;
    byOwner[owner] = (byOwner[owner] ?? 0) + perRequest;
    if (owner !== 'backoff') continue;
    const name = functionName || '(anonymous)';
    const where = whereOf(url, lineNumber);
    const key = `${name}@${where}`;
    const known = frames.get(key);
    frames.set(key, { name, where, owner, selfUs: (known?.selfUs ?? 0) + perRequest });
  }
  const top = [...frames.values()].sort((a, b) => b.selfUs - a.selfUs).slice(0, options.top);
  return { variant, totalUs: total, byOwner, frames: top };
}

/**
 * Measure 1c: where a successful request's time goes, by V8's sampling profiler (through `node:inspector`, in
 * this process). Each client sends its requests on the in-process mock; the samples are summed into self time
 * per function and per owner (this repository's packages, axios, ky, node's internals, the GC). Sampling
 * attributes time, it does not time: the per-request µs here are shares of the profiled run, and the
 * in-process measure (1) is the number to compare clients by.
 */
export async function runProfile(options: ProfileOptions = {}): Promise<ProfileResult> {
  const sizes: Required<ProfileOptions> = {
    requests: options.requests ?? 20_000,
    warmup: options.warmup ?? 5000,
    intervalUs: options.intervalUs ?? 50,
    top: options.top ?? 8,
    variants: options.variants ?? PROFILE_VARIANTS,
  };
  const started = performance.now();
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: sizes.intervalUs });
    const rows: ProfileRow[] = [];
    for (const variant of sizes.variants) rows.push(await profileOne(session, variant, sizes));
    await session.post('Profiler.disable');
    return {
      requests: sizes.requests,
      intervalUs: sizes.intervalUs,
      rows,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    session.disconnect();
  }
}

const OWNERS = ['backoff', 'axios', 'axios-retry', 'ky', 'node', 'gc', 'harness'] as const;

/** Self time per request by owner, one row per client. */
export function profileOwnerTable(result: ProfileResult): string {
  const rows = result.rows.map((row) => {
    const named = OWNERS.reduce((sum, owner) => sum + (row.byOwner[owner] ?? 0), 0);
    return [
      `${row.variant.name}`,
      fixed(row.totalUs, 1),
      ...OWNERS.map((owner) => (row.byOwner[owner] === undefined ? '' : fixed(row.byOwner[owner], 2))),
      fixed(row.totalUs - named, 1),
    ];
  });
  return markdownTable(
    ['client', 'sampled µs/req', ...OWNERS.map((owner) => `${owner} µs`), 'other µs'],
    rows,
    ['l', 'r', ...OWNERS.map(() => 'r' as const), 'r'],
  );
}

/** The backoff packages' own functions, by self time per request. */
export function profileFrameTable(result: ProfileResult): string {
  const rows = result.rows.flatMap((row) =>
    row.frames.map((frame) => [row.variant.name, `\`${frame.name}\``, frame.where, fixed(frame.selfUs, 2)]),
  );
  return markdownTable(['client', 'function', 'where', 'self µs/req'], rows, ['l', 'l', 'l', 'r']);
}
