import { originOf } from '../http/url.js';
import { type Check, checked, fail, range } from '../options/check.js';
import { describeValue } from '../options/show.js';
import type { CallView, FeatureOptions, Settled, Strategy, StrategySource } from '../run/roles.js';
import { anySignal } from '../run/sleep.js';
import { type Copies, hedging, type Raced } from './hedge-copies.js';

/** Options of `new Hedge()`: send a copy of an attempt that has not answered after `delay` ms. */
export interface HedgeOptions {
  /** Ms without an answer before a copy is sent, or `'auto'`: learned per origin from recent response times. */
  delay: number | 'auto';
  /**
   * Copies sent beyond the first, per attempt, at most (each `delay` after the previous one).
   * @default 1
   */
  max?: number | undefined;
}

const HEDGE_CHECKS: Readonly<Record<keyof HedgeOptions, Check>> = {
  delay: (value, name) => (value === 'auto' ? value : range()(value, name)),
  // More copies than that multiply the load of a slow backend for no gain in latency.
  max: range(10, 1, 'an integer'),
};

/** The reason a losing copy is aborted with. */
const lost = () => new DOMException('Another copy of this request answered first', 'AbortError');

interface Copy {
  readonly number: number;
  readonly controller: AbortController;
  readonly release: () => void;
  readonly started: number;
  settled: boolean;
}

/**
 * Hedged requests, as gRPC's and Polly's hedging: when an attempt has not answered after `delay` ms, a copy of it
 * is sent (up to `max` copies per attempt); the first answer wins and the others are aborted. With `delay: 'auto'`
 * the delay is learned per origin from recent response times (their p95, at least 10 ms, once 20 answers are
 * known; no hedge before that). Pass it as the `hedge` option; share one instance between clients to learn their
 * origins' response times together. Only a request that may be sent twice is hedged (an idempotent method or an
 * Idempotency-Key, and a body that can be sent again); each copy takes a retry-budget token, and no copy goes into
 * an open circuit, past a pacer's hold or after the deadline.
 */
export class Hedge implements StrategySource {
  readonly delay: number | 'auto';
  readonly max: number;
  readonly #times = new ResponseTimes();

  constructor(options: HedgeOptions) {
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      fail('hedge', options, `options { delay: ms | 'auto', max? }, got ${describeValue(options)}`);
    }
    const valid = checked(options, HEDGE_CHECKS, 'hedge', '', 'hedge.');
    if (valid.delay === undefined) fail('hedge.delay', undefined, `a number of ms or 'auto', got undefined`);
    this.delay = valid.delay as number | 'auto';
    this.max = (valid.max as number | undefined) ?? 1;
  }

  /** The strategy for a policy: races the copies of each attempt. */
  strategy(options: FeatureOptions): Strategy {
    return hedging((copies, call) => this.#race(copies, call, options));
  }

  /**
   * One attempt, hedged: sends the first copy, then after the delay without an answer another (while the runner
   * allows one), up to `max` more. The first answer that settles the race wins; every other copy is aborted at
   * once and its late result discarded, never reported. Each copy is sent with a signal of its own that also
   * follows the caller's.
   */
  #race<T>(copies: Copies<T>, call: CallView, options: FeatureOptions): Promise<Raced<T>> {
    const { timers, now } = options;
    const origin = this.delay === 'auto' ? originOf(call.url) : '';
    const delay = this.delay === 'auto' ? this.#times.delay(origin) : this.delay;
    const learn = (outcome: ReturnType<Copies<T>['outcome']>, elapsed: number) => {
      if (this.delay === 'auto' && outcome.type === 'response' && outcome.status < 400) {
        this.#times.record(origin, elapsed);
      }
    };
    if (delay === undefined) {
      // Not hedged yet ('auto' before it learned a delay): one copy, timed.
      const started = now();
      return copies.send(1).then((raced) => {
        if ('interrupted' in raced) return raced;
        learn(copies.outcome(raced), now() - started);
        copies.won(1, copies.outcome(raced), now() - started);
        return raced;
      });
    }
    const caller = copies.signal;
    const sent: Copy[] = [];
    let done = false;
    let timer: unknown;
    return new Promise<Raced<T>>((resolve) => {
      const finish = (raced: Raced<T>, winner?: Copy) => {
        done = true;
        if (timer !== undefined) timers.clearTimeout(timer);
        for (const copy of sent) {
          if (copy !== winner && !copy.settled) copy.controller.abort(lost());
          copy.release();
        }
        resolve(raced);
      };
      const settle = (copy: Copy, raced: Raced<T>) => {
        copy.settled = true;
        // A copy's beforeAttempt failed: the call ends, every other copy is aborted.
        if ('interrupted' in raced) {
          if (!done) finish(raced);
          return;
        }
        const settled: Settled<T> = raced;
        // A loser's late answer: let go of it (an unread body holds its connection).
        if (done) return copies.discard(settled);
        const outcome = copies.outcome(settled);
        const inFlight = sent.filter((other) => !other.settled).length;
        if (!settlesRace(copies.retryable(outcome), inFlight)) return copies.discard(settled);
        const elapsed = now() - copy.started;
        learn(outcome, elapsed);
        copies.won(copy.number, outcome, elapsed);
        finish(settled, copy);
      };
      const send = () => {
        const controller = new AbortController();
        const { signal, release } = caller ? anySignal([caller, controller.signal]) : noCombiner(controller);
        const copy: Copy = { number: sent.length + 1, controller, release, started: now(), settled: false };
        sent.push(copy);
        // A copy that could not even be made (the client's copy of the request threw) ends the call as a failing
        // beforeAttempt does: never an unhandled rejection, nor a race left waiting on it.
        copies.send(copy.number, signal).then(
          (raced) => settle(copy, raced),
          (interrupted: unknown) => settle(copy, { ok: false, interrupted }),
        );
        if (sent.length <= this.max) timer = timers.setTimeout(hedge, delay);
      };
      const hedge = () => {
        timer = undefined;
        // The caller's abort ends every copy: none is added meanwhile.
        if (done || caller?.aborted) return;
        let allowed: boolean;
        try {
          allowed = copies.mayCopy(sent.length + 1, delay);
        } catch (interrupted) {
          finish({ ok: false, interrupted });
          return;
        }
        if (allowed) send();
      };
      send();
    });
  }
}

