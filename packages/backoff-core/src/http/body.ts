/**
 * Whether a request body can be sent again as it is. Strings, buffers, typed arrays, Blobs, FormData and
 * URLSearchParams can; a stream (a web ReadableStream, a Node `Readable` or anything with `pipe`, like the form-data
 * package) and any async iterable are consumed by the first attempt.
 */
export function replayableBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return true;
  const stream = body as { pipe?: unknown; getReader?: unknown };
  if (typeof stream.pipe === 'function' || typeof stream.getReader === 'function') return false;
  return !(Symbol.asyncIterator in stream);
}
