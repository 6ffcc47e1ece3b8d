import type { Held } from '../../run/events.js';

// AWS SDK adaptive retry mode (@smithy/util-retry DefaultRateLimiter): beta 0.7, scaleConstant 0.4, smoothing 0.8,
// minFillRate 0.5 req/s, send rate measured in 0.5 s buckets.
const BETA = 0.7;
const SCALE = 0.4;
const SMOOTH = 0.8;
const MIN_RATE = 0.5;
/**
 * How far above its measured success rate a shared lane's rate may grow (a lane of one process: twice). Every
 * process reserves its slots on it, seconds ahead under a queue: a probe twice the quota's rate is a burst of
 * 429s in each window those slots fall in, a tenth above it one at most.
 */
const SHARED_GROWTH = 1.1;
const BUCKET = 500;
/**
 * At most one cut per second: a limiter's window, once spent, refuses every send until it resets however slowly
 * they come, so the 429s of one window are one signal.
 */
const ROUND = 1000;
/** A key with no send for this long forgets its state (one with a stated rate: after two of its slots). */
const IDLE = 60_000;
/**
 * Slots are this share longer than the stated rate, and each send lands at a random point in that margin: a
 * released queue never arrives as one burst, and the first send of a fixed window (which anchors it) is never
 * later, relative to its slot, than the send one window on.
 */
export const SPREAD = 0.05;
/** The largest time a lane keeps: a reset "too large to represent" still means "later than any cap". */
const FAR = 2 ** 53 - 1;
/** A shared lane's hold after a bare 429, the step it widens by on each repeat, and the most it widens to (ms). */
export const BARE_PAUSE = 150;
const BARE_MAX = 60_000;

/**
 * One key's pace: the pure state the rules below read and write, and that a store keeps. Times are ms on the
 * store's clock (the `now` its callers pass).
 */
export interface Lane {
  /** When the quota the server counted resets (0: no reset known). */
  reset: number;
  /**
   * Sends the server's quota has left before `reset`: its last count less the sends reserved after the send it
   * answered. `undefined`: unknown (no count, or its reset passed). At 0 or below the quota is spent.
   */
  left: number | undefined;
  /** Ms between sends at the stated rate (the server's policy, or the quota the user stated). */
  interval: number | undefined;
  /** `interval` is the user's stated quota: no server has stated its own yet. */
  stated: boolean;
  /** Sends are spaced at `interval`: from a spent quota's reset on, or from the start with a stated quota. */
  paced: boolean;
  /** Where the next spaced send may go: the end of the queue of reserved slots. */
  next: number;
  /** Slots given back by holds that ended before their send (an abort), sorted; `undefined` until one is. */
  holes: number[] | undefined;
  /** The latest slot reserved (its send may still be ahead). */
  last: number;
  /** Reservations made so far: a send's ticket is this count right after its own reservation. */
  sent: number;
  /** The ticket of the send whose answer `left` and `reset` come from: an older answer's count is older news. */
  counted: number;
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
  /** Idle this long, the lane is forgotten. */
  forget: number;
  /** A shared lane's hold after a bare 429, learnt (0: none yet), and when the latest such hold ends. */
  pause: number;
  paused: number;
  /**
   * Successes since the lane's rate was last cut (or since its last quiet spell), and when the first of them came:
   * what the server accepted.
   */
  won: number;
  since: number;
  /**
   * A shared lane's latest cut that lowered its rate: the sends reserved before it (tickets up to `cut`), when
   * it was (`from`), and how much longer its slots are now (`stretch`: the old rate over the new one).
   */
  cut: number;
  from: number;
  stretch: number;
}

/** What an answer says, for `learn`: plain data, so that a store can apply it in one atomic step. */
export interface Answer {
  readonly status: number;
  /** The ticket of the send it answers (`undefined`: the send reserved nothing, its key had no lane). */
  readonly ticket: number | undefined;
  /** When the send left (ms, the store's clock). */
  readonly sentAt: number;
  /** A 429's or 503's Retry-After, in ms. */
  readonly serverDelay: number | undefined;
  /** The quota the response reports (`parseRateQuota`). */
  readonly remaining: number | undefined;
  /** Ms until the counted quota resets. */
  readonly reset: number | undefined;
  /** Ms between sends at the server's stated rate. */
  readonly interval: number | undefined;
}

