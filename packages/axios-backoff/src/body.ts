/**
 * Whether a request body (as the adapter gets it, after `transformRequest`) can be sent again. Strings,
 * buffers, typed arrays, Blobs, FormData and URLSearchParams can; a Node `Readable` (or anything with `pipe`,
 * like the form-data package), a web ReadableStream and any async iterable are consumed by the first attempt.
 */
export function isReplayable(data: unknown): boolean {
  if (typeof data !== 'object' || data === null) return true;
  const body = data as { pipe?: unknown; getReader?: unknown };
  if (typeof body.pipe === 'function' || typeof body.getReader === 'function') return false;
  return !(Symbol.asyncIterator in body);
}

/**
 * Lets go of a response that is not handed to the caller. Only a `responseType: 'stream'` body is still open
 * (the others were read to the end by the adapter); an unread stream would hold its connection.
 */
export function discardResponse(response: { data?: unknown } | undefined, responseType: unknown): void {
  if (responseType !== 'stream' || response === undefined) return;
  const data = response.data as { destroy?: () => void; cancel?: () => Promise<void> } | undefined;
  try {
    if (typeof data?.destroy === 'function') data.destroy();
    else if (typeof data?.cancel === 'function') data.cancel().catch(() => {});
  } catch {
    // Already closed: nothing to free.
  }
}
