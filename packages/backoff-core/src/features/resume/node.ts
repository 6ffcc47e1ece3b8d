/**
 * The resumed body as a Node `Readable`, for a client that hands its caller one (axios's http adapter with
 * `responseType: 'stream'`). No `node:` import: the `Readable` class is taken from the response's own stream, so
 * this module costs a browser bundle nothing it cannot load.
 */

import { type HeaderGetter, type HeadersLike, headerGetter } from '../../http/headers.js';

export { receivedHeaders } from '../../http/raw-headers.js';

import { type Part, type ResumeCall, resumable, Splicer } from './splicer.js';

/** The shape of a Node `Readable` this module relies on: async iteration of its chunks, and `destroy`. */
export interface NodeReadableLike extends AsyncIterable<Uint8Array> {
  destroy(error?: Error): unknown;
}

/** A response whose body is a Node stream (an `AxiosResponse` with `responseType: 'stream'`, as the splicer needs it). */
export interface StreamResponse<S extends NodeReadableLike = NodeReadableLike> {
  readonly status: number;
  /**
   * The headers as the server sent them. axios deletes `Content-Encoding` when it decodes a body: give it
   * `receivedHeaders(response.request.res.rawHeaders)`, or an encoded body would be continued at a decoded offset.
   */
  readonly headers: HeadersLike;
  readonly data: S;
  /** Where the body comes from, for error messages. */
  readonly url?: string | undefined;
}

type ReadableClass = {
  from(iterable: AsyncIterable<Uint8Array>, options: { objectMode: false }): NodeReadableLike;
};

/**
 * `Readable` itself, found on `stream`'s prototype chain: the topmost class whose prototype reads. Not the
 * stream's own class: a zlib stream's (a Duplex) `from` builds an object-mode Duplex.
 */
function readableClassOf(stream: object): ReadableClass | undefined {
  let found: ReadableClass | undefined;
  for (let proto = Object.getPrototypeOf(stream); proto !== null; proto = Object.getPrototypeOf(proto)) {
    const owner = (proto as { constructor?: Partial<ReadableClass> }).constructor;
    if (typeof (proto as { read?: unknown }).read === 'function' && typeof owner?.from === 'function') {
      found = owner as ReadableClass;
    }
  }
  return found;
}

/** A Node stream body as the splicer reads it. */
export function nodeStreamPart(status: number, header: HeaderGetter, data: NodeReadableLike): Part {
  let iterator: AsyncIterator<Uint8Array> | undefined;
  return {
    status,
    header,
    read: async () => {
      iterator ??= data[Symbol.asyncIterator]();
      const { done, value } = await iterator.next();
      return done ? undefined : value;
    },
    cancel: () => {
      try {
        data.destroy();
      } catch {
        // Already destroyed, or not ours to end: nothing more to let go.
      }
    },
  };
}

const nodePart = (response: StreamResponse): Part =>
  nodeStreamPart(response.status, headerGetter(response.headers), response.data);

/**
 * The caller's `Readable` over a splicer, of the class `like` is a `Readable` of; `undefined` when none is found.
 * Pulled as the caller reads: `Readable.from` asks for the next chunk only when its buffer has room.
 */
export function readableStreamOf(
  like: NodeReadableLike,
  splicer: Pick<Splicer<never>, 'next' | 'cancel'>,
): NodeReadableLike | undefined {
  const Readable = readableClassOf(like);
  if (Readable === undefined) return undefined;
  const chunks: AsyncIterator<Uint8Array> = {
    next: async () => {
      const value = await splicer.next();
      return value === undefined ? { done: true, value: undefined } : { done: false, value };
    },
    // What `Readable.from` calls when the caller destroys the stream.
    return: async () => {
      splicer.cancel();
      return { done: true, value: undefined };
    },
  };
  return Readable.from({ [Symbol.asyncIterator]: () => chunks }, { objectMode: false });
}

/**
 * The caller's body of `first` as a Node `Readable` that goes on across cuts (see `Splicer`): `first.data` itself
 * when it is not taken over (a status other than 200 and 206, or no `Readable` class found); the body of a method
 * other than GET and HEAD is, to say why it does not go on when cut. Pulled as the caller reads: `Readable.from`
 * asks for the next chunk only when its buffer has room.
 */
export function resumeReadable<S extends NodeReadableLike>(
  first: StreamResponse<S>,
  call: ResumeCall<StreamResponse<S>>,
): S | NodeReadableLike {
  if (readableClassOf(first.data) === undefined || !resumable(first.status)) return first.data;
  const splicer = new Splicer(nodePart(first), { url: first.url, ...call }, nodePart);
  return readableStreamOf(first.data, splicer) ?? first.data;
}
