import {
  axiosBare,
  axiosWithAxiosRetry,
  axiosWithBackoff,
  axiosWithRetryAxios,
  type Client,
  type Family,
  fetchBare,
  fetchWithBackoff,
  kyDefaults,
  kyHooksRetryFloor,
  kyWithBackoff,
  type Variant,
} from './clients.js';
import { gc } from './gc.js';
import { MockTransport, requestUrl, type Script } from './mock-transport.js';
import { median } from './stats.js';
import { fixed, markdownTable, ratio } from './table.js';
import { turns, withVirtualTimers } from './virtual-timers.js';

/**
 * How a variant's requests are parked. A bare client has no retry wait, so its baseline is a request whose
 * attempt is still in flight (the server has not answered). A retrying client's request got a 503 and sits in
 * its retry wait, the timer held by the virtual clock: what one pending retry costs is its difference.
 */
interface Subject {
  readonly variant: Variant;
  readonly parked: 'in flight' | 'in retry wait';
}

export const MEMORY_SUBJECTS: readonly Subject[] = [
  { variant: axiosBare, parked: 'in flight' },
  { variant: axiosWithBackoff, parked: 'in retry wait' },
  { variant: axiosWithAxiosRetry, parked: 'in retry wait' },
  { variant: axiosWithRetryAxios, parked: 'in retry wait' },
  { variant: kyDefaults, parked: 'in flight' },
  { variant: kyWithBackoff, parked: 'in retry wait' },
  { variant: { ...kyDefaults, id: 'ky-wait', name: 'ky (built-in retry)' }, parked: 'in retry wait' },
  // What ky itself keeps per call once an instance has hooks (kyBackoff's three, doing nothing).
  { variant: kyHooksRetryFloor, parked: 'in retry wait' },
  { variant: fetchBare, parked: 'in flight' },
  { variant: fetchWithBackoff, parked: 'in retry wait' },
];

// The backoff packages' default budget (20 retries in reserve) would refuse all but 20 of N parked retries:
// its reserve is lifted here so every request really waits. The budget object is shared, so its size is not
// per request.
const NO_DRY_BUDGET = { budget: { reserve: 1_000_000 } };

export interface MemoryOptions {
  /** Requests parked at once. @default 2000 */
  readonly requests?: number;
  /** Rounds per subject (interleaved); the median is reported. @default 3 */
  readonly rounds?: number;
  readonly subjects?: readonly Subject[];
}

export interface MemoryRow {
  readonly subject: Subject;
  /** Retained heap per parked request, in bytes (median of the rounds). */
  readonly bytesPerRequest: number;
  readonly rounds: readonly number[];
}

export interface MemoryResult {
  readonly requests: number;
  readonly rounds: number;
  readonly rows: readonly MemoryRow[];
  readonly seconds: number;
}

function heapAfterGc(): number {
  // Twice: the first pass can leave weakly held objects (finalisers, weak maps) for the second one.
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Polls (a turn of the event loop at a time) until `done`, or fails after `limit` turns. */
async function until(done: () => boolean, what: string, limit = 100_000): Promise<void> {
  for (let turn = 0; !done(); turn++) {
    if (turn >= limit) throw new Error(`Timed out waiting for ${what}`);
    await turns(1);
  }
}

async function parkOnce(subject: Subject, requests: number): Promise<number> {
  const waits = subject.parked === 'in retry wait';
  // First attempts: a 503 for the retrying subjects, no answer yet for the bare ones; later attempts: 200.
  const script: Script = (_request, attempt) => (attempt > 0 ? 200 : waits ? 503 : 'hold');
  return withVirtualTimers(async (timers) => {
    const transport = new MockTransport(script);
    const client: Client = subject.variant.create(
      { axiosAdapter: transport.axiosAdapter, fetch: transport.fetch },
      NO_DRY_BUDGET,
    );
    // Warm-up through the same client and code paths (lazy initialisation, compiled code, inline caches), so
    // that only what each parked request holds is counted. Its URLs are past the measured ones.
    timers.mode = 'auto';
    const warm = Array.from({ length: 50 }, (_, i) => client.get(requestUrl(requests + i)));
    if (!waits) await until(() => transport.heldCount === warm.length, 'the warm-up to reach the server');
    transport.release(200);
    await Promise.all(warm);

    timers.mode = 'hold';
    const before = heapAfterGc();
    const pending: Promise<number>[] = [];
    // A retry whose jittered delay rounds to 0 ms goes at once, without a timer: it is done, not parked.
    let finished = 0;
    const count = () => {
      finished++;
    };
    for (let i = 0; i < requests; i++) {
      const request = client.get(requestUrl(i));
      request.then(count, count);
      pending.push(request);
    }
    const settled = Promise.allSettled(pending);
    if (waits) {
      await until(
        () => timers.pendingCount + finished >= requests,
        'every request to start its retry wait (or finish)',
      );
    } else {
      await until(() => transport.heldCount === requests, 'every request to reach the server');
    }
    // A few more turns, so that nothing is still in the middle of being set up.
    await turns(10);
    const after = heapAfterGc();
    const parked = requests - finished;

    // Let every parked request finish (200s), so that nothing leaks into the next round.
    transport.release(200);
    timers.mode = 'auto';
    const outcomes = await settled;
    const failed = outcomes.filter((outcome) => outcome.status === 'rejected');
    if (failed.length > 0) {
      throw new Error(`${subject.variant.name}: ${failed.length} parked requests failed to finish`);
    }
    return (after - before) / parked;
  });
}

/**
 * Measure 4: retained heap per in-flight request with a pending retry. N requests are parked at once through
 * one client (the virtual clock holds every retry timer), the heap is measured after a full GC before and
 * after, and the difference is divided by N.
 */
export async function runMemory(options: MemoryOptions = {}): Promise<MemoryResult> {
  const requests = options.requests ?? 2000;
  const rounds = options.rounds ?? 3;
  const subjects = options.subjects ?? MEMORY_SUBJECTS;
  const started = performance.now();
  const samples = subjects.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, subject] of subjects.entries()) samples[i]?.push(await parkOnce(subject, requests));
  }
  const rows = subjects.map((subject, i) => {
    const values = samples[i] ?? [];
    return { subject, bytesPerRequest: median(values), rounds: values };
  });
  return { requests, rounds, rows, seconds: (performance.now() - started) / 1000 };
}

export function memoryTable(result: MemoryResult): string {
  const baseline = (family: Family) =>
    result.rows.find((row) => row.subject.variant.family === family && row.subject.parked === 'in flight');
  const rows = result.rows.map((row) => {
    const base = baseline(row.subject.variant.family);
    const isBase = base === row;
    return [
      row.subject.variant.name,
      row.subject.parked,
      fixed(row.bytesPerRequest),
      `${fixed(Math.min(...row.rounds))}\u2013${fixed(Math.max(...row.rounds))}`,
      base === undefined || isBase
        ? 'baseline'
        : `${row.bytesPerRequest >= base.bytesPerRequest ? '+' : ''}${fixed(row.bytesPerRequest - base.bytesPerRequest)}`,
      base === undefined || isBase ? '' : ratio(row.bytesPerRequest / base.bytesPerRequest),
    ];
  });
  return markdownTable(
    ['client', 'parked', 'bytes/request (median)', 'min\u2013max', 'vs in-flight bare', 'ratio'],
    rows,
    ['l', 'l', 'r', 'r', 'r', 'r'],
  );
}
