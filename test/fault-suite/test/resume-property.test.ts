import { createHash } from 'node:crypto';
import { cycling, StallingPacerStore, VirtualClock } from '@backoff/test-utils';
import { type BackoffOptions, getBackoffResult, Pacer, ResumeError } from 'backoff-core';
import fc from 'fast-check';
import type ky from 'ky';
import ky113 from 'ky-1.13.0';
import ky1142 from 'ky-1.14.2';
import ky200 from 'ky-2.0.0';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kyClient, RESUME_CLIENTS, readAll, recordingTimers } from '../src/resume-clients.ts';
import { ResumeServer, type ServedEvents, seededBytes } from '../src/resume-server.ts';

// Never a spliced body: whatever the cuts, the server's range support (one that ignores If-Range too) and a file
// replaced between two resumes, the caller's bytes are a prefix of one representation (the whole of it when the body
// ends without error), and the requests sent stay within the call's retries. Never an event twice: whatever the cuts
// of an event stream and the events that reset its id (an empty `id:`), whatever the caller's callbacks do (stay
// pending past the deadline too) and however late a shared pacer store answers, the caller reads each event at most
// once, in order, none skipped, and the call settles by its deadline; on every client and every ky line.

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

/** What the caller's callbacks do: `hang` stays pending for ever, past the deadline. */
type Callback = 'none' | 'async' | 'hang';

interface StreamCase {
  readonly served: ServedEvents;
  readonly retries: number;
  readonly shouldRetry: Callback;
  readonly onRetry: Callback;
  readonly beforeAttempt: Callback;
  /** A pacer whose shared store answers each ask after the next of these stalls (ms); `undefined`: no pacer. */
  readonly stalls: readonly number[] | undefined;
  readonly deadline: number | undefined;
}

/** An event stream drawn at random: its events (some resetting the id), where each connection is cut, the callbacks. */
const streams: fc.Arbitrary<StreamCase> = fc
  .record({
    resets: fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
    cuts: fc.array(fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }), {
      minLength: 1,
      maxLength: 5,
    }),
    eol: fc.constantFrom('\n', '\r\n', '\r'),
    retries: fc.integer({ min: 0, max: 5 }),
    shouldRetry: fc.constantFrom<Callback>('none', 'none', 'async', 'hang'),
    onRetry: fc.constantFrom<Callback>('none', 'none', 'async', 'hang'),
    beforeAttempt: fc.constantFrom<Callback>('none', 'none', 'async', 'hang'),
    stalls: fc.option(fc.array(fc.constantFrom(0, 5, 400, 60_000), { minLength: 1, maxLength: 3 }), {
      nil: undefined,
    }),
    deadline: fc.constantFrom(undefined, 3000),
  })
  .map(({ resets, cuts, eol, ...rest }) => ({
    served: {
      events: resets.map((reset, i) => ({ id: reset ? '' : String(i + 1), data: `event ${i + 1}` })),
      connections: cuts.map((cutAfter) => ({ retry: 10, eol, cutAfter })),
    },
    ...rest,
  }));

const hang = () => new Promise<never>(() => {});
const callback = (what: Callback) => (what === 'hang' ? hang() : Promise.resolve());

/** The case's callbacks and pacer as options; a call whose callback may stay pending gets a deadline. */
function streamOptions(
  plan: StreamCase,
  clock: VirtualClock,
): { options: BackoffOptions; deadline?: number } {
  const { shouldRetry, onRetry, beforeAttempt, stalls } = plan;
  const options: BackoffOptions = {};
  if (shouldRetry !== 'none') options.shouldRetry = () => callback(shouldRetry).then(() => true);
  if (onRetry !== 'none') options.onRetry = () => callback(onRetry);
  // The first attempt goes: a retry's (a resume's) is the one kept pending.
  if (beforeAttempt !== 'none')
    options.beforeAttempt = ({ retry }) => (retry > 0 ? callback(beforeAttempt) : undefined);
  if (stalls !== undefined) {
    options.pacer = new Pacer({
      store: new StallingPacerStore({ timers: clock.timers, stall: cycling(stalls) }),
    });
  }
  const pending = [shouldRetry, onRetry, beforeAttempt].includes('hang') || stalls?.includes(60_000);
  const deadline = plan.deadline ?? (pending ? 2000 : undefined);
  return deadline === undefined ? { options } : { options: { ...options, deadline }, deadline };
}

/** The clients resume runs on, and every ky line the suites run. */
const STREAM_CLIENTS = [
  ...RESUME_CLIENTS,
  kyClient('ky 2.0', ky200 as unknown as typeof ky),
  kyClient('ky 1.14.2', ky1142 as unknown as typeof ky),
  kyClient('ky 1.13', ky113 as unknown as typeof ky),
];

describe.each(STREAM_CLIENTS)('$name with resume, any event stream', (client) => {
  let n = 0;
  it('hands the caller each event at most once, in order, none skipped, within retries, by the deadline', async () => {
    // Streams that reset their id and were cut after: each must end in a ResumeError or a replay-free resume.
    let resetThenCut = 0;
    await fc.assert(
      fc.asyncProperty(streams, async (plan) => {
        const { served, retries } = plan;
        const path = `/property-events-${client.name.replace(/\W+/g, '-')}-${++n}`;
        server.streams.set(path, served);
        const clock = new VirtualClock();
        // Timers fire in the order they fall due: a store's answer stalled past the deadline comes after it.
        clock.ordered = true;
        const { options, deadline } = streamOptions(plan, clock);
        const http = client.create({
          resume: true,
          retries,
          timers: clock.timers,
          now: clock.now,
          ...options,
        });
        const started = clock.now();
        try {
          const response = await http.get(origin + path).catch((error: unknown) => error);
          if (deadline !== undefined) expect(clock.now() - started).toBeLessThanOrEqual(deadline);
          if (response instanceof Error) {
            // A call that ended before any body is one the policy ended (it says why), within its retries.
            expect(getBackoffResult(response)?.reason).toBeDefined();
            expect(server.hits.filter((hit) => hit.path === path).length).toBeLessThanOrEqual(1 + retries);
            return;
          }
          const { bytes, error } = await readAll(response as Awaited<ReturnType<typeof http.get>>);
          // Its resumes too: the body ends by the deadline.
          if (deadline !== undefined) expect(clock.now() - started).toBeLessThanOrEqual(deadline);
          const text = new TextDecoder().decode(bytes);
          const seen = [...text.matchAll(/data: event (\d+)/g)].map((match) => Number(match[1]));
          // 1, 2, ..., k: nothing twice, nothing out of order, nothing skipped.
          expect(seen).toEqual(seen.map((_, i) => i + 1));
          if (error instanceof ResumeError) expect(error.received).toBe(bytes.length);
          expect(server.hits.filter((hit) => hit.path === path).length).toBeLessThanOrEqual(1 + retries);
          const reset = served.events.findIndex((event) => event.id === '');
          const firstCut = served.connections[0]?.cutAfter;
          if (reset >= 0 && firstCut !== undefined && firstCut > reset) resetThenCut++;
        } finally {
          http.close();
        }
      }),
      { numRuns: 25, seed: 20_261_205 },
    );
    // The property met streams whose id was reset before a cut, not only streams that never reset.
    expect(resetThenCut).toBeGreaterThan(0);
  });
});
