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
