/**
 * What the runner wraps a response's body with when `resume` is set, whatever the client: a web `ReadableStream`
 * (fetch, ky, axios's fetch adapter) or a Node `Readable` (axios's http adapter), continued across cuts.
 */
import type { HeaderGetter } from '../../http/headers.js';
import type { ResponseBody } from '../../http/response-body.js';
import { nodeStreamPart, readableStreamOf } from './node.js';
import { type Part, type ResumeCall, resumable, Splicer } from './splicer.js';
import { webStreamOf, webStreamPart } from './web.js';

const isWeb = (stream: unknown): stream is ReadableStream<Uint8Array> =>
  typeof (stream as { getReader?: unknown } | null)?.getReader === 'function';

/** A body as the splicer reads it; one with no stream reads as empty. */
export function partOf(status: number, header: HeaderGetter, stream: ResponseBody<unknown>['stream']): Part {
  if (stream === null) return { status, header, read: async () => undefined, cancel: () => {} };
  return isWeb(stream) ? webStreamPart(status, header, stream) : nodeStreamPart(status, header, stream);
}

/**
 * The response the caller gets: `first` with a body that goes on across cuts, or `undefined` when its body is not
 * taken over (a status other than 200 and 206, no body, one already being read). The body of a method other than GET
 * and HEAD is taken over only to say, when it is cut, why it does not go on.
 * `open` reads the body of each response `call.reopen` resolves with.
 */
export function resumeStream<R>(
  first: ResponseBody<R>,
  call: ResumeCall<R>,
  open: (response: R) => Part,
): R | undefined {
  const { stream } = first;
  if (stream === null || !resumable(first.status)) return undefined;
  if (isWeb(stream) && stream.locked) return undefined;
  const part = partOf(first.status, first.header, stream);
  if (isWeb(stream)) {
    return first.with(webStreamOf(new Splicer(part, { url: first.url, ...call }, open)));
  }
  const body = readableStreamOf(stream, new Splicer(part, { url: first.url, ...call }, open));
  return body === undefined ? undefined : first.with(body);
}
