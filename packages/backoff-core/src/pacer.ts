import type { Held, PacerHoldEvent } from './events.js';
import { parseRateQuota } from './server-timing.js';
import { describeValue } from './show.js';
import { watched } from './watch.js';
import type { CallWatcher, PacerLike, WatcherOptions } from './watcher.js';

// AWS SDK adaptive retry mode (@smithy/util-retry DefaultRateLimiter): beta 0.7, scaleConstant 0.4, smoothing 0.8,
// minFillRate 0.5 req/s, send rate measured in 0.5 s buckets.
const BETA = 0.7;
const SCALE = 0.4;
const SMOOTH = 0.8;
const MIN_RATE = 0.5;
const BUCKET = 500;
/**
 * At most one cut per second: a limiter's window, once spent, refuses every send until it resets however slowly
 * they come, so the 429s of one window are one signal.
 */
const ROUND = 1000;
/** A key with no send for this long forgets its state (one with a stated window: after that window). */
const IDLE = 60_000;
/** The most keys a pacer keeps: past it, a new key lets go of the least recently added ones. */
const KEYS = 1000;
/**
 * Slots are this share longer than the stated rate, and each send lands at a random point in that margin: a
 * released queue never arrives as one burst, and the first send of a fixed window (which anchors it) is never
 * later, relative to its slot, than the send one window on.
 */
const SPREAD = 0.05;

/** What a request looks like to `key`. */
export interface PacedRequest {
  readonly method: string;
  readonly url: string | undefined;
  readonly headers: unknown;
}

/** Options of a `Pacer`. */
export interface PacerOptions {
  /**
   * The key of a request's quota: requests with one key share one pace. For a quota per token or per partition.
   * @default the URL's origin (scheme, host and port)
   */
  key?: ((request: PacedRequest) => string) | undefined;
}

/**
 * The error a call fails with when the pacer would hold it past its `deadline`: nothing more was sent. For axios
 * it is the `cause` of an AxiosError with the code `'ERR_PACER_DEADLINE'`.
 */
export class PacerDeadlineError extends Error {
  override readonly name = 'PacerDeadlineError';
  readonly code = 'ERR_PACER_DEADLINE';
  constructor(
    /** The quota's key. */
    readonly key: string,
    /** The hold the pacer asked for, in ms. */
    readonly delay: number,
    /** What was left of the deadline, in ms. */
    readonly left: number,
  ) {
    super(
      `Held by the pacer past the deadline: ${key}'s rate limit allows the next send in ${delay} ms, ${Math.max(0, Math.floor(left))} ms were left.`,
    );
  }
}

/** One key's pace. */
export interface Lane {
  /** When the next send may go. */
  next: number;
  /** Until then the server's quota is spent: a hold is for the rate limit. */
  until: number;
  /** Ms between sends at the rate the server states, when it states one. */
  interval: number | undefined;
  /** Without a stated rate, the send rate in requests per second once throttled (AIMD, never below MIN_RATE). */
  rate: number | undefined;
  lastMax: number;
  lastThrottle: number;
  /** The smoothed success rate (req/s) and its current bucket. */
  measured: number;
  bucket: number;
  count: number;
  /** Last send or answer. */
  seen: number;
  forget: number;
}

/** What the pacer keeps of a call: its key, and when its latest attempt was let go. */
interface Kept {
  readonly key: string;
  sentAt: number;
}

