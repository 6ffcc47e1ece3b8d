import { parseRateQuota } from '../../decide/server-timing.js';
import type { HeadersLike } from '../../http/headers.js';
import { originOf } from '../../http/url.js';
import { briefly, checked, fail, fn, range } from '../../options/check.js';
import type { PacerLike } from '../../options/options.js';
import { describeValue } from '../../options/show.js';
import type { Held, PacerHoldEvent } from '../../run/events.js';
import { type Feature, type FeatureOptions, Stopped } from '../../run/roles.js';
import { isThenable } from '../../run/sleep.js';
import type { Answer, Hold, Lane, PaceLimits, Refusal, Reservation } from './rules.js';
import { MemoryPacerStore, type PacerStore } from './store.js';

// Bundlers replace it (see options/check.ts).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/** What a request looks like to `key`. */
export interface PacedRequest {
  readonly method: string;
  /** The request's URL; after a redirect, for the answer, the URL that answered. */
  readonly url: string | undefined;
  readonly headers: unknown;
}

/** A quota the user states: `limit` requests per `window` ms. */
export interface PacerQuota {
  /** Requests allowed per window: an integer of at least 1. */
  readonly limit: number;
  /** The window, in ms. */
  readonly window: number;
}

/** What a store's read answers: at once from a store that answers at once, else a Promise. */
export type StoreAnswer<S extends { read(...args: never[]): unknown }, T> =
  ReturnType<S['read']> extends PromiseLike<unknown> ? Promise<T> : T;

/** A store's write answered later: it fails on its own (a shared store falls back), never unhandled. */
const settle = (written: void | PromiseLike<void>) => {
  if (isThenable(written)) written.then(undefined, () => {});
};

/** Options of a `Pacer`. */
export interface PacerOptions<S extends PacerStore = PacerStore> {
  /**
   * The key of a request's quota: requests with one key share one pace. For a quota per token or per partition.
   * After a redirect, the answer is learnt into the key of the URL that answered: `key` is asked again with that
   * URL (the same method and headers), and the call's later sends (its retries follow the redirect again) are
   * held on that key.
   * @default the URL's origin (scheme, host and port)
   */
  key?: ((request: PacedRequest) => string) | undefined;
  /**
   * The quota of each key, when you know it before any answer (GitHub's 5,000 an hour, a partner's 10 a
   * second): a key's first sends are then spaced at `window / limit` too, before the server has said anything.
   * What the server says (RateLimit headers, a 429) corrects it: its own rate replaces it, and quota it
   * reports left lets sends go at once.
   * @default undefined (learn the quota from the answers)
   */
  quota?: PacerQuota | undefined;
  /**
   * Where each key's pace is kept: one process's memory by default; a shared store paces several processes
   * or tabs as one. See `Pacer.Store` for what a store must do.
   * @default a `Pacer.MemoryStore` (1,000 keys at most)
   */
  store?: S | undefined;
}

/**
 * The error a call fails with when the pacer would hold it past its `deadline`, or longer than `maxRetryAfter`:
 * nothing more was sent. For axios it is the `cause` of an AxiosError with the code `'ERR_PACER_DEADLINE'`.
 */
