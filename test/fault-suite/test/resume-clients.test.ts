import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { BackoffMetrics, ResumeError, RetryBudget } from 'backoff-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESUME_CLIENTS, readAll, recordingTimers } from '../src/resume-clients.ts';
import {
  ResumeServer,
  type ServedEvent,
  seededBytes,
  seededSha256,
  wholeEventsText,
} from '../src/resume-server.ts';

// `resume` end to end on every client: bodies cut after the headers on a real socket go on through the runner,
// which decides, waits and counts each continuation as an attempt of the same call.

const MiB = 1024 * 1024;

/**
 * A cut that waits until the caller took a chunk: a client drops the chunks its caller has not pulled yet when the
 * connection breaks, and a cut before any byte reached the caller is a restart, not a resume.
 */
function afterFirstChunk() {
  let took = () => {};
  const taken = new Promise<void>((resolve) => {
    took = resolve;
  });
  return { beforeCut: () => taken, took };
}
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const prefix = (seed: number, length: number) => Buffer.concat([...seededBytes(seed, 0, length)]);

const server = new ResumeServer();
let origin = '';
beforeAll(async () => {
  origin = await server.listen();
});
afterAll(() => server.close());

describe.each(RESUME_CLIENTS)('$name with resume', (client) => {
  let n = 0;
  /** A path of this client's own. */
  const path = (name: string) => `/${client.name.replace(/\W+/g, '-')}-${name}-${++n}`;
  const hits = (at: string) => server.hits.filter((hit) => hit.path === at);

  it('a body cut three times reaches the caller whole; each resume is an attempt of the same call, in the result and the metrics', async () => {
    const at = path('whole');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: 4 * MiB,
      seed: 1,
      etag: '"w"',
      ranges: true,
      cuts: [MiB, 2 * MiB, 3 * MiB],
      beforeCut: gate.beforeCut,
    });
    const metrics = new BackoffMetrics();
    const budget = new RetryBudget({ reserve: 10 });
    const { waits, timers } = recordingTimers();
    const http = client.create({
      resume: true,
      retries: 5,
      metrics,
      budget,
      timers,
      jitter: 'none',
      baseDelay: 100,
    });
    try {
      const response = await http.get(origin + at);
      const { bytes, error } = await readAll(response, gate.took);
      expect(error).toBeUndefined();
      expect(sha256(bytes)).toBe(seededSha256(1, 4 * MiB));
      expect(response.result()).toMatchObject({
        attempts: 4,
        resumes: 3,
        reason: 'success',
        totalDelay: 100 + 200 + 400,
      });
      // The usual backoff before each resume, growing as retries do.
      expect(waits).toEqual([100, 200, 400]);
      expect(hits(at).map((hit) => [hit.status, hit.ifRange])).toEqual([
        [200, undefined],
        [206, '"w"'],
        [206, '"w"'],
        [206, '"w"'],
      ]);
      expect(budget.snapshot().acquired).toBe(3);
      expect(metrics.snapshot()).toMatchObject({
        calls: 1,
        attempts: 4,
        retries: 3,
        resumes: 3,
        totalWait: 700,
      });
    } finally {
      http.close();
    }
  });

  it('resumes count against retries: past them the body fails with the cut', async () => {
    const at = path('retries');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: 2 * MiB,
      seed: 2,
      etag: '"r"',
      ranges: true,
      cuts: [MiB / 2, MiB],
      beforeCut: gate.beforeCut,
    });
    const { timers } = recordingTimers();
    const http = client.create({ resume: true, retries: 1, timers });
    try {
      const response = await http.get(origin + at);
      const { bytes, error } = await readAll(response, gate.took);
      expect(error).toBeDefined();
      expect(error).not.toBeInstanceOf(ResumeError);
      expect(sha256(bytes)).toBe(sha256(prefix(2, bytes.length)));
      expect(hits(at)).toHaveLength(2);
      expect(response.result()).toMatchObject({ attempts: 2, resumes: 1, reason: 'retries-exhausted' });
    } finally {
      http.close();
    }
  });

  it('a resume takes a budget token: an empty budget leaves the cut as it is', async () => {
    const at = path('budget');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: MiB,
      seed: 3,
      etag: '"b"',
      ranges: true,
      cuts: [MiB / 2],
      beforeCut: gate.beforeCut,
    });
    const budget = new RetryBudget({ reserve: 1 });
    budget.tryAcquire('transient');
    const { timers } = recordingTimers();
    const http = client.create({ resume: true, budget, timers });
    try {
      const response = await http.get(origin + at);
      const { error } = await readAll(response, gate.took);
      expect(error).toBeDefined();
      expect(hits(at)).toHaveLength(1);
      expect(response.result()).toMatchObject({ attempts: 1, reason: 'budget-exhausted' });
    } finally {
      http.close();
    }
  });

  it("a resume waiting its backoff ends on the caller's abort, sending nothing more", async () => {
    const at = path('abort');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: MiB,
      seed: 4,
      etag: '"a"',
      ranges: true,
      cuts: [MiB / 2],
      beforeCut: gate.beforeCut,
    });
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const http = client.create({
      resume: true,
      // The wait never ends by itself: the abort ends it.
      timers: { setTimeout: () => controller.abort(reason), clearTimeout: () => {} },
    });
    try {
      const response = await http.get(origin + at, { signal: controller.signal });
      const { error } = await readAll(response, gate.took);
      expect(error).toBeDefined();
      expect(controller.signal.aborted).toBe(true);
      expect(hits(at)).toHaveLength(1);
      expect(response.result()).toMatchObject({ reason: 'aborted', resumes: 0 });
    } finally {
      http.close();
    }
  });

  it('the deadline bounds resumes: a wait past it leaves the cut as it is', async () => {
    const at = path('deadline');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: MiB,
      seed: 5,
      etag: '"d"',
      ranges: true,
      cuts: [MiB / 2],
      beforeCut: gate.beforeCut,
    });
    const { timers } = recordingTimers();
    const http = client.create({ resume: true, timers, deadline: 50, baseDelay: 10_000, jitter: 'none' });
    try {
      const response = await http.get(origin + at);
      const { error } = await readAll(response, gate.took);
      expect(error).toBeDefined();
      expect(hits(at)).toHaveLength(1);
      expect(response.result()).toMatchObject({ reason: 'deadline' });
    } finally {
      http.close();
    }
  });

  it('a continuation answered 503 is retried as any attempt; past retries, a ResumeError that says so', async () => {
    const at = path('503');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: MiB,
      seed: 6,
      etag: '"f"',
      ranges: true,
      cuts: [MiB / 2],
      rangeStatus: 503,
      beforeCut: gate.beforeCut,
    });
    const { waits, timers } = recordingTimers();
    const http = client.create({ resume: true, retries: 2, timers, jitter: 'none', baseDelay: 100 });
    try {
      const response = await http.get(origin + at);
      const { bytes, error } = await readAll(response, gate.took);
      expect(error).toBeInstanceOf(ResumeError);
      expect(error).toMatchObject({ code: 'status', received: bytes.length });
      expect((error as Error).message).toMatch(/the request for the rest was answered with 503\.$/);
      expect(hits(at).map((hit) => hit.status)).toEqual([200, 503, 503]);
      expect(waits).toEqual([100, 200]);
      expect(response.result()).toMatchObject({ attempts: 3, resumes: 1, reason: 'retries-exhausted' });
    } finally {
      http.close();
    }
  });

  it('the validator changes between two cuts: no splice, a ResumeError that says so', async () => {
    const at = path('changes');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: MiB,
      seed: 7,
      etag: '"v1"',
      ranges: true,
      cuts: [300_000, 700_000],
      beforeCut: gate.beforeCut,
    });
    // Replaced as the second resume waits: the second rest is asked of another representation.
    const { timers } = recordingTimers((wait) => {
      if (wait === 1) Object.assign(server.files.get(at) ?? {}, { etag: '"v2"', seed: 8 });
    });
    // No jitter: every resume waits on a timer (a full-jitter draw under 1 ms would be a wait of 0, with none).
    const http = client.create({ resume: true, timers, jitter: 'none' });
    try {
      const response = await http.get(origin + at);
      const { bytes, error } = await readAll(response, gate.took);
      expect(error).toBeInstanceOf(ResumeError);
      expect(error).toMatchObject({ code: 'changed', received: bytes.length });
      expect(sha256(bytes)).toBe(sha256(prefix(7, bytes.length)));
      expect(hits(at).map((hit) => [hit.status, hit.ifRange])).toEqual([
        [200, undefined],
        [206, '"v1"'],
        [200, '"v1"'],
      ]);
      expect(bytes.length).toBeGreaterThan(300_000);
    } finally {
      http.close();
    }
  });

  it('a strong ETag that matches decides: a Last-Modified that moved between the cut and the resume is no change', async () => {
    const at = path('etag-decides');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: MiB,
      seed: 14,
      etag: '"e"',
      ranges: true,
      cuts: [MiB / 2],
      beforeCut: gate.beforeCut,
      headers: { 'last-modified': 'Tue, 01 Dec 2026 10:00:00 GMT' },
    });
    // Touched, not changed, as the resume waits: the same bytes under the same strong ETag.
    const { timers } = recordingTimers(() => {
      Object.assign(server.files.get(at) ?? {}, {
        headers: { 'last-modified': 'Tue, 01 Dec 2026 11:00:00 GMT' },
      });
    });
    // No jitter: the resume waits on a timer, where the touch happens.
    const http = client.create({ resume: true, timers, jitter: 'none' });
    try {
      const response = await http.get(origin + at);
      const { bytes, error } = await readAll(response, gate.took);
      expect(error).toBeUndefined();
      expect(sha256(bytes)).toBe(seededSha256(14, MiB));
      expect(hits(at).map((hit) => [hit.status, hit.ifRange])).toEqual([
        [200, undefined],
        [206, '"e"'],
      ]);
      expect(response.result()).toMatchObject({ attempts: 2, resumes: 1, reason: 'success' });
    } finally {
      http.close();
    }
  });

  it('the validator changes before any byte reached the caller: the new representation, whole', async () => {
    const at = path('changes-early');
    server.files.set(at, { size: MiB, seed: 7, etag: '"v1"', ranges: true, cuts: [0] });
    const { timers } = recordingTimers();
    const http = client.create({ resume: true, timers });
    try {
      const response = await http.get(origin + at);
      Object.assign(server.files.get(at) ?? {}, { etag: '"v2"', seed: 8 });
      const { bytes, error } = await readAll(response);
      expect(error).toBeUndefined();
      expect(sha256(bytes)).toBe(seededSha256(8, MiB));
      expect(hits(at).map((hit) => [hit.status, hit.range])).toEqual([
        [200, undefined],
        [200, undefined],
      ]);
    } finally {
      http.close();
    }
  });

  it('no range support: a restart when nothing was read, a clear error otherwise', async () => {
    const early = path('no-ranges-early');
    const late = path('no-ranges');
    server.files.set(early, { size: MiB, seed: 9, etag: '"n"', ranges: false, cuts: [0] });
    const gate = afterFirstChunk();
    server.files.set(late, {
      size: MiB,
      seed: 9,
      etag: '"n"',
      ranges: false,
      cuts: [400_000],
      beforeCut: gate.beforeCut,
    });
    const { timers } = recordingTimers();
    const http = client.create({ resume: true, timers });
    try {
      const restarted = await readAll(await http.get(origin + early));
      expect(restarted.error).toBeUndefined();
      expect(sha256(restarted.bytes)).toBe(seededSha256(9, MiB));
      const failed = await readAll(await http.get(origin + late), gate.took);
      expect(failed.error).toMatchObject({
        name: 'ResumeError',
        code: 'no-ranges',
        received: failed.bytes.length,
      });
      expect((failed.error as Error).message).toMatch(
        /cannot be resumed: the server answered a Range request with the whole body \(200\), not the rest \(206\)\.$/,
      );
      expect(sha256(failed.bytes)).toBe(sha256(prefix(9, failed.bytes.length)));
    } finally {
      http.close();
    }
  });

  it('a POST is never resumed: its cut body fails with a ResumeError that says why, sent once', async () => {
    const at = path('post');
    server.files.set(at, { size: MiB, seed: 5, etag: '"p"', ranges: true, cuts: [200_000] });
    const { timers } = recordingTimers();
    const http = client.create({ resume: true, timers, idempotencyKey: 'auto' });
    try {
      const response = await http.get(origin + at, { method: 'POST', body: 'order=1' });
      const { bytes, error } = await readAll(response);
      expect(error).toBeInstanceOf(ResumeError);
      expect(error).toMatchObject({ code: 'unsafe-method', received: bytes.length });
      expect((error as Error).message).toMatch(
        /cannot be resumed: resume continues the bodies of GET and HEAD only: a POST is not sent again to continue its body\.$/,
      );
      expect((error as Error).cause).toBeDefined();
      expect(sha256(bytes)).toBe(sha256(prefix(5, bytes.length)));
      expect(hits(at).map((hit) => hit.method)).toEqual(['POST']);
      expect(response.result()).toMatchObject({ attempts: 1, resumes: 0, reason: 'not-resumable' });
    } finally {
      http.close();
    }
  });

  it('a download whose resume failed says so in its result (not-resumable), which console.log shows with its values', async () => {
    const at = path('result');
    const gate = afterFirstChunk();
    server.files.set(at, {
      size: MiB,
      seed: 15,
      etag: '"n"',
      ranges: false,
      cuts: [MiB / 2],
      beforeCut: gate.beforeCut,
    });
    const { timers } = recordingTimers();
    const http = client.create({ resume: true, timers, jitter: 'none', baseDelay: 100 });
    try {
      const response = await http.get(origin + at);
      const { error } = await readAll(response, gate.took);
      expect(error).toMatchObject({ name: 'ResumeError', code: 'no-ranges' });
      const result = response.result();
      expect(result).toMatchObject({ attempts: 2, resumes: 1, totalDelay: 100, reason: 'not-resumable' });
      expect(Object.isFrozen(result)).toBe(true);
      const shown = inspect(result);
      expect(shown).not.toMatch(/Getter/);
      expect(shown).toMatch(/attempts: 2,/);
      expect(shown).toMatch(/reason: 'not-resumable'/);
      expect(shown).toMatch(/resumes: 1/);
    } finally {
      http.close();
    }
  });

  it('an event stream cut 5 times: every event once, in order, each reconnection after the wait retry: asked', async () => {
    const at = path('events');
    const events: ServedEvent[] = Array.from({ length: 30 }, (_, i) => ({
      id: String(i + 1),
      data: `event ${i + 1}`,
    }));
    const connections = [
      { retry: 1000, eol: '\n', cutAfter: 4 },
      { retry: 1500, eol: '\r\n', cutAfter: 7 },
      { retry: 2000, eol: '\r', cutAfter: 3 },
      { retry: 2500, eol: '\n', cutAfter: 6 },
      { retry: 3000, eol: '\r\n', cutAfter: 5 },
      { retry: 3500, eol: '\n', cutAfter: undefined },
    ];
    server.streams.set(at, { events, connections });
    const { waits, timers } = recordingTimers();
    const metrics = new BackoffMetrics();
    const http = client.create({ resume: true, retries: 5, timers, metrics });
    try {
      const response = await http.get(origin + at);
      const { bytes, error } = await readAll(response);
      expect(error).toBeUndefined();
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
      expect([...text.matchAll(/data: (event \d+)/g)].map((match) => match[1])).toEqual(
        events.map((e) => e.data),
      );
      expect(text).toBe(wholeEventsText({ events, connections }));
      expect(waits).toEqual([1000, 1500, 2000, 2500, 3000]);
      expect(hits(at).map((hit) => hit.lastEventId)).toEqual([undefined, '4', '11', '14', '20', '25']);
      expect(response.result()).toMatchObject({ attempts: 6, resumes: 5, totalDelay: 10_000 });
      expect(metrics.snapshot()).toMatchObject({ calls: 1, attempts: 6, resumes: 5 });
    } finally {
      http.close();
    }
  });

  /** The data of each event the caller read, in order. */
  const eventData = (bytes: Uint8Array) =>
    [...new TextDecoder().decode(bytes).matchAll(/data: (event \d+)/g)].map((match) => match[1]);
  /** Five events, the third of which resets the last event id with an empty `id:`. */
  const resetting: ServedEvent[] = [1, 2, 3, 4, 5].map((i) => ({
    id: i === 3 ? '' : String(i),
    data: `event ${i}`,
  }));
  /** Serves `resetting` at `at`: its first connection cut after the reset, once the caller took a chunk. */
  const serveResetting = (at: string) => {
    const gate = afterFirstChunk();
    server.streams.set(at, {
      events: resetting,
      connections: [
        { retry: 1000, eol: '\n', cutAfter: 3 },
        { retry: 1000, eol: '\n', cutAfter: undefined },
      ],
      beforeCut: gate.beforeCut,
    });
    return gate;
  };

  it('an event stream whose id was reset (an empty id:) and then cut fails with no-event-id: no event is read twice', async () => {
    const at = path('events-reset');
    const gate = serveResetting(at);
    const { timers } = recordingTimers();
    const http = client.create({ resume: true, timers });
    try {
      const response = await http.get(origin + at);
      const { bytes, error } = await readAll(response, gate.took);
      expect(error).toBeInstanceOf(ResumeError);
      expect(error).toMatchObject({ code: 'no-event-id', received: bytes.length });
      expect(eventData(bytes)).toEqual(['event 1', 'event 2', 'event 3']);
      expect(hits(at)).toHaveLength(1);
      expect(response.result()).toMatchObject({ attempts: 1, reason: 'not-resumable' });
    } finally {
      http.close();
    }
  });

  it('replayEvents: the stream whose id was reset reconnects without Last-Event-ID, and the server starts over', async () => {
    const at = path('events-replay');
    const gate = serveResetting(at);
    const { timers } = recordingTimers();
    const http = client.create({ resume: { replayEvents: true }, timers });
    try {
      const { bytes, error } = await readAll(await http.get(origin + at), gate.took);
      expect(error).toBeUndefined();
      expect(eventData(bytes)).toEqual([
        ...['event 1', 'event 2', 'event 3'],
        ...['event 1', 'event 2', 'event 3', 'event 4', 'event 5'],
      ]);
      expect(hits(at).map((hit) => hit.lastEventId)).toEqual([undefined, undefined]);
    } finally {
      http.close();
    }
  });
});

