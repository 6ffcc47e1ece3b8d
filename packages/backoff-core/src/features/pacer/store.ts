import { range } from '../../options/check.js';
import { makeRoom } from '../bounded.js';
import {
  type Answer,
  confirm,
  type Hold,
  holding,
  idle,
  type Lane,
  learn,
  newLane,
  type PaceLimits,
  type Reservation,
  release,
  reserve,
  waitOf,
} from './rules.js';

export type { Answer, Hold, PaceLimits, Refusal, Reservation } from './rules.js';

/**
 * Where a `Pacer` keeps each key's pace (its lane), so that processes or tabs can share one quota. The pacer
 * never reads or writes a lane itself: it asks the store for one of these four operations, and the store applies
 * the pace's pure rules (`reserve`, `release`, `learn`, `waitOf` of pacer-rules) to the key's lane as ONE atomic
 * step: read, rule, write, with no other operation on the same key in between. In memory that is a plain
 * function call; across processes it is one round trip that runs the rule where the state is (one Redis script).
 *
 * The contract every store keeps (the shared contract suite checks it):
 * - **Time.** `now` is the caller's clock, in ms. A store shared by several processes needs ONE time source: it
 *   may use its own (the Redis server's `TIME`) in place of every `now` it is given, for every operation alike.
 *   What leaves the store is relative (a hold's `delay`, `read`'s ms) except a hold's `slot`, which only ever
 *   comes back to the same store in `release`.
 * - **Reserve** takes the next send's slot or refuses it, atomically: two sends never get one slot, and a refused
 *   send reserves nothing. Its answer is the send's ticket (a number) when it may go now, else a `Hold` (wait
 *   `delay`, then send) or a `Refusal` (send nothing).
 * - **Release** gives a held slot back (its send never went); a slot already due gives nothing back.
 * - **Learn** applies an answer; **read** changes nothing.
 * - **Bounded.** A store forgets idle keys, and keeps a bounded number of keys (a Redis store: keys that expire).
 * - **Cheap when idle.** A key that was never held costs one lookup per send (no allocation), and an answer
 *   that says nothing new costs no write beyond its counters.
 *
 * - **Sync or not.** Each operation may answer at once (memory) or with a Promise (a shared store: one round trip).
 *   A store that answers later answers within a bounded time (falling back to local pacing when its server is
 *   slow or gone): the caller's abort ends the wait at once, the deadline at its time, and a hold answered after
 *   either is given back; one answered too late to end by the deadline is refused and given back.
 */
export interface PacerStore {
  /**
   * Asks for a send on `key` at `now` (`within`: what is left of the caller's deadline, `Infinity` without one;
   * `random`: the caller's source of numbers in [0, 1), asked only to spread a held send within its slot;
   * `limits`: the caller's). Answers a
   * ticket (go now), a `Hold`, or a `Refusal`.
   */
  reserve(
    key: string,
    now: number,
    within: number,
    random: () => number,
    limits: PaceLimits,
  ): Reservation | PromiseLike<Reservation>;
  /**
   * Optional: `hold`'s slot on `key` came due at `now`. Its ticket when its send may go, else a new `Hold` (the
   * lane was paused meanwhile, or its rate cut: the queue stretched) or a `Refusal`. A new hold is confirmed too. A store shared by processes has it, as a pause another process
   * learns reaches sends already held; without it a hold's send goes when its slot comes.
   */
  confirm?(
    key: string,
    hold: Hold,
    now: number,
    within: number,
    random: () => number,
    limits: PaceLimits,
  ): Reservation | PromiseLike<Reservation>;
  /** Gives back the slot of `hold` on `key`: its send never went. */
  release(key: string, hold: Hold, now: number): void | PromiseLike<void>;
  /** Learns from an answer to a send on `key`, at `now`. */
  learn(key: string, answer: Answer, now: number, limits: PaceLimits): void | PromiseLike<void>;
  /** Ms until a send on `key` may go at `now` by its pace (0: now). Reserves and writes nothing. */
  read(key: string, now: number): number | PromiseLike<number>;
}

/** How many keys a memory store keeps at most by default. */
const KEYS = 1000;

/**
 * The default `PacerStore`: every lane in this process's memory, in a Map. At most `maxKeys` keys (1,000 by
 * default): idle keys are forgotten first, then the oldest that holds nothing; a key that holds sends (a spent
 * quota, slots reserved) goes only when every key does.
 */
export class MemoryPacerStore implements PacerStore {
  readonly #lanes = new Map<string, Lane>();
  readonly #max: number;

  readonly #shared: boolean;

  /**
   * `shared`: the store paces several processes or tabs (a `TabStore`'s leader, a test of a shared store): a bare
   * 429 then holds the key for a learnt pause.
   */
  constructor(options: { maxKeys?: number | undefined; shared?: boolean | undefined } = {}) {
    this.#max = range(1e9, 1, 'an integer')(options.maxKeys ?? KEYS, 'maxKeys') as number;
    this.#shared = options.shared === true;
  }

  /** How many keys are kept. */
  get size(): number {
    return this.#lanes.size;
  }

  /** Whether a pace is kept for `key`. */
  has(key: string): boolean {
    return this.#lanes.has(key);
  }

  /** `key`'s lane at `now`, forgotten when idle. */
  #lane(key: string, now: number): Lane | undefined {
    const lane = this.#lanes.get(key);
    if (lane === undefined || !idle(lane, now)) return lane;
    this.#lanes.delete(key);
    return undefined;
  }

  /** A new lane for `key`, room made for it first. */
  #add(key: string, now: number, lane: Lane): Lane {
    makeRoom(
      this.#lanes,
      this.#max,
      (kept) => idle(kept, now),
      (kept) => holding(kept, now),
    );
    this.#lanes.set(key, lane);
    return lane;
  }

  reserve(key: string, now: number, within: number, random: () => number, limits: PaceLimits): Reservation {
    let lane = this.#lane(key, now);
    if (lane === undefined) {
      // A key never answered goes at once, unless the user stated its quota: then its first burst is paced too.
      if (limits.stated === undefined) return 0;
      lane = this.#add(key, now, newLane(now, limits.stated));
    }
    return reserve(lane, now, within, random, limits);
  }

  /** Confirms a hold come due; only a `shared` store pauses (else the hold's send goes, as without `confirm`). */
  confirm(
    key: string,
    hold: Hold,
    now: number,
    within: number,
    random: () => number,
    limits: PaceLimits,
  ): Reservation {
    const lane = this.#shared ? this.#lane(key, now) : undefined;
    return lane === undefined ? hold.ticket : confirm(lane, hold, now, within, random, limits);
  }

  release(key: string, hold: Hold, now: number): void {
    const lane = this.#lanes.get(key);
    if (lane !== undefined) release(lane, hold, now);
  }

  learn(key: string, answer: Answer, now: number, limits: PaceLimits): void {
    const lane = this.#lane(key, now);
    const learnt = learn(lane, answer, now, limits, this.#shared);
    if (lane === undefined) this.#add(key, now, learnt);
  }

  read(key: string, now: number): number {
    const lane = this.#lanes.get(key);
    return lane === undefined || idle(lane, now) ? 0 : waitOf(lane, now);
  }
}