/** The learning rules, pure: a lane after an answer at `now`. */
export function learn(
  lane: Lane | undefined,
  answer: {
    status: number;
    sentAt: number;
    serverDelay: number | undefined;
    quota: ReturnType<typeof parseRateQuota>;
  },
  now: number,
  maxRetryAfter: number,
): Lane {
  const { status, quota } = answer;
  const throttled = status === 429;
  // The server's own "come back then": a spent quota, or a 429's (or 503's) Retry-After.
  let wait = quota?.spent;
  if (throttled || status === 503)
    wait = answer.serverDelay === undefined ? wait : Math.max(wait ?? 0, answer.serverDelay);
  // Every answered key gets a lane, so that its first 429 knows the rate of the successes before it.
  if (lane === undefined) {
    lane = {
      next: now,
      until: 0,
      interval: undefined,
      rate: undefined,
      lastMax: 0,
      lastThrottle: -Infinity,
      measured: 0,
      bucket: now,
      count: 0,
      seen: now,
      forget: IDLE,
    };
  }
  lane.seen = now;
  // The success rate, in whole buckets, smoothed (as AWS measures its send rate): while a limiter refuses the
  // rest, it is the rate the limiter allows.
  if (status < 400) lane.count++;
  if (now - lane.bucket >= BUCKET) {
    const rate = (lane.count * 1000) / (now - lane.bucket);
    lane.measured = lane.measured === 0 ? rate : rate * SMOOTH + lane.measured * (1 - SMOOTH);
    lane.count = 0;
    lane.bucket = now;
  }
  const paced = lane.interval !== undefined;
  if (quota?.interval !== undefined) {
    lane.interval = quota.interval;
    lane.forget = Math.max(1000, quota.interval * 2);
  }
  // A key already paced at the stated rate spends its quota exactly: a success's "remaining 0" is expected then.
  if (wait !== undefined && (status >= 400 || !paced)) {
    const until = now + Math.min(wait, maxRetryAfter);
    lane.until = Math.max(lane.until, until);
    lane.next = Math.max(lane.next, until);
  }
  if (lane.interval !== undefined) return lane;
  if (throttled) {
    // One cut per round: a 429 to a send let go before the last cut says nothing of the rate since.
    if (answer.sentAt < lane.lastThrottle || now - lane.lastThrottle < ROUND) return lane;
    // The successes' rate (a bucket not yet whole counts too); with none yet, one send per round trip.
    const succeeded = lane.measured || (lane.count * 1000) / Math.max(1, now - lane.bucket);
    const base = Math.min(
      lane.rate ?? Number.POSITIVE_INFINITY,
      succeeded || 1000 / Math.max(1, now - answer.sentAt),
    );
    lane.lastMax = base;
    lane.lastThrottle = now;
    lane.rate = Math.max(MIN_RATE, base * BETA);
  } else if (lane.rate !== undefined && status < 400) {
    // CUBIC growth back towards the rate before the cut, then beyond; at most twice the measured rate.
    const k = Math.cbrt((lane.lastMax * (1 - BETA)) / SCALE);
    const cubic = SCALE * ((now - lane.lastThrottle) / 1000 - k) ** 3 + lane.lastMax;
    lane.rate = Math.max(MIN_RATE, lane.measured > 0 ? Math.min(cubic, 2 * lane.measured) : cubic);
  }
  return lane;
}

/** Whether `lane` has been idle long enough to be forgotten at `now`. */
const idle = (lane: Lane, now: number) => now - Math.max(lane.seen, lane.next) > lane.forget;

/**
 * Before a new key joins `lanes`: lets go of the oldest keys while they are idle, and of the oldest whatever they are
 * while there are `KEYS` of them, so that a pacer shared across many origins or tokens stays bounded. A Map keeps
 * its keys in the order they were added, so the loop stops at the first key it keeps.
 */
export function sweep(lanes: Map<string, Lane>, now: number): void {
  for (const [key, lane] of lanes) {
    if (lanes.size < KEYS && !idle(lane, now)) return;
    lanes.delete(key);
  }
}

/**
 * The hold before a send at `now` on `lane` (`undefined`: none), and the lane's next slot reserved for it. A hold
 * longer than `within` reserves nothing. `random` spreads the send within its slot's margin.
 */
export function reserve(
  lane: Lane,
  now: number,
  within: number,
  random: () => number,
): { delay: number; reason: Held['reason'] } | undefined {
  const interval = lane.interval ?? (lane.rate === undefined ? 0 : 1000 / lane.rate);
  const slot = Math.max(now, lane.next);
  const r = random();
  const spread = Math.floor((r >= 0 && r < 1 ? r : 1) * interval * SPREAD);
  const delay = Math.ceil(slot - now) + spread;
  if (delay > within) return { delay, reason: 'rate-limit' };
  lane.next = slot + interval * (1 + SPREAD);
  lane.seen = Math.max(lane.seen, now);
  if (delay <= 0) return undefined;
  return { delay, reason: slot < lane.until || lane.interval !== undefined ? 'rate-limit' : 'throttled' };
}

