/** The process's active handles and requests, counted by type (`TCPSocketWrap: 2`, `Timeout: 1`, ...). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/** Whether `current` holds nothing beyond `baseline` (fewer is fine: a baseline timer may have fired). */
const within = (current: Record<string, number>, baseline: Record<string, number>) =>
  Object.entries(current).every(([type, n]) => n <= (baseline[type] ?? 0));

/**
 * The active resources once closing sockets have finished closing: polled every 10 ms (the poll's own timer has
 * fired when it reads), up to `limit` ms, until nothing beyond `baseline` is left. Returns the last reading
 * either way, for the caller to compare: a leak shows as a difference, not as a timeout.
 */
export async function settledResources(
  baseline: Record<string, number>,
  limit = 2000,
): Promise<Record<string, number>> {
  let current = activeResources();
  for (let waited = 0; waited < limit && !within(current, baseline); waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    current = activeResources();
  }
  return current;
}

/** Heap in use after a full, forced GC (the project runs with --expose-gc). */
export async function heapAfterGc(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('global.gc is missing: run with --expose-gc');
  // Twice, with a turn of the loop between: finalizers queued by the first GC run, the second collects their
  // garbage.
  for (let round = 0; round < 3; round++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  gc();
  return process.memoryUsage().heapUsed;
}
