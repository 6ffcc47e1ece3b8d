import { describe, expect, it } from 'vitest';
import {
  RESUME_DEFAULTS,
  type Reopen,
  type ReopenRequest,
  type ResolvedResumeOptions,
  ResumeError,
  resumeBody,
  resumeResponse,
} from '../../src/features/resume/index.ts';
import { FileServer, pattern, readAll, source, terminated } from './memory-server.ts';

interface Asked {
  readonly headers: Readonly<Record<string, string>>;
  readonly wait: number | undefined;
  readonly cause: unknown;
  readonly received: number;
}

/** A reopen that answers from `respond` at once and records what it was asked. */
function reopener(respond: (request: ReopenRequest) => Response | Promise<Response>) {
  const asked: Asked[] = [];
  const reopen: Reopen<Response> = async (request) => {
    asked.push({
      headers: request.headers,
      wait: request.wait,
      cause: request.cause,
      received: request.received,
    });
    return respond(request);
  };
  return { asked, reopen };
}

function call(
  reopen: Reopen<Response>,
  options: Partial<ResolvedResumeOptions> = {},
  extra: { method?: string; signal?: AbortSignal } = {},
) {
  return {
    method: extra.method ?? 'GET',
    reopen,
    options: { ...RESUME_DEFAULTS, ...options },
    signal: extra.signal,
  };
}

const FILE = pattern(1000);

