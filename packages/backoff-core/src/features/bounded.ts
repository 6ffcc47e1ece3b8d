/**
 * Makes room in `map` for one more key, at `now`, so that state kept per origin or per key stays bounded: first
 * every entry `idle` says may be forgotten goes; then, while `max` entries remain, the oldest one `busy` says
 * nothing of goes, and only when every entry is busy, the oldest of all. A Map keeps its keys in the order they
 * were added, so "oldest" is the first added (or re-added) that is still there. A scan of the whole map happens
 * only when it is full.
 */
export function makeRoom<V>(
  map: Map<string, V>,
  max: number,
  idle: (value: V) => boolean,
  busy: (value: V) => boolean,
): void {
  if (map.size < max) {
    // Below the bound, only the idle entries at the front are let go: cheap, and enough to keep it tidy.
    for (const [key, value] of map) {
      if (!idle(value)) return;
      map.delete(key);
    }
    return;
  }
  for (const [key, value] of map) if (idle(value)) map.delete(key);
  if (map.size < max) return;
  for (const [key, value] of map) {
    if (!busy(value)) {
      map.delete(key);
      return;
    }
  }
  const [oldest] = map.keys();
  if (oldest !== undefined) map.delete(oldest);
}