/** The limits of the policy asking: a lane shared by several policies applies each caller's own. */
export interface PaceLimits {
  /** The caller's `maxRetryAfter`: no hold is longer. */
  readonly maxRetryAfter: number;
  /** Ms between sends at the quota the user stated (`new Pacer({ quota })`), for a lane that is new. */
  readonly stated: number | undefined;
}

/**
 * A send held for its slot, the slot reserved: give it back with `release` if the send never goes. `slot` is on
 * the store's clock, `delay` relative to the `now` it was asked at.
 */
export interface Hold {
  readonly type: 'held';
  readonly ticket: number;
  readonly slot: number;
  readonly delay: number;
  readonly reason: Held['reason'];
}

/** A hold that would pass one of the caller's limits: nothing was reserved, and nothing may be sent. */
export interface Refusal {
  readonly type: 'refused';
  /**
   * The hold it would take, in ms; for a reset too large to represent (later than any limit), the limit it
   * passed: at most the smaller of `within` and `maxRetryAfter` only then.
   */
  readonly delay: number;
  readonly reason: Held['reason'];
  /** The limit it would pass: what is left of `deadline`, or `maxRetryAfter`. */
  readonly limit: 'deadline' | 'maxRetryAfter';
}

/** What `reserve` answers: a number (the send's ticket) when it may go now, else its hold or its refusal. */
export type Reservation = number | Hold | Refusal;

/** A lane at `now` that has learnt nothing yet, paced from the start at `stated` when the user stated a quota. */
export function newLane(now: number, stated: number | undefined): Lane {
  return {
    reset: 0,
    left: undefined,
    interval: stated,
    stated: stated !== undefined,
    paced: stated !== undefined,
    next: now,
    holes: undefined,
    last: Number.NEGATIVE_INFINITY,
    sent: 0,
    counted: 0,
    rate: undefined,
    lastMax: 0,
    lastThrottle: Number.NEGATIVE_INFINITY,
    measured: 0,
    bucket: now,
    count: 0,
    seen: now,
    forget: stated === undefined ? IDLE : forgetAfter(stated),
    pause: 0,
    paused: Number.NEGATIVE_INFINITY,
    won: 0,
    since: now,
    cut: 0,
    from: now,
    stretch: 1,
  };
}

const forgetAfter = (interval: number) => Math.max(1000, interval * 2);

/** Whether `lane`'s quota is spent at `now`: the server's count (less the sends since) is used up until its reset. */
const spent = (lane: Lane, now: number) => lane.left !== undefined && lane.left <= 0 && lane.reset > now;

/** Ms between the lane's sends: the stated rate while paced, the AIMD rate once throttled, else none. */
const stepOf = (lane: Lane) =>
  lane.paced && lane.interval !== undefined ? lane.interval : lane.rate === undefined ? 0 : 1000 / lane.rate;

/**
 * A bare 429 on a shared lane (no rate stated, no Retry-After, no count): the quota is spent until a time nobody
 * said, and every process sharing the lane would otherwise keep sending into it until its own rate is cut. The
 * lane is held for a learnt pause instead: `BARE_PAUSE`, widened by as much again (up to a minute) each time a
 * send let go soon after the last pause ended is refused again (the quota's window had not reset yet), back to
 * `BARE_PAUSE` for a 429 that comes later. A 429 to a send let go before the last pause ended is the same signal:
 * it changes nothing. Measured on a fixed 1 s window, this keeps 429s under a quarter of what each process's own
 * AIMD meets; the rate itself is cut to what the server accepted (see `accepted`).
 */
function bare(lane: Lane, sentAt: number, now: number, ticket: number): void {
  if (sentAt < lane.paused) return;
  const pause = lane.pause;
  const repeat = pause !== 0 && sentAt - lane.paused < Math.max(pause, ROUND);
  lane.pause = repeat ? Math.min(BARE_MAX, pause + BARE_PAUSE) : BARE_PAUSE;
  lane.left = Math.min(lane.left ?? 0, 0);
  lane.reset = Math.max(lane.reset, Math.min(FAR, now + lane.pause));
  lane.counted = Math.max(lane.counted, ticket);
  lane.paused = lane.reset;
}

/**
 * The learning rules, pure: `lane` (a new one when `undefined`) after an answer at `now`. Nothing here is capped:
 * the lane keeps what the server said, and each caller's `reserve` applies its own `maxRetryAfter`. `shared`: the
 * lane paces several processes or tabs (a bare 429 then holds it for a learnt pause, see `bare`).
 */
