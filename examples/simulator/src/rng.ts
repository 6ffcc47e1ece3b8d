/** A seeded source of numbers in [0, 1): what the simulator passes to backoff-core as `random`. */
export type Random = () => number;

/**
 * mulberry32: a tiny 32-bit PRNG, good enough for jitter and network noise, and the same sequence on every
 * machine for the same seed (which `Math.random` cannot give).
 */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * A seed for one independent stream, derived from the run's seed and a label ("latency", "jitter", a run
 * number...). Separate streams keep the network noise identical across strategies that draw jitter differently
 * (common random numbers), so strategies are compared on the same network.
 */
export function deriveSeed(seed: number, ...labels: ReadonlyArray<string | number>): number {
  // FNV-1a over the seed and labels, then a murmur3 finaliser to spread nearby seeds apart.
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (const label of labels) {
    for (const char of `|${label}`) {
      h ^= char.charCodeAt(0);
      h = Math.imul(h, 0x01000193);
    }
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
