import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import axios from 'axios';
import { createBackoff, ResumeError } from 'backoff-core';
import { type Reopen, type ResolvedOptions, receivedHeaders } from 'backoff-core/adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The runner loads these only for a call with `resume`: no entry exports them.
import { resumeReadable, resumeResponse } from '../../../packages/backoff-core/src/features/resume/index.ts';
import {
  ResumeServer,
  type ServedEvent,
  seededBytes,
  seededSha256,
  wholeEventsText,
} from '../src/resume-server.ts';

// Bodies cut after the headers on a real socket: what a caller of fetch (and of axios's stream responses) gets
// through the resume module alone (resume-clients.test.ts has it through every client), with `reopen` a test double that sends the request again at once (the runner's
// waits, budget and counts are not here) and records what it was asked.

const server = new ResumeServer();
let origin = '';
beforeAll(async () => {
  origin = await server.listen();
});
afterAll(() => server.close());

interface Asked {
  readonly headers: Readonly<Record<string, string>>;
  readonly wait: number | undefined;
}

/** A reopen that fetches `path` again with the asked headers, and records what it was asked. */
function fetchReopen(path: string, before?: (attempt: number) => void) {
  const asked: Asked[] = [];
  const reopen: Reopen<Response> = async ({ headers, wait, signal }) => {
    asked.push({ headers, wait });
    before?.(asked.length);
    return fetch(origin + path, { headers, signal });
  };
  return { asked, reopen };
}

/** The resume settings `resume: true` resolves to. */
const RESUME = createBackoff({ resume: true }).options.resume as NonNullable<ResolvedOptions['resume']>;
const call = (reopen: Reopen<Response>, method = 'GET') => ({ method, reopen, options: RESUME });

