// In-memory responses for the splicer's unit tests: a body that breaks where told (as fetch's does, with
// `TypeError: terminated`), and a file server that answers Range and If-Range as RFC 9110 says.

/** The error fetch's body fails with when the connection breaks. */
export const terminated = () => new TypeError('terminated');

/** `length` bytes of a known pattern: byte i is (i * 7 + 3) % 251. */
export function pattern(length: number, from = 0): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => ((from + i) * 7 + 3) % 251);
}

export interface Source {
  readonly stream: ReadableStream<Uint8Array>;
  /** Chunks the stream was asked for (pulled) so far. */
  pulls: number;
  cancelled: boolean;
}

/** A body of `bytes` in chunks of `chunk` bytes that breaks once `cutAt` bytes were read (never, if undefined). */
export function source(bytes: Uint8Array, cutAt?: number, chunk = 16): Source {
  let at = 0;
  const state: Source = {
    pulls: 0,
    cancelled: false,
    stream: new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          state.pulls++;
          if (cutAt !== undefined && at >= cutAt) return controller.error(terminated());
          if (at >= bytes.length) return controller.close();
          const end = Math.min(bytes.length, at + chunk, cutAt ?? Number.POSITIVE_INFINITY);
          controller.enqueue(bytes.slice(at, end));
          at = end;
        },
        cancel() {
          state.cancelled = true;
        },
      },
      { highWaterMark: 0 },
    ),
  };
  return state;
}

export interface FileServerOptions {
  etag?: string | undefined;
  headers?: Record<string, string>;
  /** Whether Range is honoured (a server without range support always sends 200). */
  ranges?: boolean;
  /** Whether the 200 states a Content-Length. */
  length?: boolean;
}

/**
 * A file served from memory: each response breaks at the next offset in `cuts` that lies after its start
 * (absolute offsets in the file); the rest of the file is served whole.
 */
export class FileServer {
  readonly requests: Record<string, string>[] = [];
  readonly sources: Source[] = [];
  etag: string | undefined;
  body: Uint8Array;
  readonly #options: FileServerOptions;
  readonly #cuts: number[];

  constructor(body: Uint8Array, cuts: readonly number[], options: FileServerOptions = {}) {
    this.body = body;
    this.#cuts = [...cuts];
    this.#options = options;
    this.etag = options.etag === undefined && !('etag' in options) ? '"v1"' : options.etag;
  }

  respond(request: Readonly<Record<string, string>> = {}): Response {
    this.requests.push({ ...request });
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.Range ?? '');
    const ifRange = request['If-Range'];
    const partial =
      range !== null && this.#options.ranges !== false && (ifRange === undefined || ifRange === this.etag);
    const size = this.body.length;
    const first = partial ? Number(range?.[1]) : 0;
    const last = partial && range?.[2] ? Number(range[2]) : size - 1;
    const headers: Record<string, string> = {
      ...(this.etag ? { etag: this.etag } : {}),
      ...this.#options.headers,
    };
    if (partial && first >= size) {
      return new Response(null, { status: 416, headers: { ...headers, 'content-range': `bytes */${size}` } });
    }
    if (partial) headers['content-range'] = `bytes ${first}-${last}/${size}`;
    if (this.#options.length !== false) headers['content-length'] = String(last - first + 1);
    while (this.#cuts.length > 0 && (this.#cuts[0] as number) < first) this.#cuts.shift();
    const cut = this.#cuts.shift();
    const body = source(this.body.subarray(first, last + 1), cut === undefined ? undefined : cut - first);
    this.sources.push(body);
    return new Response(body.stream, { status: partial ? 206 : 200, headers });
  }
}

/** Reads a stream to its end or its error: the bytes the caller got, and the error if it failed. */
export async function readAll(
  stream: ReadableStream<Uint8Array> | null,
): Promise<{ bytes: Uint8Array; error?: unknown }> {
  const parts: Uint8Array[] = [];
  const reader = (stream as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
  } catch (error) {
    return { bytes: join(parts), error };
  }
  return { bytes: join(parts) };
}

export function join(parts: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}
