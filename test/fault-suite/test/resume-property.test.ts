import { createHash } from 'node:crypto';
import { ResumeError } from 'backoff-core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESUME_CLIENTS, readAll, recordingTimers } from '../src/resume-clients.ts';
import { ResumeServer, type ServedEvents, seededBytes } from '../src/resume-server.ts';

// Never a spliced body: whatever the cuts, the server's range support (one that ignores If-Range too) and a file
// replaced between two resumes, the caller's bytes are a prefix of one representation (the whole of it when the body
// ends without error), and the requests sent stay within the call's retries. Never an event twice: whatever the cuts
// of an event stream and the events that reset its id (an empty `id:`), the caller reads each event at most once, in
// order, none skipped.

const SIZE = 256 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const bodyOf = (seed: number, length = SIZE) => Buffer.concat([...seededBytes(seed, 0, length)]);

const server = new ResumeServer();
let origin = '';
beforeAll(async () => {
  origin = await server.listen();
});
afterAll(() => server.close());

interface Case {
  readonly cuts: number[];
  readonly ranges: boolean;
  /** The server serves ranges whatever If-Range says. */
  readonly ignoresIfRange: boolean;
  readonly strong: boolean;
  /** The resume (0-based) before which the file is replaced, if it is. */
  readonly replacedAt: number | undefined;
  readonly retries: number;
}

const cases: fc.Arbitrary<Case> = fc.record({
  cuts: fc
    .uniqueArray(fc.integer({ min: 0, max: SIZE - 1 }), { minLength: 1, maxLength: 4 })
    .map((cuts) => [...cuts].sort((a, b) => a - b)),
  ranges: fc.boolean(),
  ignoresIfRange: fc.boolean(),
  strong: fc.boolean(),
  replacedAt: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  retries: fc.integer({ min: 0, max: 5 }),
});

describe.each(RESUME_CLIENTS)('$name with resume, any cuts', (client) => {
  let n = 0;
  it('gives the caller a prefix of one representation, whole when no error, within retries', async () => {
    await fc.assert(
      fc.asyncProperty(cases, async ({ cuts, ranges, ignoresIfRange, strong, replacedAt, retries }) => {
        const path = `/property-${client.name.replace(/\W+/g, '-')}-${++n}`;
        const etag = strong ? '"1"' : 'W/"1"';
        server.files.set(path, { size: SIZE, seed: 1, etag, ranges, ignoresIfRange, cuts: [...cuts] });
        const { timers } = recordingTimers((wait) => {
          if (wait === replacedAt)
            Object.assign(server.files.get(path) ?? {}, { seed: 2, etag: strong ? '"2"' : 'W/"2"' });
        });
        const http = client.create({ resume: true, retries, timers });
        try {
          const { bytes, error } = await readAll(await http.get(origin + path));
          const first = bodyOf(1, bytes.length);
          const second = bodyOf(2, bytes.length);
          const prefix = sha256(bytes);
          expect([sha256(first), sha256(second)]).toContain(prefix);
          if (error === undefined) expect(bytes.length).toBe(SIZE);
          else if (error instanceof ResumeError) expect(error.received).toBe(bytes.length);
          expect(server.hits.filter((hit) => hit.path === path).length).toBeLessThanOrEqual(1 + retries);
        } finally {
          http.close();
        }
      }),
      { numRuns: 25 },
    );
  });
});

/** An event stream drawn at random: its events (some resetting the id), and where each connection is cut. */
const streams: fc.Arbitrary<{ served: ServedEvents; retries: number }> = fc
  .record({
    resets: fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
    cuts: fc.array(fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }), {
      minLength: 1,
      maxLength: 5,
    }),
    eol: fc.constantFrom('\n', '\r\n', '\r'),
    retries: fc.integer({ min: 0, max: 5 }),
  })
  .map(({ resets, cuts, eol, retries }) => ({
    served: {
      events: resets.map((reset, i) => ({ id: reset ? '' : String(i + 1), data: `event ${i + 1}` })),
      connections: cuts.map((cutAfter) => ({ retry: 10, eol, cutAfter })),
    },
    retries,
  }));

describe.each(RESUME_CLIENTS)('$name with resume, any event stream', (client) => {
  let n = 0;
  it('hands the caller each event at most once, in order, none skipped, within retries', async () => {
    await fc.assert(
      fc.asyncProperty(streams, async ({ served, retries }) => {
        const path = `/property-events-${client.name.replace(/\W+/g, '-')}-${++n}`;
        server.streams.set(path, served);
        const { timers } = recordingTimers();
        const http = client.create({ resume: true, retries, timers });
        try {
          const { bytes, error } = await readAll(await http.get(origin + path));
          const text = new TextDecoder().decode(bytes);
          const seen = [...text.matchAll(/data: event (\d+)/g)].map((match) => Number(match[1]));
          // 1, 2, ..., k: nothing twice, nothing out of order, nothing skipped.
          expect(seen).toEqual(seen.map((_, i) => i + 1));
          if (error instanceof ResumeError) expect(error.received).toBe(bytes.length);
          expect(server.hits.filter((hit) => hit.path === path).length).toBeLessThanOrEqual(1 + retries);
        } finally {
          http.close();
        }
      }),
      { numRuns: 25, seed: 20_261_205 },
    );
  });
});