export function learn(
  lane: Lane | undefined,
  answer: Answer,
  now: number,
  limits: PaceLimits,
  shared = false,
): Lane {
  const { status } = answer;
  const throttled = status === 429;
  // Every answered key gets a lane, so that its first 429 knows the rate of the successes before it.
  lane ??= newLane(now, limits.stated);
  lane.seen = now;
  // The success rate, in whole buckets, smoothed (as AWS measures its send rate): while a limiter refuses the
  // rest, it is the rate the limiter allows.
  if (status < 400) {
    lane.count++;
    if (lane.won++ === 0) lane.since = now;
  }
  if (now - lane.bucket >= BUCKET) {
    const rate = (lane.count * 1000) / (now - lane.bucket);
    lane.measured = lane.measured === 0 ? rate : rate * SMOOTH + lane.measured * (1 - SMOOTH);
    lane.count = 0;
    lane.bucket = now;
  }
  if (answer.interval !== undefined) {
    lane.interval = answer.interval;
    lane.stated = false;
    lane.forget = forgetAfter(answer.interval);
  }
  // A ticket above the count of sends is from a lane forgotten since: it is counted as the oldest.
  const ticket = answer.ticket !== undefined && answer.ticket <= lane.sent ? answer.ticket : 0;
  // The server's count covers the sends up to this one: those reserved after it are not in it yet. An answer to
  // a send older than the one the count came from (answers overtake each other) is older news.
  if (answer.remaining !== undefined && ticket >= lane.counted) {
    lane.left = answer.remaining - (lane.sent - ticket);
    lane.reset = answer.reset === undefined ? 0 : Math.min(FAR, now + answer.reset);
    lane.counted = ticket;
  }
  // The server's own "come back then": a 429's (or 503's) Retry-After spends the quota until then.
  if ((throttled || status === 503) && answer.serverDelay !== undefined) {
    lane.left = Math.min(lane.left ?? 0, 0);
    lane.reset = Math.max(lane.reset, Math.min(FAR, now + answer.serverDelay));
    lane.counted = Math.max(lane.counted, ticket);
  }
  const unstated = answer.serverDelay === undefined && answer.remaining === undefined;
  if (shared && throttled && unstated && lane.interval === undefined) bare(lane, answer.sentAt, now, ticket);
  if (spent(lane, now)) {
    // Once released, sends go no faster than the stated rate, so that the queue held meanwhile never bursts.
    if (lane.interval !== undefined) lane.paced = true;
  } else if (status < 400 && lane.left !== undefined && lane.left > 0) {
    // Quota left, by the server's count: new sends go at once (those already queued keep their slots).
    lane.paced = false;
  }
  if (lane.interval !== undefined) return lane;
  if (throttled) {
    // One cut per round: a 429 to a send let go before the last cut says nothing of the rate since.
    if (answer.sentAt < lane.lastThrottle || now - lane.lastThrottle < ROUND) return lane;
    if (shared) return accepted(lane, answer.sentAt, now);
    // The successes' rate (a bucket not yet whole counts too), never below what the server accepted since the
    // last cut (buckets also count time in which nothing was sent); with none yet, one send per round trip.
    const succeeded = Math.max(
      lane.measured || (lane.count * 1000) / Math.max(1, now - lane.bucket),
      acceptedSince(lane, now),
    );
    const base = Math.min(
      lane.rate ?? Number.POSITIVE_INFINITY,
      succeeded || 1000 / Math.max(1, now - answer.sentAt),
    );
    lane.lastMax = base;
    lane.lastThrottle = now;
    lane.won = 0;
    lane.rate = Math.max(MIN_RATE, base * BETA);
  } else if (lane.rate !== undefined && status < 400) {
    // CUBIC growth back towards the rate before the cut, then beyond; at most twice the measured rate. A shared
    // lane was cut to the rate the server accepted (see `accepted`): it stays there until the curve passes it,
    // and grows more slowly beyond (`SHARED_GROWTH`).
    const k = Math.cbrt((lane.lastMax * (1 - BETA)) / SCALE);
    const cubic = SCALE * ((now - lane.lastThrottle) / 1000 - k) ** 3 + lane.lastMax;
    const rate = lane.measured > 0 ? Math.min(cubic, (shared ? SHARED_GROWTH : 2) * lane.measured) : cubic;
    lane.rate = Math.max(MIN_RATE, shared ? Math.max(lane.lastMax, rate) : rate);
  }
  return lane;
}

/**
 * The successes since the last cut (or since the lane's last quiet spell), from the first of them on, per second
 * over at least a round: a quota's window is no shorter.
 */
