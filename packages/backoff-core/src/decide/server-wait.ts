import { unit } from './delay.js';

/*
 * The wait for a delay the server asked for (Retry-After, RateLimit and reset headers). Every client the server
 * told the same moment would come back at once, so the server's delay is a floor and the wait adds a random
 * share of a window above it. No client can see how many others were told the same moment, so:
 * - the first window is proportional to the delay, 1.5 x it, but never wider than 3.5 s. A herd needs a window
 *   that fits its size, not the outage's length: a fleet of 5,000 told 3 s comes back at about 7x a server's
 *   capacity of 200 req/s over 3.5 s, and a longer outage brings back no larger a fleet. Wider, a lone client pays
 *   for nothing: 300 clients told 30 s are all served within 30 s + 3.5 s;
 * - a call told to wait again was turned away by a herd larger than its window: each repeated ask doubles the
 *   window (up to 30 s), so the waves die out as full jitter's do, and the next wait starts no sooner than the
 *   last window closes, since those told with this call keep arriving until then.
 * Measured with the simulator's herd matrix (`pnpm simulate herd-matrix`); see the core's README.
 *
 * A server that keeps answering "now" (`Retry-After: 0`, a past date) would be called again at once, again and again,
 * with no spread (`retryAfterSpread: 0`) or a tiny one: so each repeated ask waits at least a floor that doubles with
 * each repeat (`repeatFloor`), whatever the options.
 */

/** The first window, as a multiple of the server's delay. */
export const WINDOW_RATIO = 1.5;
/** The widest first window, in ms. */
export const FIRST_WINDOW_CAP = 3500;
/** The delay a shorter one counts as: a `Retry-After: 0` repeated is still spread (150 ms, then doubled). */
export const MIN_DELAY_BASIS = 100;
/** How much wider each repeated ask makes the window. */
export const WINDOW_GROWTH = 2;
/** The widest window, in ms. */
export const MAX_WINDOW = 30_000;

/** The floor on the second ask of one call, in ms: a `Retry-After: 0` repeated waits at least this, then doubled. */
export const REPEAT_FLOOR = 100;
/** The highest floor, in ms. */
export const MAX_REPEAT_FLOOR = 30_000;

/**
 * The shortest wait for the `told`-th time a call is told to wait: none the first time (the server's word is
 * "now"), then `min(30 s, 100 ms x 2^(told - 2))`: 100 ms, 200 ms, 400 ms, ... A server's longer delay is unchanged.
 */
export function repeatFloor(told: number): number {
  return told < 2 ? 0 : Math.min(MAX_REPEAT_FLOOR, REPEAT_FLOOR * 2 ** (told - 2));
}

/**
 * The window above a server's delay that the wait is spread over, in ms: for the `told`-th time this call is told
 * to wait (1 the first time), `spread x min(MAX_WINDOW, min(1.5 x delay, 3.5 s) x 2^(told - 1))`.
 */
export function serverWaitWindow(serverDelay: number, told: number, spread: number): number {
  const first = Math.min(WINDOW_RATIO * Math.max(serverDelay, MIN_DELAY_BASIS), FIRST_WINDOW_CAP);
  // min() first: 2^told is Infinity for a huge count, and 0 x Infinity would be NaN.
  return spread * Math.min(MAX_WINDOW, first * WINDOW_GROWTH ** Math.max(0, told - 1));
}

/** What a server-asked retry waits. */
export interface ServerWait {
  /** The wait, in ms: at least the server's delay. */
  readonly wait: number;
  /** When this wait's window closes, in ms from now: where the next wait of the same call starts at the earliest. */
  readonly closes: number;
}

/**
 * The wait for the `told`-th delay the server asked this call for: from `max(serverDelay, repeatFloor(told),
 * windowLeft)` (the server's delay, raised to the floor on repeated asks, or the rest of the last window when that
 * is later), plus `random` x the window. `ceiling` is the latest the wait may end (maxRetryAfter, the deadline): the
 * window shrinks to fit under it, so the waits are spread over the room that is left rather than piled at the
 * ceiling; neither the server's delay nor the floor is ever shortened. `spread` is the `retryAfterSpread` option
 * (0: exactly the server's delay, or the floor).
 */
export function serverWait(
  serverDelay: number,
  told: number,
  windowLeft: number,
  ceiling: number,
  spread: number,
  random: () => number,
): ServerWait {
  const least = Math.max(serverDelay, repeatFloor(told));
  // 0 means exactly when told: no window, and so none to wait out either.
  const start = spread > 0 ? Math.max(least, Math.min(windowLeft, ceiling)) : least;
  const window = Math.min(serverWaitWindow(serverDelay, told, spread), Math.max(0, ceiling - start));
  return { wait: start + unit(random) * window, closes: start + window };
}

/**
 * How long a call without a `deadline` may keep waiting as servers ask, from the first time one asks: twice
 * `maxRetryAfter` (2 minutes by default), so that a server that keeps asking cannot hold a call forever, while one
 * wait as long as `maxRetryAfter` still fits with room to spare.
 */
export function serverWaitBound(maxRetryAfter: number): number {
  return 2 * maxRetryAfter;
}
