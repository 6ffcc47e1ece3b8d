/**
 * Whether a ky request body can be sent again as it is. Strings (ky's `json` becomes one), buffers, Blobs,
 * FormData and URLSearchParams can; a ReadableStream or any async iterable is consumed by the first attempt.
 */
export function replayableBody(body: unknown): boolean {
  if (body === undefined || body === null || typeof body !== 'object') return true;
  if (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) return false;
  return !(Symbol.asyncIterator in body);
}

/**
 * Whether the request ky is about to send can be replayed: its body came from `options.body` (or `json`) and is
 * replayable. A `Request` passed as ky's input brings its own body as a stream, which is sent once (as with
 * backoff-core's `withBackoff`).
 */
export function replayableRequest(request: Request, optionsBody: unknown): boolean {
  if (optionsBody === undefined || optionsBody === null) return request.body === null;
  return replayableBody(optionsBody);
}