const acceptedSince = (lane: Lane, now: number) =>
  lane.won === 0 ? 0 : (lane.won * 1000) / Math.max(ROUND, now - lane.since);

/**
 * A shared lane's cut (at most one per round): to the rate the server accepted since the last cut, the successes
 * of every process sharing it from the first of them on (over at least a round: a quota's window is no shorter).
 * A cut by a guess (AIMD's 0.7 of the rate measured) leaves every process's queue spaced above the quota or well
 * below it, and a queue of slots reserved ahead keeps that spacing for seconds: under a fixed window, that is a
 * 429 in each window. Measured (8 processes, 200 calls at 50/s into 20/s, bare 429s): 3 429s, all in the first
 * window, where a cut by 0.8 met 11 to 16.
 */
function accepted(lane: Lane, sentAt: number, now: number): Lane {
  const before = lane.rate;
  // No success since the last cut, or only successes to sends after this one: no news of the rate.
  if (before !== undefined && (lane.won === 0 || sentAt < lane.since)) return lane;
  const rate = Math.max(MIN_RATE, acceptedSince(lane, now) || 1000 / ROUND);
  if (before !== undefined && rate < before) {
    // The queue reserved at the old rate is stretched to the new one: the end of it here, each held send when
    // its slot comes (`confirm`). Else slots reserved seconds ahead at the old rate keep meeting 429s.
    lane.cut = lane.sent;
    lane.from = now;
    lane.stretch = before / rate;
    if (lane.next > now) lane.next = now + (lane.next - now) * lane.stretch;
  }
  lane.rate = rate;
  lane.lastMax = rate;
  lane.lastThrottle = now;
  lane.won = 0;
  return lane;
}

/**
 * The earliest slot a send at `now` may take on `lane`: the reset of a spent quota, then, while sends are
 * spaced, the first slot given back that is still ahead or else the end of the queue. `hole` is that slot's
 * place in `holes` (-1: none). Reads only.
 */
function earliest(lane: Lane, now: number): { slot: number; hole: number } {
  const floor = Math.max(now, spent(lane, now) ? lane.reset : now);
  if (stepOf(lane) === 0) return { slot: floor, hole: -1 };
  const holes = lane.holes;
  if (holes !== undefined) {
    for (let i = 0; i < holes.length; i++) {
      if ((holes[i] as number) >= floor) return { slot: holes[i] as number, hole: i };
    }
  }
  return { slot: Math.max(floor, lane.next), hole: -1 };
}

/**
 * A hold of `wait` ms for `slot`, refused: it passes the rest of the deadline (`within`) or `maxRetryAfter`,
 * whichever is smaller. A slot at the lane's horizon (a reset too large to represent) has no figure of its own:
 * the refusal reports the cap it passed.
 */
function refusal(
  slot: number,
  wait: number,
  within: number,
  { maxRetryAfter }: PaceLimits,
  reason: Held['reason'],
): Refusal {
  const cap = Math.min(within, maxRetryAfter);
  const limit = within < maxRetryAfter ? 'deadline' : 'maxRetryAfter';
  return { type: 'refused', delay: slot >= FAR ? cap : wait, reason, limit };
}

/**
 * The reservation rule, pure: a send at `now` on `lane`. It goes at once (the answer is its ticket) unless the
 * quota is spent (held until its reset) or sends are spaced (held for the next free slot, spread at random
 * within the slot's margin by `random`, asked only then). A hold longer than `within` (the rest of the
 * caller's deadline) or than the caller's `maxRetryAfter` reserves nothing and is refused: never held past
 * either. One exception keeps a lane from refusing forever on what a server said of a time far away (a spent
 * daily quota, a wrong reset or window): when nothing was sent or answered on it for `maxRetryAfter`, one send
 * goes at once to ask the server again. A quota the user stated is never overridden so.
 */