const noCombiner = (controller: AbortController) => ({ signal: controller.signal, release() {} });

/** Samples kept per origin, the least that makes a learned delay, and the shortest learned delay (ms). */
const SAMPLES = 100;
const ENOUGH = 20;
const FLOOR = 10;
/** The most origins whose times are kept: past it, a new origin takes the place of the least recently heard. */
const ORIGINS = 1000;

/**
 * The recent response times of a policy, per origin, for `hedge: { delay: 'auto' }`: the last 100 answers'
 * times, and the hedge delay they give (their 95th percentile, at least 10 ms) once 20 are known. At most 1,000
 * origins are kept: a new one takes the place of the origin least recently heard from. Pure: the
 * caller measures the times with its own clock.
 */
export class ResponseTimes {
  /** In the order the origins were last heard from: each answer moves its origin to the end. */
  readonly #origins = new Map<string, { samples: number[]; next: number; delay: number | undefined }>();

  /** How many origins are kept. */
  get size(): number {
    return this.#origins.size;
  }

  /** Records one answer from `origin` that took `ms`. */
  record(origin: string, ms: number): void {
    const origins = this.#origins;
    let times = origins.get(origin);
    if (times === undefined) {
      times = { samples: [], next: 0, delay: undefined };
      if (origins.size >= ORIGINS) origins.delete(origins.keys().next().value as string);
    } else origins.delete(origin);
    origins.set(origin, times);
    times.samples[times.next] = ms;
    times.next = (times.next + 1) % SAMPLES;
    times.delay = undefined;
  }

  /** The hedge delay learned for `origin`, or `undefined` while fewer than 20 answers are known. */
  delay(origin: string): number | undefined {
    const times = this.#origins.get(origin);
    if (times === undefined || times.samples.length < ENOUGH) return undefined;
    if (times.delay === undefined) {
      const sorted = [...times.samples].sort((a, b) => a - b);
      const p95 = sorted[Math.ceil(sorted.length * 0.95) - 1] as number;
      times.delay = Math.max(FLOOR, Math.ceil(p95));
    }
    return times.delay;
  }
}

/**
 * Whether a copy's outcome ends the race at once: a success, or a failure no other copy can improve on. A
 * retryable failure ends it only when no other copy is still in flight (then it is the attempt's outcome).
 */
export function settlesRace(retryable: boolean, inFlight: number): boolean {
  return !retryable || inFlight === 0;
}