describe('what each client adds', () => {
  it("ky: a resumed body replaces the response ky's own afterResponse hooks saw", async () => {
    const { default: ky } = await import('ky');
    const { kyBackoff } = await import('ky-backoff');
    const { getBackoffResult } = await import('backoff-core');
    const at = '/ky-after-hooks';
    server.files.set(at, { size: MiB, seed: 12, etag: '"k"', ranges: true, cuts: [MiB / 2] });
    const seen: number[] = [];
    const { timers } = recordingTimers();
    const instance = kyBackoff(
      ky.create({
        timeout: false,
        // ky 2 hands its hooks one state object.
        hooks: { afterResponse: [({ response }: { response: Response }) => void seen.push(response.status)] },
      } as never),
      { resume: true, timers },
    );
    const response = await instance(origin + at);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(sha256(bytes)).toBe(seededSha256(12, MiB));
    expect(seen).toEqual([200]);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 2, resumes: 1 });
  });

  it.each(['http', 'fetch'] as const)(
    "axios (%s adapter), a buffered body (responseType 'arraybuffer'): read inside the adapter, a cut fails the attempt, retried whole",
    async (adapter) => {
      const { default: axios } = await import('axios');
      const { axiosBackoff } = await import('axios-backoff');
      const { getBackoffResult } = await import('backoff-core');
      const at = `/axios-buffered-${adapter}`;
      server.files.set(at, { size: MiB, seed: 13, etag: '"x"', ranges: true, cuts: [MiB / 2] });
      const { timers } = recordingTimers();
      const instance = axios.create({ adapter, responseType: 'arraybuffer' });
      axiosBackoff(instance, { resume: true, timers });
      const response = await instance.get(origin + at);
      expect(sha256(Buffer.from(response.data as ArrayBuffer))).toBe(seededSha256(13, MiB));
      expect(server.hits.filter((hit) => hit.path === at).map((hit) => [hit.status, hit.range])).toEqual([
        [200, undefined],
        [200, undefined],
      ]);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'success' });
      expect(getBackoffResult(response)).not.toHaveProperty('resumes');
    },
  );
});