export function reserve(
  lane: Lane,
  now: number,
  within: number,
  random: () => number,
  limits: PaceLimits,
): Reservation {
  // A count whose reset passed says nothing of the new window.
  if (lane.left !== undefined && lane.reset <= now) lane.left = undefined;
  const spentNow = spent(lane, now);
  if (spentNow && lane.interval !== undefined) lane.paced = true;
  const step = stepOf(lane);
  const { maxRetryAfter } = limits;
  // Slots given back that fell due unused are gone.
  const { holes } = lane;
  if (holes !== undefined) {
    let due = 0;
    while (due < holes.length && (holes[due] as number) < now) due++;
    holes.splice(0, due);
    if (holes.length === 0) lane.holes = undefined;
  }
  let { slot, hole } = earliest(lane, now);
  const wait = Math.ceil(slot - now);
  const reason: Held['reason'] = spentNow || lane.paced ? 'rate-limit' : 'throttled';
  // Nothing sent or answered on this key for `maxRetryAfter`: one send may ask the server again, unless what
  // holds it is the quota the user stated (no answer can correct that but the server's own).
  const probe =
    wait > maxRetryAfter &&
    now - Math.max(lane.last, lane.seen) >= maxRetryAfter &&
    (spentNow || !lane.stated);
  if (probe) {
    slot = now;
    hole = -1;
  } else if (wait > within || wait > maxRetryAfter) {
    return refusal(slot, wait, within, limits, reason);
  }
  if (hole >= 0) holes?.splice(hole, 1);
  else if (step > 0) lane.next = Math.max(lane.next, slot + step * (1 + SPREAD));
  // Quiet for a round or more (nothing sent, nothing answered): the server was not asked meanwhile, and the
  // successes before say nothing of its window now. What it accepts is counted afresh from this send on.
  if (now - Math.max(lane.seen, lane.last) >= ROUND) lane.won = 0;
  lane.last = Math.max(lane.last, slot);
  lane.seen = Math.max(lane.seen, now);
  if (lane.left !== undefined) lane.left--;
  const ticket = ++lane.sent;
  if (slot <= now) return ticket;
  // The spread, like the slot, never goes past the caller's limits.
  const r = random();
  const spread = Math.floor((r >= 0 && r < 1 ? r : 1) * Math.min(step, maxRetryAfter) * SPREAD);
  const delay = Math.min(wait + spread, Math.max(wait, Math.min(within, maxRetryAfter)));
  return { type: 'held', ticket, slot, delay, reason };
}

/**
 * The confirmation rule, pure: `hold`'s slot came due at `now`. Its send goes (the answer is its ticket) unless
 * the lane is paused (a bare 429 another process met while this send waited: see `bare`); then it takes a new
 * slot after the pause, as `reserve` gives one, and the one it had is gone. A send reserved before a cut of the
 * lane's rate (see `accepted`) waits for its slot stretched to the new rate, in the order the slots had; past
 * the caller's limits it is refused. A quota's count is no pause: the slots reserved already allowed for it.
 */
export function confirm(
  lane: Lane,
  hold: Hold,
  now: number,
  within: number,
  random: () => number,
  limits: PaceLimits,
): Reservation {
  if (now < lane.paused) return reserve(lane, now, within, random, limits);
  if (hold.ticket > lane.cut || hold.slot <= lane.from) return hold.ticket;
  const slot = lane.from + (hold.slot - lane.from) * lane.stretch;
  const wait = Math.ceil(slot - now);
  if (wait <= 0) return hold.ticket;
  if (wait > within || wait > limits.maxRetryAfter) return refusal(slot, wait, within, limits, hold.reason);
  // Its place in the stretched queue is a reservation of its own: a later cut stretches it from there.
  return { type: 'held', ticket: ++lane.sent, slot, delay: wait, reason: hold.reason };
}

/**
 * Gives back the slot of a hold whose send never went (its call was aborted), at `now`: the next send may take
 * it, and the quota counts one send less. A slot already due gives nothing back.
 */
export function release(lane: Lane, hold: Hold, now: number): void {
  if (hold.slot <= now) return;
  if (lane.left !== undefined) lane.left++;
  if (stepOf(lane) === 0) return;
  lane.holes ??= [];
  const holes = lane.holes;
  let i = holes.length;
  while (i > 0 && (holes[i - 1] as number) > hold.slot) i--;
  holes.splice(i, 0, hold.slot);
}

/** Ms until a send on `lane` may go at `now` by its pace (0: now). Reads only. */
export function waitOf(lane: Lane, now: number): number {
  return Math.max(0, Math.ceil(earliest(lane, now).slot - now));
}

/** Whether `lane` has been idle long enough to be forgotten at `now`. */
export function idle(lane: Lane, now: number): boolean {
  return now - Math.max(lane.seen, lane.next, lane.last, lane.reset) > lane.forget;
}

/** Whether `lane` holds sends at `now` (a spent quota, or slots reserved ahead): the last a bounded store drops. */
export function holding(lane: Lane, now: number): boolean {
  return spent(lane, now) || lane.next > now || lane.last > now;
}