describe('resumeBody: a byte body continued with ranges', () => {
  it('a body cut twice reaches the caller whole, each rest asked from the byte where it stopped', async () => {
    const server = new FileServer(FILE, [300, 650]);
    const { asked, reopen } = reopener((request) => server.respond(request.headers));
    const { bytes, error } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(error).toBeUndefined();
    expect(bytes).toEqual(FILE);
    expect(asked.map((a) => a.headers)).toEqual([
      { Range: 'bytes=300-999', 'If-Range': '"v1"' },
      { Range: 'bytes=650-999', 'If-Range': '"v1"' },
    ]);
    expect(asked.map((a) => a.wait)).toEqual([undefined, undefined]);
    expect(asked.map((a) => a.received)).toEqual([300, 650]);
    expect(asked.every((a) => a.cause instanceof TypeError)).toBe(true);
  });

  it('a body without Content-Length asks open-ended and learns the length from the 206', async () => {
    const server = new FileServer(FILE, [100, 500], { length: false });
    const { asked, reopen } = reopener((request) => server.respond(request.headers));
    const { bytes } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(bytes).toEqual(FILE);
    expect(asked.map((a) => a.headers.Range)).toEqual(['bytes=100-', 'bytes=500-999']);
  });

  it('a cut after the last byte of a body of unknown length ends it when the server answers 416 for the rest', async () => {
    const server = new FileServer(FILE, [1000], { length: false });
    const { asked, reopen } = reopener((request) => server.respond(request.headers));
    const { bytes, error } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(error).toBeUndefined();
    expect(bytes).toEqual(FILE);
    expect(asked.map((a) => a.headers.Range)).toEqual(['bytes=1000-']);
  });

  it('a cut after the last byte of a body of known length ends it with no request', async () => {
    const server = new FileServer(FILE, [1000]);
    const { asked, reopen } = reopener((request) => server.respond(request.headers));
    const { bytes, error } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(error).toBeUndefined();
    expect(bytes).toEqual(FILE);
    expect(asked).toEqual([]);
  });

  it("the caller's own range (a 206) is continued within that range", async () => {
    const server = new FileServer(FILE, [250]);
    const { asked, reopen } = reopener((request) => server.respond({ ...request.headers }));
    const first = server.respond({ Range: 'bytes=100-399' });
    const { bytes } = await readAll(resumeBody(first, call(reopen)));
    expect(bytes).toEqual(FILE.subarray(100, 400));
    expect(asked.map((a) => a.headers)).toEqual([{ Range: 'bytes=250-399', 'If-Range': '"v1"' }]);
  });

  it('the representation changed between two cuts: no splice, a ResumeError that says why', async () => {
    const server = new FileServer(FILE, [300, 650]);
    const { asked, reopen } = reopener((request) => {
      if (asked.length === 2) server.etag = '"v2"';
      return server.respond(request.headers);
    });
    const { bytes, error } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(bytes).toEqual(FILE.subarray(0, 650));
    expect(error).toBeInstanceOf(ResumeError);
    expect(error).toMatchObject({ code: 'changed', received: 650 });
    expect((error as Error).message).toBe(
      'The body was cut after 650 bytes and cannot be resumed: the representation changed: its ETag is now "v2", not "v1".',
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    // The whole new body the server sent back is let go, not read.
    expect(server.sources[2]?.cancelled).toBe(true);
  });

  it('the representation changed before any byte reached the caller: the new one is sent whole', async () => {
    const server = new FileServer(FILE, [0]);
    const changed = pattern(800, 5);
    const { asked, reopen } = reopener((request) => {
      server.etag = '"v2"';
      server.body = changed;
      return server.respond(request.headers);
    });
    const { bytes, error } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(error).toBeUndefined();
    expect(bytes).toEqual(changed);
    expect(asked.map((a) => a.headers)).toEqual([{}]);
  });

  it('a server without range support: a restart when nothing was read, else a clear error', async () => {
    const early = new FileServer(FILE, [0], { ranges: false });
    const first = reopener((request) => early.respond(request.headers));
    expect((await readAll(resumeBody(early.respond(), call(first.reopen)))).bytes).toEqual(FILE);
    expect(first.asked.map((a) => a.headers)).toEqual([{}]);

    const late = new FileServer(FILE, [400], { ranges: false });
    const second = reopener((request) => late.respond(request.headers));
    const { bytes, error } = await readAll(resumeBody(late.respond(), call(second.reopen)));
    expect(bytes).toEqual(FILE.subarray(0, 400));
    expect(error).toMatchObject({ code: 'no-ranges', received: 400 });
    expect((error as Error).message).toMatch(
      /cut after 400 bytes and cannot be resumed: the server answered a Range request with the whole body \(200\)/,
    );
  });

  it.each([
    ['encoded', { 'content-encoding': 'gzip' }, {}],
    ['no-validator', {}, { etag: undefined }],
    ['no-ranges', { 'accept-ranges': 'none' }, {}],
  ])('%s: fails at the cut without sending anything', async (code, headers, options) => {
    const server = new FileServer(FILE, [400], { headers, ...options });
    const { asked, reopen } = reopener((request) => server.respond(request.headers));
    const { error } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(error).toMatchObject({ code });
    expect(asked).toEqual([]);
  });

  it('an encoded body cut before any byte is still restarted whole', async () => {
    const server = new FileServer(FILE, [0], { headers: { 'content-encoding': 'gzip' } });
    const { asked, reopen } = reopener((request) => server.respond(request.headers));
    expect((await readAll(resumeBody(server.respond(), call(reopen)))).bytes).toEqual(FILE);
    expect(asked).toHaveLength(1);
  });

  it('restart: false and ranges: false leave the cut as it is', async () => {
    for (const [options, cut] of [
      [{ restart: false }, 0],
      [{ ranges: false }, 400],
    ] as const) {
      const server = new FileServer(FILE, [cut]);
      const { asked, reopen } = reopener((request) => server.respond(request.headers));
      const { error } = await readAll(resumeBody(server.respond(), call(reopen, options)));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe('terminated');
      expect(asked).toEqual([]);
    }
  });

  it('a restart answered with another status fails with a status ResumeError', async () => {
    const server = new FileServer(FILE, [0]);
    const { reopen } = reopener(() => new Response('gone', { status: 404 }));
    const { error } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(error).toMatchObject({ code: 'status' });
    expect((error as Error).message).toMatch(/answered with 404, not 200/);
  });

  it('a range answered with a 503 (the call gave up retrying) fails with a status ResumeError', async () => {
    const server = new FileServer(FILE, [300]);
    const { reopen } = reopener(() => new Response(null, { status: 503 }));
    const { bytes, error } = await readAll(resumeBody(server.respond(), call(reopen)));
    expect(bytes).toEqual(FILE.subarray(0, 300));
    expect(error).toMatchObject({ code: 'status', received: 300 });
  });

  it('the error reopen rejects with is the error the caller gets', async () => {
    const server = new FileServer(FILE, [300]);
    const exhausted = new Error('retries exhausted');
    const { error } = await readAll(
      resumeBody(
        server.respond(),
        call(() => Promise.reject(exhausted)),
      ),
    );
    expect(error).toBe(exhausted);
  });

  it("a body that breaks once the caller's signal is aborted fails as it broke, with no request", async () => {
    const controller = new AbortController();
    const server = new FileServer(FILE, [300]);
    const { asked, reopen } = reopener((request) => server.respond(request.headers));
    controller.abort();
    const { error } = await readAll(
      resumeBody(server.respond(), call(reopen, {}, { signal: controller.signal })),
    );
    expect((error as Error).message).toBe('terminated');
    expect(asked).toEqual([]);
  });

  it('a caller that cancels during a reopen aborts its signal, and the late answer is let go', async () => {
    const server = new FileServer(FILE, [300]);
    let answer!: (response: Response) => void;
    let signal: AbortSignal | undefined;
    const reopen: Reopen<Response> = (request) => {
      signal = request.signal;
      return new Promise((resolve) => {
        answer = resolve;
      });
    };
    const reader = (resumeBody(server.respond(), call(reopen)) as ReadableStream<Uint8Array>).getReader();
    let got = 0;
    while (got < 300) got += ((await reader.read()).value as Uint8Array).length;
    expect(got).toBe(300);
    // The next read waits on the reopen.
    const read = reader.read();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(signal?.aborted).toBe(false);
    await reader.cancel('no longer wanted');
    expect(signal?.aborted).toBe(true);
    expect(await read).toEqual({ done: true, value: undefined });
    const late = server.respond({ Range: 'bytes=300-999', 'If-Range': '"v1"' });
    answer(late);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(server.sources[1]?.cancelled).toBe(true);
  });

  it('reads one chunk of the wire per chunk the caller reads: nothing is read ahead', async () => {
    const server = new FileServer(FILE, []);
    const reader = (
      resumeBody(
        server.respond(),
        call(reopener(() => server.respond()).reopen),
      ) as ReadableStream<Uint8Array>
    ).getReader();
    for (let reads = 1; reads <= 5; reads++) {
      await reader.read();
      expect(server.sources[0]?.pulls).toBe(reads);
    }
    await reader.cancel();
    expect(server.sources[0]?.cancelled).toBe(true);
  });
});

describe('what is never resumed', () => {
  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    'a %s body reaches the caller as it comes; a cut, even before any byte, fails saying why it does not go on',
    async (method) => {
      for (const cut of [300, 0]) {
        const server = new FileServer(FILE, [cut]);
        const { asked, reopen } = reopener(() => server.respond());
        const { bytes, error } = await readAll(resumeBody(server.respond(), call(reopen, {}, { method })));
        expect(bytes).toEqual(FILE.subarray(0, bytes.length));
        expect(error).toBeInstanceOf(ResumeError);
        expect(error).toMatchObject({ code: 'unsafe-method', received: bytes.length, cause: terminated() });
        expect((error as Error).message).toMatch(
          new RegExp(`GET and HEAD only: a ${method} is not sent again to continue its body\\.$`),
        );
        expect(asked).toEqual([]);
      }
    },
  );

  it('an event stream of a POST is handed over as it comes, not held back to whole events', async () => {
    const { reopen } = reopener(() => events('data: again\n\n'));
    const reader = (
      resumeBody(events('id: 1\ndata: a', undefined), call(reopen, {}, { method: 'POST' })) as ReadableStream
    ).getReader();
    const { value } = await reader.read();
    expect(decoder.decode(value)).toBe('id: 1');
    await reader.cancel();
  });

  it('a body already being read is returned as it is', () => {
    const first = new FileServer(FILE, []).respond();
    const reader = first.body?.getReader();
    expect(resumeResponse(first, call(reopener(() => new Response()).reopen))).toBe(first);
    reader?.releaseLock();
  });

  it('a HEAD response (no body), a 404 and a 204 are returned as they are', () => {
    const { reopen } = reopener(() => new Response());
    for (const first of [
      new Response(null, { status: 200 }),
      new Response('missing', { status: 404 }),
      new Response(null, { status: 204 }),
    ]) {
      expect(resumeResponse(first, call(reopen, {}, { method: 'HEAD' }))).toBe(first);
      expect(resumeResponse(first, call(reopen))).toBe(first);
    }
  });
});

