import type { NodeReadableLike } from '../features/resume/node.js';
import type { HeaderGetter } from './headers.js';

/** A response's body as the runner hands it over: its status, headers, stream, and how to put another in. */
export interface ResponseBody<R> {
  readonly status: number;
  /** The headers as the server sent them (a decoding client must not hide `Content-Encoding`). */
  readonly header: HeaderGetter;
  /** The body, `null` when there is none. */
  readonly stream: ReadableStream<Uint8Array> | NodeReadableLike | null;
  /** Where the body comes from, for error messages. */
  readonly url?: string | undefined;
  /** The response with `stream` as its body, the one the caller gets. */
  with(stream: ReadableStream<Uint8Array> | NodeReadableLike): R;
}