/** The origin of a URL (a relative one against the page's location), `''` when it has none. */
function origin(request: PacedRequest): string {
  try {
    return new URL(request.url ?? '', (globalThis as { location?: { href?: string } }).location?.href).origin;
  } catch {
    return '';
  }
}

/**
 * Client-side pacing from the server's rate limit, per origin (or per `key`). It learns from every answer: the
 * RateLimit fields (drafts 6 to 8), the `X-RateLimit-*` family and a 429's or 503's Retry-After. Once a key's quota
 * is spent, new sends to it (retries too) are held until the reset, then let go no faster than the stated rate.
 * Without such headers, each 429 slows the key's send rate multiplicatively and successes let it recover, as the
 * AWS SDKs' adaptive mode does. Share one instance between clients (the `pacer` option) to pace them together. A
 * key it was never throttled on costs a Map lookup per send and a count per answer.
 */
export class Pacer implements PacerLike {
  /** The error a call fails with when a hold would pass its deadline (code `'ERR_PACER_DEADLINE'`). */
  static readonly DeadlineError = PacerDeadlineError;
  readonly compose = watched;
  readonly #key: (request: PacedRequest) => string;
  readonly #lanes = new Map<string, Lane>();

  constructor(options: PacerOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError(`Expected the Pacer options to be an object, got ${describeValue(options)}.`);
    const { key } = options;
    if (key !== undefined && typeof key !== 'function')
      throw new TypeError(
        `Expected \`pacer.key\` to be a function of the request, got ${describeValue(key)}.`,
      );
    this.#key = key ?? origin;
  }

  /** `key`'s lane at `now`, forgotten when idle. */
  #lane(key: string, now: number): Lane | undefined {
    const lane = this.#lanes.get(key);
    if (lane === undefined || !idle(lane, now)) return lane;
    this.#lanes.delete(key);
    return undefined;
  }

  /**
   * Ms until a send to `key` may go by its pace, at `now` (the policy's clock; ms since the epoch by default): 0
   * when it may go now. It reserves nothing.
   */
  nextSend(key: string, now: number = Date.now()): number {
    const lane = this.#lane(key, now);
    return lane === undefined ? 0 : Math.max(0, Math.ceil(lane.next - now));
  }

  /** The watcher of a policy's calls: holds each send its key's pace asks for, learns from each answer. */
  watcher(options: WatcherOptions): CallWatcher<Kept> {
    const { now, maxRetryAfter, random } = options;
    return {
      admit: (call, request) => {
        const key = this.#key({ method: call.method, url: call.url, headers: request?.headers });
        if (typeof key !== 'string')
          throw new TypeError(`Expected \`pacer.key\` to return a string, got ${describeValue(key)}.`);
        return { key, sentAt: -Infinity };
      },
      hold: (kept, within) => {
        const at = now();
        kept.sentAt = at;
        const lane = this.#lane(kept.key, at);
        const held = lane === undefined ? undefined : reserve(lane, at, within, random);
        if (held === undefined) return undefined;
        if (held.delay > within) throw new PacerDeadlineError(kept.key, held.delay, within);
        kept.sentAt = at + held.delay;
        return { ...held, key: kept.key };
      },
      attempt: (kept, outcome, _failing, _delay, serverDelay) => {
        if (outcome.type !== 'response') return false;
        const at = now();
        const quota = parseRateQuota(outcome.headers, at);
        const { status } = outcome;
        const answer = { status, sentAt: kept.sentAt, serverDelay, quota };
        const lane = this.#lane(kept.key, at);
        if (lane === undefined) sweep(this.#lanes, at);
        this.#lanes.set(kept.key, learn(lane, answer, at, maxRetryAfter));
        return false;
      },
      end: () => {},
    };
  }
}

// The option and event types, reached through the class (`Pacer.Options`, `Pacer.HoldEvent`,
// `Pacer.DeadlineError`): the main entry stays short.
export declare namespace Pacer {
  export type Options = PacerOptions;
  export type HoldEvent = PacerHoldEvent;
  export type DeadlineError = PacerDeadlineError;
}