describe('resumeResponse', () => {
  it("keeps the original's status, headers, url, redirected and type", async () => {
    const first = new Response(source(FILE).stream, {
      status: 200,
      statusText: 'Fine',
      headers: { etag: '"v1"', 'x-test': 'kept' },
    });
    for (const [key, value] of [
      ['url', 'https://example.test/file'],
      ['redirected', true],
      ['type', 'cors'],
    ] as const) {
      Object.defineProperty(first, key, { value });
    }
    const response = resumeResponse(first, call(reopener(() => new Response()).reopen));
    expect(response).not.toBe(first);
    expect(response).toBeInstanceOf(Response);
    expect([response.status, response.statusText, response.url, response.redirected, response.type]).toEqual([
      200,
      'Fine',
      'https://example.test/file',
      true,
      'cors',
    ]);
    expect(response.headers.get('x-test')).toBe('kept');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(FILE);
  });

  it("names the response's URL in a ResumeError", async () => {
    const server = new FileServer(FILE, [300], { etag: undefined });
    const first = server.respond();
    Object.defineProperty(first, 'url', { value: 'https://example.test/big.bin' });
    const { error } = await readAll(resumeResponse(first, call(reopener(() => new Response()).reopen)).body);
    expect((error as Error).message).toMatch(
      /^The body of https:\/\/example.test\/big.bin was cut after 300 bytes and cannot be resumed: the response has no strong ETag/,
    );
  });
});

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const SSE = { 'content-type': 'text/event-stream; charset=utf-8' };