export class PacerDeadlineError extends Error {
  override readonly name = 'PacerDeadlineError';
  readonly code = 'ERR_PACER_DEADLINE';
  /**
   * Why the call stopped: `'deadline'` (the hold would end past it), or `'retry-after-too-long'` (the hold would
   * be longer than `maxRetryAfter`, as a retry told to wait that long gives up).
   */
  readonly reason: 'deadline' | 'retry-after-too-long';
  constructor(
    /** The quota's key. */
    readonly key: string,
    /**
     * The hold the pacer asked for, in ms. A reset too large to represent (hundreds of digits: later than any
     * limit) has no figure: then it is the cap the hold passed, `maxRetryAfter` or what was left of the deadline.
     */
    readonly delay: number,
    /** What was left of the deadline, in ms (`Infinity` without one). */
    readonly left: number,
    /** The caller's `maxRetryAfter`, in ms, when the hold is refused for being longer. */
    readonly maxRetryAfter?: number,
  ) {
    // A refused hold is longer than the limit it passed: one no longer than it is that limit, standing in for a
    // reset too large to represent.
    const capped = delay <= (maxRetryAfter ?? left);
    const ms = Math.max(0, Math.floor(left));
    super(
      maxRetryAfter === undefined
        ? capped
          ? `Held by the pacer past the deadline: ${key}'s rate limit allows no send before it (its reset is too large to represent; delay is capped at the ${ms} ms that were left).`
          : `Held by the pacer past the deadline: ${key}'s rate limit allows the next send in ${delay} ms, ${ms} ms were left.`
        : capped
          ? `Held by the pacer longer than maxRetryAfter: ${key}'s rate limit allows no send within maxRetryAfter (${maxRetryAfter} ms; its reset is too large to represent, delay is capped at maxRetryAfter). Nothing was sent.`
          : `Held by the pacer longer than maxRetryAfter: ${key}'s rate limit allows the next send in ${delay} ms, more than maxRetryAfter (${maxRetryAfter} ms). Nothing was sent; raise maxRetryAfter to wait that long.`,
    );
    this.reason = maxRetryAfter === undefined ? 'deadline' : 'retry-after-too-long';
  }
}

/** What the pacer keeps of a call: its keys and request, and its latest send's reservation. */
interface Kept {
  /** The key of the request's own URL. */
  readonly asked: string;
  /** The key its next send is held on: the key of the URL that answered the last send (after a redirect, its). */
  key: string;
  readonly method: string;
  readonly url: string | undefined;
  /** The request's headers, kept only for a custom `key` (asked again after a redirect). */
  readonly headers: unknown;
  /** When the latest attempt was let go. */
  sentAt: number;
  /** Its ticket: how many sends its key had reserved, its own included. */
  ticket: number;
  /** The hold it waits in, until its send goes (given back if the call ends first). */
  hold: Hold | undefined;
}

/** The origin of a paced request's URL, `''` when it has none. */
const origin = (request: PacedRequest): string => originOf(request.url);

const QUOTA_CHECKS = {
  limit: range(1e9, 1, 'an integer'),
  window: range(Number.MAX_SAFE_INTEGER, 1),
};

const STORE_METHODS = ['reserve', 'release', 'learn', 'read'] as const;

const CHECKS = {
  key: fn,
  quota: (value: unknown, name: string) => {
    const { limit, window } = checked(
      value,
      QUOTA_CHECKS,
      'Pacer quota',
      `\`${name}\` to be { limit, window }: requests per window in ms, e.g. { limit: 10, window: 1000 }`,
      `${name}.`,
    ) as { limit?: number; window?: number };
    if (limit === undefined || window === undefined)
      fail(
        `${name}.${limit === undefined ? 'limit' : 'window'}`,
        undefined,
        'given: a quota is { limit, window }',
      );
    return (window as number) / (limit as number);
  },
  store: (value: unknown, name: string) =>
    STORE_METHODS.every((method) => typeof (value as Record<string, unknown> | null)?.[method] === 'function')
      ? value
      : fail(name, value, `a Pacer store (with ${STORE_METHODS.join(', ')}), got ${describeValue(value)}`),
};

/**
 * Client-side pacing from the server's rate limit, per origin (or per `key`). It learns from every answer: the
 * RateLimit fields (drafts 6 to 8), the `X-RateLimit-*` family and a 429's or 503's Retry-After. While the
 * server reports quota left, nothing is held. Once a key's quota is spent (by the server's count, less the sends
 * since), new sends to it (retries too) are held until the reset, then let go no faster than the stated rate.
 * Without such headers, each 429 slows the key's send rate multiplicatively and successes let it recover, as the
 * AWS SDKs' adaptive mode does. A hold is never longer than the caller's `maxRetryAfter` nor past its deadline:
 * such a call fails at once, sending nothing. Share one instance between clients (the `pacer` option) to pace
 * them together. A key it was never throttled on costs a Map lookup per send and a count per answer.
 */
