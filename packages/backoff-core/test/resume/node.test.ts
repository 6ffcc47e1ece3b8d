import { Duplex, Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  type NodeReadableLike,
  RESUME_DEFAULTS,
  type Reopen,
  ResumeError,
  receivedHeaders,
  resumeReadable,
  type StreamResponse,
} from '../../src/features/resume/index.ts';
import { FileServer, pattern } from './memory-server.ts';

/** A fetch Response as axios's http adapter would hand it over with `responseType: 'stream'`. */
function streamed(response: Response): StreamResponse<Readable> {
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    data: Readable.fromWeb(response.body as never),
  };
}

async function drain(stream: NodeReadableLike): Promise<{ bytes: Buffer; error?: unknown }> {
  const parts: Buffer[] = [];
  try {
    for await (const chunk of stream) parts.push(Buffer.from(chunk));
  } catch (error) {
    return { bytes: Buffer.concat(parts), error };
  }
  return { bytes: Buffer.concat(parts) };
}

const FILE = pattern(1000);
const call = (reopen: Reopen<StreamResponse<Readable>>, method = 'GET') => ({
  method,
  reopen,
  options: RESUME_DEFAULTS,
});

describe('resumeReadable: a Node stream that goes on across cuts', () => {
  it('a body cut twice reaches the caller whole, as a byte-mode Readable', async () => {
    const server = new FileServer(FILE, [300, 650]);
    const asked: string[] = [];
    const resumed = resumeReadable(
      streamed(server.respond()),
      call(async ({ headers }) => {
        asked.push(headers.Range ?? '');
        return streamed(server.respond(headers));
      }),
    );
    expect(resumed).toBeInstanceOf(Readable);
    expect((resumed as Readable).readableObjectMode).toBe(false);
    const { bytes, error } = await drain(resumed);
    expect(error).toBeUndefined();
    expect(new Uint8Array(bytes)).toEqual(FILE);
    // Readable.fromWeb reads ahead, and a broken Node stream drops what it buffered: each rest is asked from the
    // byte the caller's stream got to, at or before the cut (the bytes above prove it was that byte exactly).
    const starts = asked.map((range) => Number(/^bytes=(\d+)-999$/.exec(range)?.[1]));
    expect(starts).toEqual([
      expect.toSatisfy((n: number) => n > 0 && n <= 300),
      expect.toSatisfy((n: number) => n > 300 && n <= 650),
    ]);
  });

  it("takes Readable from a decoding stream's chain, not the Duplex class's own `from`", () => {
    const gunzip = createGunzip();
    const resumed = resumeReadable(
      { status: 200, headers: {}, data: gunzip },
      call(async () => {
        throw new Error('not called');
      }) as never,
    );
    expect(resumed).toBeInstanceOf(Readable);
    expect(resumed).not.toBeInstanceOf(Duplex);
    expect((resumed as Readable).readableObjectMode).toBe(false);
    (resumed as Readable).destroy();
    gunzip.destroy();
  });

  it('a decoded body whose received headers say gzip is never continued at a decoded offset', async () => {
    const body = Buffer.from(gzipSync(Buffer.from(FILE)));
    const data = Readable.from([body.subarray(0, 40)]).pipe(createGunzip());
    // What axios leaves in response.headers once it decoded: no Content-Encoding. The raw headers keep it.
    const raw = ['ETag', '"v1"', 'Content-Encoding', 'gzip', 'Content-Length', String(body.length)];
    let reopened = 0;
    const resumed = resumeReadable(
      { status: 200, headers: receivedHeaders(raw), data },
      call(async () => {
        reopened++;
        throw new Error('not called');
      }),
    );
    const { error } = await drain(resumed);
    expect(error).toMatchObject({ code: 'encoded' });
    expect(reopened).toBe(0);
  });

  it('destroying the resumed stream lets the body on the wire go', async () => {
    const server = new FileServer(FILE, []);
    const first = streamed(server.respond());
    const resumed = resumeReadable(
      first,
      call(async () => streamed(server.respond())),
    ) as Readable;
    for await (const _chunk of resumed) break;
    expect(resumed.destroyed).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(first.data.destroyed).toBe(true);
    expect(server.sources[0]?.cancelled).toBe(true);
  });

  it('a POST body cut fails with an unsafe-method ResumeError, its cause the cut, nothing sent again', async () => {
    const server = new FileServer(FILE, [300]);
    let reopened = 0;
    const resumed = resumeReadable(
      streamed(server.respond()),
      call(async () => {
        reopened++;
        return streamed(server.respond());
      }, 'POST'),
    );
    const { bytes, error } = await drain(resumed);
    expect(error).toBeInstanceOf(ResumeError);
    expect(error).toMatchObject({ code: 'unsafe-method', received: bytes.length });
    expect((error as Error).message).toMatch(
      /resume continues the bodies of GET and HEAD only: a POST is not sent again/,
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(reopened).toBe(0);
  });
});

describe('receivedHeaders', () => {
  it("reads Node's rawHeaders case-insensitively, repeated ones joined", () => {
    const header = receivedHeaders(['Content-Encoding', 'gzip', 'Via', 'a', 'via', 'b']);
    expect([header('content-encoding'), header('VIA'), header('etag')]).toEqual(['gzip', 'a, b', undefined]);
  });
});