/** An event stream response of `text` that breaks after `cutAt` bytes (never if undefined). */
function events(text: string, cutAt?: number, status = 200, headers: Record<string, string> = SSE): Response {
  return new Response(source(encoder.encode(text), cutAt, 5).stream, { status, headers });
}

describe('resumeBody: an event stream reconnected after the last whole event', () => {
  it('reconnects with the id of the last event dispatched and waits what retry: asked; the caller gets whole events', async () => {
    const first = 'retry: 2500\nid: 1\ndata: a\n\nid: 2\ndata: b';
    const { asked, reopen } = reopener(() => events('id: 2\ndata: b\n\nid: 3\ndata: c\n\n'));
    const { bytes, error } = await readAll(resumeBody(events(first, first.length), call(reopen)));
    expect(error).toBeUndefined();
    expect(decoder.decode(bytes)).toBe('retry: 2500\nid: 1\ndata: a\n\nid: 2\ndata: b\n\nid: 3\ndata: c\n\n');
    expect(asked.map(({ headers, wait, received }) => ({ headers, wait, received }))).toEqual([
      // The whole events the caller has: the retry: line and the first event, 27 bytes.
      { headers: { 'Last-Event-ID': '1' }, wait: 2500, received: 27 },
    ]);
  });

  it('an id beyond printable ASCII is sent as its UTF-8 bytes', async () => {
    const { asked, reopen } = reopener(() => events('data: next\n\n'));
    await readAll(resumeBody(events('id: é\ndata: a\n\n', 16), call(reopen)));
    expect(asked[0]?.headers).toEqual({ 'Last-Event-ID': '\u00c3\u00a9' });
  });

  it('an empty id reset the last event id: a cut then fails with no-event-id, reconnecting nothing that could repeat', async () => {
    const { asked, reopen } = reopener(() => events('id: 4\ndata: a\n\n'));
    const text = 'id: 4\ndata: a\n\nid\ndata: b\n\ndata: c';
    const { bytes, error } = await readAll(resumeBody(events(text, text.length), call(reopen)));
    expect(decoder.decode(bytes)).toBe('id: 4\ndata: a\n\nid\ndata: b\n\n');
    expect(error).toBeInstanceOf(ResumeError);
    expect(error).toMatchObject({ code: 'no-event-id', received: 27 });
    expect((error as Error).message).toMatch(/an event with an empty id reset the last event id/);
    expect(asked).toEqual([]);
  });

  it('an id set again after a reset is gone on from as usual', async () => {
    const { asked, reopen } = reopener(() => events('data: next\n\n'));
    const text = 'id: 4\ndata: a\n\nid:\ndata: b\n\nid: 6\ndata: c\n\ndata: d';
    const { error } = await readAll(resumeBody(events(text, text.length), call(reopen)));
    expect(error).toBeUndefined();
    expect(asked[0]?.headers).toEqual({ 'Last-Event-ID': '6' });
  });

  it('replayEvents: after a reset, or with no ids at all, reconnects without Last-Event-ID, as EventSource does', async () => {
    for (const text of ['id: 4\ndata: a\n\nid\ndata: b\n\ndata: c', 'data: a\n\ndata: b']) {
      const { asked, reopen } = reopener(() => events('data: again\n\n'));
      const { bytes, error } = await readAll(
        resumeBody(events(text, text.length), call(reopen, { replayEvents: true })),
      );
      expect(error).toBeUndefined();
      expect(decoder.decode(bytes)).toMatch(/data: again\n\n$/);
      expect(asked.map(({ headers }) => headers)).toEqual([{}]);
    }
  });

  it('a stream cut before any whole event is requested again, with no id and the wait retry: asked', async () => {
    const { asked, reopen } = reopener(() => events('id: 1\ndata: a\n\n'));
    const { bytes } = await readAll(resumeBody(events('retry: 40\nid: 1\ndata: a', 23), call(reopen)));
    expect(decoder.decode(bytes)).toBe('id: 1\ndata: a\n\n');
    expect(asked.map(({ headers, wait }) => ({ headers, wait }))).toEqual([{ headers: {}, wait: 40 }]);
  });

  it('events without ids cannot be reconnected without loss or repeats: no-event-id', async () => {
    const { asked, reopen } = reopener(() => events('data: again\n\n'));
    const { bytes, error } = await readAll(resumeBody(events('data: a\n\ndata: b', 16), call(reopen)));
    expect(decoder.decode(bytes)).toBe('data: a\n\n');
    expect(error).toMatchObject({ code: 'no-event-id', received: 9 });
    expect(asked).toEqual([]);
  });

  it('a cut inside an event larger than maxEventSize fails, since part of it was handed over', async () => {
    const { asked, reopen } = reopener(() => events('data: again\n\n'));
    const text = `id: 1\n\ndata: ${'x'.repeat(64)}`;
    const { error } = await readAll(
      resumeBody(events(text, text.length), call(reopen, { maxEventSize: 32 })),
    );
    expect(error).toMatchObject({ code: 'event-too-large' });
    expect((error as Error).message).toMatch(/larger than maxEventSize \(32 bytes\)/);
    expect(asked).toEqual([]);
  });

  it('a 204 to the reconnection ends the stream; another status or content type fails', async () => {
    const text = 'id: 1\ndata: a\n\nid: 2';
    const done = await readAll(
      resumeBody(events(text, text.length), call(reopener(() => new Response(null, { status: 204 })).reopen)),
    );
    expect(done.error).toBeUndefined();
    expect(decoder.decode(done.bytes)).toBe('id: 1\ndata: a\n\n');
    const missing = await readAll(
      resumeBody(events(text, text.length), call(reopener(() => new Response('no', { status: 404 })).reopen)),
    );
    expect(missing.error).toMatchObject({ code: 'status' });
    const html = await readAll(
      resumeBody(
        events(text, text.length),
        call(reopener(() => new Response('<p>', { headers: { 'content-type': 'text/html' } })).reopen),
      ),
    );
    expect(html.error).toMatchObject({ code: 'changed' });
    expect((html.error as Error).message).toMatch(/no event stream \(text\/html\)/);
  });

  it('eventStreams: false treats an event stream as any body (a live one has no validator)', async () => {
    const { asked, reopen } = reopener(() => events('data: again\n\n'));
    const text = 'id: 1\ndata: a\n\nid: 2';
    const { bytes, error } = await readAll(
      resumeBody(events(text, 10), call(reopen, { eventStreams: false })),
    );
    expect(decoder.decode(bytes)).toBe('id: 1\ndata');
    expect(error).toMatchObject({ code: 'no-validator' });
    expect(asked).toEqual([]);
  });
});

describe('the cut the runner classifies', () => {
  it('is handed to reopen as the body broke with it', async () => {
    const server = new FileServer(FILE, [300]);
    const { asked, reopen } = reopener((request) => server.respond(request.headers));
    await readAll(resumeBody(server.respond(), call(reopen)));
    expect(asked[0]?.cause).toEqual(terminated());
  });
});