export class Pacer<S extends PacerStore = MemoryPacerStore> implements PacerLike {
  /** The error a call fails with when a hold would pass its deadline or `maxRetryAfter` (`'ERR_PACER_DEADLINE'`). */
  static readonly DeadlineError = PacerDeadlineError;
  /** The default store: every key's pace in this process's memory (at most `maxKeys`, 1,000 by default). */
  static readonly MemoryStore = MemoryPacerStore;
  readonly #key: ((request: PacedRequest) => string) | undefined;
  /** Ms between sends at the quota the user stated. */
  readonly #stated: number | undefined;
  readonly #store: PacerStore;

  constructor(options: PacerOptions<S> = {}) {
    const valid = checked(options, CHECKS, 'Pacer', 'the Pacer options to be an object', 'pacer.') as {
      key?: (request: PacedRequest) => string;
      quota?: number;
      store?: PacerStore;
    };
    this.#key = valid.key;
    this.#stated = valid.quota;
    this.#store = valid.store ?? new MemoryPacerStore();
  }

  /** The key of a request, checked. */
  #keyOf(method: string, url: string | undefined, headers: unknown): string {
    const request = { method, url, headers };
    const key = this.#key === undefined ? origin(request) : this.#key(request);
    if (typeof key !== 'string')
      throw new TypeError(
        process.env.NODE_ENV !== 'production'
          ? `Expected \`pacer.key\` to return a string, got ${describeValue(key)}.`
          : briefly('bad-return', 'pacer.key', key),
      );
    return key;
  }

  /**
   * Ms until a send to `key` may go by its pace, at `now` (the policy's clock; ms since the epoch by default): 0
   * when it may go now. It reserves nothing.
   */
  nextSend(key: string, now: number = Date.now()): StoreAnswer<S, number> {
    return this.#store.read(key, now) as StoreAnswer<S, number>;
  }

  /**
   * The pacer's part in a policy's calls: holds each send its key's pace asks for (a hold past the deadline or
   * `maxRetryAfter` stops the call, nothing sent), gives back the slot of a hold cut short, learns from each
   * answer. Called by `createBackoff`.
   */
  feature(options: FeatureOptions): Feature {
    const { now, maxRetryAfter, random } = options;
    // The policy's own limits: a pacer shared by several policies holds each by its own `maxRetryAfter`.
    const limits: PaceLimits = { maxRetryAfter, stated: this.#stated };
    const store = this.#store;
    return {
      start: (call) => {
        const { method, url, headers } = call;
        const asked = this.#keyOf(method, url, headers);
        const kept: Kept = {
          asked,
          key: asked,
          method,
          url,
          headers: this.#key === undefined ? undefined : headers,
          sentAt: Number.NEGATIVE_INFINITY,
          ticket: 0,
          hold: undefined,
        };
        const hold = (within: number): Held | undefined | Promise<Held | undefined> => {
          const at = now();
          kept.sentAt = at;
          kept.hold = undefined;
          const reserved = store.reserve(kept.key, at, within, random, limits);
          // A shared store answers later: the clock moved on meanwhile, and the hold counts from its answer.
          return isThenable(reserved)
            ? Promise.resolve(reserved).then((late) => answered(late, within, at))
            : held(reserved, within, at);
        };
        // What was left when the store was asked, less the time its answer took: a hold that no longer fits is
        // refused now (and its slot given back), not waited past the deadline.
        const answered = (reserved: Reservation, within: number, asked: number): Held | undefined => {
          const at = now();
          const left = within - (at - asked);
          if (typeof reserved === 'object' && reserved.type === 'held' && reserved.delay > left) {
            settle(store.release(kept.key, reserved, at));
            throw new Stopped('deadline', new PacerDeadlineError(kept.key, reserved.delay, left));
          }
          return held(reserved, left, at);
        };
        const held = (reserved: Reservation, within: number, at: number): Held | undefined => {
          if (typeof reserved === 'number') {
            kept.ticket = reserved;
            return undefined;
          }
          if (reserved.type === 'refused') {
            const capped = reserved.limit === 'maxRetryAfter';
            const error = new PacerDeadlineError(
              kept.key,
              reserved.delay,
              within,
              capped ? maxRetryAfter : undefined,
            );
            throw new Stopped(capped ? 'retry-after-too-long' : 'deadline', error);
          }
          kept.ticket = reserved.ticket;
          kept.hold = reserved;
          kept.sentAt = at + reserved.delay;
          return { delay: reserved.delay, reason: reserved.reason, key: kept.key };
        };
        // The hold was cut short (an abort): its slot goes back to whoever comes next.
        const release = () => {
          const held = kept.hold;
          kept.hold = undefined;
          if (held !== undefined) settle(store.release(kept.key, held, now()));
        };
        // A hold over: a shared store confirms it (a pause another process learnt meanwhile holds it again). Each
        // hold is at least 1 ms and none passes the time the runner gives it (the deadline, or without one the
        // bound on waits a server keeps asking for) or maxRetryAfter: it is refused.
        const confirm =
          store.confirm === undefined
            ? undefined
            : (left: number): Held | undefined | Promise<Held | undefined> => {
                const due = kept.hold;
                if (due === undefined) return undefined;
                const at = now();
                const within = left;
                kept.hold = undefined;
                kept.sentAt = at;
                const reserved = store.confirm?.(kept.key, due, at, within, random, limits) ?? due.ticket;
                return isThenable(reserved)
                  ? Promise.resolve(reserved).then((late) => answered(late, within, at))
                  : held(reserved, within, at);
              };
        return {
          gate: hold,
          ...(confirm === undefined ? {} : { confirm }),
          release,
          // A hedge goes only when it can go at once: a held one would spend the quota for nothing.
          admitsCopy: () => {
            try {
              const asked = hold(0);
              if (asked === undefined) return true;
              // A shared store cannot answer at once: no copy, and what it reserves meanwhile goes back.
              if (isThenable(asked)) {
                asked.then(
                  (late) => late !== undefined && release(),
                  () => {},
                );
                return false;
              }
              release();
              return false;
            } catch {
              return false;
            }
          },
          attempted: (outcome, asked) => {
            kept.hold = undefined;
            if (outcome.type !== 'response') return undefined;
            const at = now();
            const quota = parseRateQuota(outcome.headers as HeadersLike | undefined, at);
            // After a redirect, the quota that answered is the final URL's.
            const answered = outcome.url;
            const key =
              answered === undefined || answered === '' || answered === kept.url
                ? kept.asked
                : this.#keyOf(kept.method, answered, kept.headers);
            const answer: Answer = {
              status: outcome.status,
              ticket: key === kept.key ? kept.ticket : 0,
              sentAt: kept.sentAt,
              serverDelay: asked,
              remaining: quota?.remaining,
              reset: quota?.reset,
              interval: quota?.interval,
            };
            settle(store.learn(key, answer, at, limits));
            // The call's next send follows the same redirect: it is held as learnt there, in that key's queue.
            kept.key = key;
            return undefined;
          },
          // A call that ends while its send is still held gives the slot back.
          ended: release,
        };
      },
    };
  }
}

// The option and event types, reached through the class (`Pacer.Options`, `Pacer.HoldEvent`,
// `Pacer.DeadlineError`, `Pacer.Store`): the main entry stays short.
export declare namespace Pacer {
  export type Options<S extends PacerStore = PacerStore> = PacerOptions<S>;
  export type Quota = PacerQuota;
  export type HoldEvent = PacerHoldEvent;
  export type DeadlineError = PacerDeadlineError;
  export type Store = PacerStore;
  export type MemoryStore = MemoryPacerStore;
  /** What a store is told of an answer (`learn`). */
  export type StoreAnswer = Answer;
  /** The limits of the policy asking (`reserve`, `learn`). */
  export type StoreLimits = PaceLimits;
  /** What `reserve` answers: a ticket (go now), a `StoreHold` or a `StoreRefusal`. */
  export type StoreReservation = Reservation;
  export type StoreHold = Hold;
  export type StoreRefusal = Refusal;
  /** One key's pace, as a store keeps it. */
  export type StoreLane = Lane;
}