async function readAll(response: Response): Promise<{ bytes: Buffer; error?: unknown }> {
  const parts: Uint8Array[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parts.push(chunk.value);
  } catch (error) {
    return { bytes: Buffer.concat(parts), error };
  }
  return { bytes: Buffer.concat(parts) };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const MiB = 1024 * 1024;
const prefix = (seed: number, length: number) => Buffer.concat([...seededBytes(seed, 0, length)]);

describe('a file whose representation changes between two cuts (fetch)', () => {
  it('is never spliced: the caller gets a ResumeError that says so, after the bytes of the first', async () => {
    server.files.set('/changes', {
      size: MiB,
      seed: 7,
      etag: '"v1"',
      ranges: true,
      cuts: [300_000, 700_000],
    });
    const { asked, reopen } = fetchReopen('/changes', (attempt) => {
      // The file is replaced before the second rest is asked for.
      if (attempt === 2) Object.assign(server.files.get('/changes') ?? {}, { etag: '"v2"', seed: 8 });
    });
    const first = await fetch(`${origin}/changes`);
    const { bytes, error } = await readAll(resumeResponse(first, call(reopen)));
    expect(error).toBeInstanceOf(ResumeError);
    expect(error).toMatchObject({ code: 'changed', received: bytes.length });
    expect((error as Error).message).toBe(
      `The body of ${origin}/changes was cut after ${bytes.length} bytes and cannot be resumed: the representation changed: its ETag is now "v2", not "v1".`,
    );
    expect(bytes.length).toBeGreaterThan(300_000);
    expect(bytes.length).toBeLessThanOrEqual(700_000);
    expect(sha256(bytes)).toBe(sha256(prefix(7, bytes.length)));
    const hits = server.hits.filter((hit) => hit.path === '/changes');
    expect(hits.map((hit) => [hit.status, hit.ifRange])).toEqual([
      [200, undefined],
      [206, '"v1"'],
      [200, '"v1"'],
    ]);
    // Each rest was asked from the byte the caller's stream had reached: the second from where the error says.
    expect(asked.map((a) => a.headers.Range)).toEqual([
      expect.stringMatching(/^bytes=\d+-1048575$/),
      `bytes=${bytes.length}-1048575`,
    ]);
  });

  it('cut before any byte reached the caller, the new representation is sent whole', async () => {
    server.files.set('/changes-early', { size: MiB, seed: 7, etag: '"v1"', ranges: true, cuts: [0] });
    const { asked, reopen } = fetchReopen('/changes-early', () => {
      Object.assign(server.files.get('/changes-early') ?? {}, { etag: '"v2"', seed: 8 });
    });
    const { bytes, error } = await readAll(
      resumeResponse(await fetch(`${origin}/changes-early`), call(reopen)),
    );
    expect(error).toBeUndefined();
    expect(sha256(bytes)).toBe(seededSha256(8, MiB));
    expect(asked).toEqual([{ headers: {}, wait: undefined }]);
  });
});

describe('a server without range support (fetch)', () => {
  it('a body cut before any byte is requested again whole', async () => {
    server.files.set('/no-ranges-early', { size: MiB, seed: 3, etag: '"a"', ranges: false, cuts: [0] });
    const { asked, reopen } = fetchReopen('/no-ranges-early');
    const { bytes, error } = await readAll(
      resumeResponse(await fetch(`${origin}/no-ranges-early`), call(reopen)),
    );
    expect(error).toBeUndefined();
    expect(sha256(bytes)).toBe(seededSha256(3, MiB));
    expect(asked.map((a) => a.headers)).toEqual([{}]);
  });

  it('a body cut after some bytes fails with a clear error, and the whole body sent back is let go', async () => {
    server.files.set('/no-ranges', { size: 8 * MiB, seed: 3, etag: '"a"', ranges: false, cuts: [500_000] });
    const { reopen } = fetchReopen('/no-ranges');
    const { bytes, error } = await readAll(resumeResponse(await fetch(`${origin}/no-ranges`), call(reopen)));
    expect(error).toMatchObject({ code: 'no-ranges', received: bytes.length });
    expect((error as Error).message).toMatch(
      /was cut after \d+ bytes and cannot be resumed: the server answered a Range request with the whole body \(200\), not the rest \(206\)\.$/,
    );
    expect(sha256(bytes)).toBe(sha256(prefix(3, bytes.length)));
    // The 200 to the range request was cancelled, not read to its end: its connection closed (a response no one
    // reads would hold it open, the server waiting to write on).
    const again = server.hits.filter((hit) => hit.path === '/no-ranges')[1];
    expect(again?.status).toBe(200);
    await again?.closed;
    expect(again?.sent).toBeLessThan(8 * MiB);
  });
});

describe('a keyless POST', () => {
  it('is never resumed: its body fails with a ResumeError that says why, its cause the cut, nothing sent again', async () => {
    server.files.set('/post', { size: MiB, seed: 5, etag: '"p"', ranges: true, cuts: [200_000] });
    const { asked, reopen } = fetchReopen('/post');
    const first = await fetch(`${origin}/post`, { method: 'POST', body: 'order=1' });
    const response = resumeResponse(first, call(reopen, 'POST'));
    const { error } = await readAll(response);
    expect(error).toBeInstanceOf(ResumeError);
    expect(error).toMatchObject({ code: 'unsafe-method' });
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(asked).toEqual([]);
    expect(server.hits.filter((hit) => hit.path === '/post').map((hit) => hit.method)).toEqual(['POST']);
  });
});

describe('an event stream cut 5 times, its events numbered (fetch)', () => {
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

  it('hands over every event once, in order, and reconnects after the last with the waits retry: asked', async () => {
    server.streams.set('/events', { events, connections });
    const { asked, reopen } = fetchReopen('/events');
    const { bytes, error } = await readAll(resumeResponse(await fetch(`${origin}/events`), call(reopen)));
    expect(error).toBeUndefined();
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
    expect([...text.matchAll(/data: (event \d+)/g)].map((match) => match[1])).toEqual(
      events.map((e) => e.data),
    );
    // Exactly the whole events each connection sent, its retry: line first; the first connection's BOM only.
    expect(text).toBe(wholeEventsText({ events, connections }));
    // Last-Event-ID: the last event dispatched, not the id line of the event the cut came inside.
    expect(asked).toEqual([
      { headers: { 'Last-Event-ID': '4' }, wait: 1000 },
      { headers: { 'Last-Event-ID': '11' }, wait: 1500 },
      { headers: { 'Last-Event-ID': '14' }, wait: 2000 },
      { headers: { 'Last-Event-ID': '20' }, wait: 2500 },
      { headers: { 'Last-Event-ID': '25' }, wait: 3000 },
    ]);
    expect(server.hits.filter((hit) => hit.path === '/events').map((hit) => hit.lastEventId)).toEqual([
      undefined,
      '4',
      '11',
      '14',
      '20',
      '25',
    ]);
  });
});

describe("axios's http adapter, responseType 'stream'", () => {
  let gzipServer: Server;
  let gzipOrigin = '';
  const plain = prefix(11, 2 * MiB);
  const encoded = gzipSync(plain);
  beforeAll(async () => {
    // A gzip-encoded download cut halfway through its encoded bytes.
    gzipServer = createServer((_req, res) => {
      res.writeHead(200, {
        'content-encoding': 'gzip',
        etag: '"z"',
        'content-length': String(encoded.length),
      });
      res.write(encoded.subarray(0, encoded.length / 2), () => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => gzipServer.listen(0, '127.0.0.1', resolve));
    gzipOrigin = `http://127.0.0.1:${(gzipServer.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => gzipServer.close(() => resolve())));

  it('drops Content-Encoding from the headers once it decodes: the raw headers keep it, so no decoded offset is asked for', async () => {
    const response = await axios.get(`${gzipOrigin}/file`, { responseType: 'stream', adapter: 'http' });
    expect(response.headers['content-encoding']).toBeUndefined();
    const headers = receivedHeaders(response.request.res.rawHeaders);
    expect(headers('content-encoding')).toBe('gzip');
    let reopened = 0;
    const resumed = resumeReadable(
      { status: response.status, headers, data: response.data as Readable },
      {
        method: 'GET',
        options: RESUME,
        reopen: async () => {
          reopened++;
          throw new Error('never asked');
        },
      },
    );
    const parts: Buffer[] = [];
    let failure: unknown;
    try {
      for await (const chunk of resumed) parts.push(Buffer.from(chunk));
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ code: 'encoded' });
    expect(reopened).toBe(0);
    expect(Buffer.concat(parts).equals(plain.subarray(0, Buffer.concat(parts).length))).toBe(true);
  });
});
