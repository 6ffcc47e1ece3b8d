import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESUME_CLIENTS, recordingTimers } from '../src/resume-clients.ts';
import { ResumeServer, seededSha256 } from '../src/resume-server.ts';
import { heapAfterGc } from './support/resources.ts';

// A 64 MB download cut at 10 seeded offsets, continued with byte ranges through every client with `resume`: the caller's bytes are the body's, the
// server sends little more than the body once, and memory stays bounded while the body streams through.

const SIZE = 64 * 1024 * 1024;
const SEED = 20_261_204;
/** Heap growth allowed while the body streams (V8 heap plus ArrayBuffers, after a forced GC at each sample). */
const MEMORY_BOUND = 16 * 1024 * 1024;
/** Samples of memory, one per 4 MiB that reach the caller. */
const SAMPLE_EVERY = 4 * 1024 * 1024;

/** The wait before each of the 10 resumes: the backoff, doubling from 100 ms, no jitter. */
const WAITS = [100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600, 30_000];

/** 10 cut offsets in (0, SIZE), from a seeded mulberry32: the same every run. */
function seededCuts(seed: number, count: number): number[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return Array.from({ length: count }, () => 1 + Math.floor(next() * (SIZE - 2))).sort((a, b) => a - b);
}

/**
 * What the process holds after a full GC: V8's heap and the ArrayBuffers outside it (where a buffered body would
 * sit). V8 frees dead ArrayBuffers' memory on a background thread: `heapAfterGc` gives it turns of the loop, or a
 * body already collected would still count.
 */
async function held(): Promise<number> {
  const heapUsed = await heapAfterGc();
  return heapUsed + process.memoryUsage().arrayBuffers;
}

/** Hashes every chunk as it comes and samples memory as the body streams; returns the digest and the peak. */
async function consume(
  chunks: AsyncIterable<Uint8Array>,
): Promise<{ sha256: string; bytes: number; peak: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  let nextSample = SAMPLE_EVERY;
  let peak = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    bytes += chunk.length;
    if (bytes >= nextSample) {
      nextSample += SAMPLE_EVERY;
      peak = Math.max(peak, await held());
    }
  }
  return { sha256: hash.digest('hex'), bytes, peak };
}

// Each memory sample is four full GCs: about 20 s per client on a loaded 2-core machine, 5 s alone.
describe('a 64 MB body cut at 10 seeded offsets', { timeout: 180_000 }, () => {
  const server = new ResumeServer();
  let origin = '';
  const expected = seededSha256(SEED, SIZE);
  beforeAll(async () => {
    origin = await server.listen();
  });
  afterAll(() => server.close());

  const serve = (path: string) => {
    const cuts = seededCuts(SEED, 10);
    server.files.set(path, { size: SIZE, seed: SEED, etag: '"big"', ranges: true, cuts: [...cuts] });
    return cuts;
  };

  it.each(RESUME_CLIENTS)(
    '$name with resume: the caller gets the body exactly, the server sends at most 1.05x it, memory stays bounded',
    async (client) => {
      const path = `/big-${client.name.replace(/\W+/g, '-')}`;
      const cuts = serve(path);
      const { waits, timers } = recordingTimers();
      // No jitter: a full-jitter draw below 1 ms floors to a wait of 0, which goes without a timer.
      const http = client.create({ resume: true, retries: 10, timers, jitter: 'none', baseDelay: 100 });
      try {
        const before = await held();
        const response = await http.get(origin + path);
        const { sha256, bytes, peak } = await consume(response.chunks);
        expect(bytes).toBe(SIZE);
        expect(sha256).toBe(expected);
        const hits = server.hits.filter((hit) => hit.path === path);
        expect(hits.map((hit) => hit.status)).toEqual([200, ...cuts.map(() => 206)]);
        hits.slice(1).forEach((hit, i) => {
          const start = Number(/^bytes=(\d+)-/.exec(hit.range ?? '')?.[1]);
          expect(start).toBeLessThanOrEqual(cuts[i] as number);
          expect(start).toBeGreaterThan(i === 0 ? 0 : (cuts[i - 1] as number));
          expect(hit.ifRange).toBe('"big"');
        });
        expect(waits).toEqual(WAITS);
        expect(response.result()).toMatchObject({ attempts: 11, resumes: 10, reason: 'success' });
        const sent = server.sent(path);
        expect(sent / SIZE).toBeLessThanOrEqual(1.05);
        expect(peak - before).toBeLessThan(MEMORY_BOUND);
      } finally {
        http.close();
      }
    },
  );
});
