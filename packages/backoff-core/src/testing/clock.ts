import { checked, range } from '../options/check.js';
import { defaultTimers, type TimerProvider } from '../run/sleep.js';
import { seededRandom } from './random.js';
import { realTurn } from './turns.js';

/**
 * The fake-timer controls of a test framework, as vitest's `vi` and jest's `jest` both have them: pass either as
 * `fakeTimers` when the test calls `vi.useFakeTimers()` / `jest.useFakeTimers()`.
 */
export interface FakeTimers {
  advanceTimersByTimeAsync(ms: number): Promise<unknown>;
  advanceTimersToNextTimerAsync(): Promise<unknown>;
  getTimerCount(): number;
  getRealSystemTime(): number;
}

/** Options of `virtualTime`. */
export interface VirtualTimeOptions {
  /**
   * The framework's fake timers (`vi` or `jest`), when the test installed them: `run` then moves them. Without
   * it the kit keeps a clock of its own, which the client uses through `time.options`.
   * @default undefined (a clock of the kit's own)
   */
  fakeTimers?: FakeTimers | undefined;
  /**
   * The seed of `time.options.random`: the same seed gives the same jitter on every run.
   * @default 1
   */
  seed?: number | undefined;
  /**
   * Where the kit's own clock starts, in ms since the epoch (with `fakeTimers`, the fake clock's time counts).
   * @default Date.UTC(2026, 0, 1)
   */
  start?: number | undefined;
  /**
   * The most virtual time one `run` may cover, in ms: a call still waiting past it fails, naming the wait.
   * @default 3_600_000 (an hour)
   */
  limit?: number | undefined;
  /**
   * Real time in which nothing moves (no timer pending, no request reaching a handler of the kit) before `run`
   * fails, in ms: a call waiting on something virtual time cannot move fails fast, before the test's timeout.
   * @default 1000
   */
  stuckAfter?: number | undefined;
}

/** What a client takes to run on virtual time: spread it into its options. */
export interface TestOptions {
  readonly timers: TimerProvider;
  readonly now: () => number;
  readonly random: () => number;
}

/** Virtual time for one test: see `virtualTime`. */
export interface VirtualTime {
  /** `timers`, `now` and a seeded `random`, for `withBackoff`, axios-backoff and ky-backoff: `{ ...time.options }`. */
  readonly options: TestOptions;
  /** The virtual time now, in ms since the epoch. */
  now(): number;
  /** Virtual time passed since `virtualTime()`, in ms. */
  readonly elapsed: number;
  /**
   * Settles as `call` does, moving virtual time whenever the client has nothing else to do; fails with a message
   * naming what the call waits on when it waits on something virtual time cannot move, or past `limit`.
   */
  run<T>(call: PromiseLike<T> | (() => PromiseLike<T>)): Promise<T>;
  /** Drops the pending timers of the kit's own clock; the kit's handlers go back to the global clock. */
  restore(): void;
}

/** Real turns with nothing new before a timer fires: a response MSW already holds reaches the client first. */
const QUIET_TURNS = 3;
/**
 * Real turns taken for a ms when the clock that measures real time does not move (a test that faked `Date` but
 * kept the kit's own clock): about what an idle machine does, so a stuck call still fails.
 */
const TURNS_PER_MS = 100;
const DEFAULT_START = Date.UTC(2026, 0, 1);

interface Timer {
  readonly due: number;
  readonly ms: number;
  readonly set: number;
  readonly callback: () => void;
}

// What the kit's handlers see: the latest virtual time (until restored), the requests they hold and the last
// answer, for a stuck call's message.
let current: Clock | undefined;
let activity = 0;
const held = new Map<object, string>();
let lastAnswer: string | undefined;

/** The clock the kit's handlers read: the current virtual time's, else the global one (fake timers included). */
export function kitClock(): { now(): number; timers: TimerProvider } {
  return current ?? { now: () => Date.now(), timers: defaultTimers };
}

/** Marks a request a handler of the kit holds (until the returned function is called); `what` names it. */
export function holdRequest(what: string): (answer: string) => void {
  const token = {};
  activity++;
  held.set(token, what);
  return (answer) => {
    activity++;
    held.delete(token);
    lastAnswer = `${what} → ${answer}`;
  };
}

/** A duration as a message shows it. */
function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(3))} s`;
}

function settledFlag(promise: PromiseLike<unknown>): { done: boolean } {
  const flag = { done: false };
  const done = () => {
    flag.done = true;
  };
  promise.then(done, done);
  return flag;
}

const CHECKS = {
  fakeTimers: null,
  seed: range(2 ** 32 - 1, 0, 'an integer'),
  start: range(Number.MAX_SAFE_INTEGER, 0, 'an integer'),
  limit: range(Number.MAX_SAFE_INTEGER, 1, 'a number'),
  stuckAfter: range(Number.MAX_SAFE_INTEGER, 1, 'a number'),
};

class Clock implements VirtualTime {
  readonly options: TestOptions;
  readonly timers: TimerProvider;
  readonly #fake: FakeTimers | undefined;
  readonly #limit: number;
  readonly #stuckAfter: number;
  readonly #start: number;
  #now: number;
  readonly #pending = new Set<Timer>();
  #pumping = false;
  /** No timer due after it fires (a `run` with a `limit` is on). */
  #stopAt = Number.POSITIVE_INFINITY;
  #fired = 0;

  constructor(options: VirtualTimeOptions) {
    const { seed, start, limit, stuckAfter } = checked(
      options,
      CHECKS,
      'virtualTime',
      'the virtualTime options to be an object',
    ) as VirtualTimeOptions;
    const { fakeTimers } = options;
    if (
      fakeTimers !== undefined &&
      [
        'advanceTimersByTimeAsync',
        'advanceTimersToNextTimerAsync',
        'getTimerCount',
        'getRealSystemTime',
      ].some((name) => typeof (fakeTimers as unknown as Record<string, unknown>)[name] !== 'function')
    ) {
      throw new TypeError(
        'Expected `fakeTimers` to be the test framework\'s fake-timer controls: `vi` (vitest) or `jest` (jest, with `import { jest } from "@jest/globals"` in ESM).',
      );
    }
    if (fakeTimers !== undefined) checkMicrotasks();
    this.#fake = fakeTimers;
    this.#limit = limit ?? 3_600_000;
    this.#stuckAfter = stuckAfter ?? 1000;
    this.#now = fakeTimers ? Date.now() : (start ?? DEFAULT_START);
    this.#start = this.#now;
    this.timers = fakeTimers
      ? defaultTimers
      : {
          setTimeout: (callback, ms) => this.#set(callback, ms),
          clearTimeout: (handle) => {
            this.#pending.delete(handle as Timer);
          },
        };
    this.options = { timers: this.timers, now: this.now, random: seededRandom(seed ?? 1) };
  }

  readonly now = (): number => (this.#fake ? Date.now() : this.#now);

  get elapsed(): number {
    return this.now() - this.#start;
  }

  #set(callback: () => void, ms: number): Timer {
    const wait = Math.max(0, Number.isFinite(ms) ? ms : 0);
    const timer: Timer = { due: this.#now + wait, ms: wait, set: this.#now, callback };
    this.#pending.add(timer);
    void this.#pump();
    return timer;
  }

  #earliest(): Timer | undefined {
    let first: Timer | undefined;
    // Insertion order breaks ties, as real timers do.
    for (const timer of this.#pending) if (first === undefined || timer.due < first.due) first = timer;
    return first;
  }

  /** Fires the kit's own timers in due order, each once the client has had real turns to take what it had. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#pending.size > 0) {
        await quiet();
        const next = this.#earliest();
        if (next === undefined || next.due > this.#stopAt) break;
        this.#pending.delete(next);
        this.#now = Math.max(this.#now, next.due);
        this.#fired++;
        try {
          next.callback();
        } catch (error) {
          // As a throwing timer callback does: reported, and the clock goes on.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    } finally {
      this.#pumping = false;
    }
  }

  async run<T>(call: PromiseLike<T> | (() => PromiseLike<T>)): Promise<T> {
    const promise = Promise.resolve(typeof call === 'function' ? call() : call);
    const flag = settledFlag(promise);
    const start = this.now();
    const real = () => (this.#fake ? this.#fake.getRealSystemTime() : Date.now());
    let lastMove = real();
    let idleTurns = 0;
    let seen = '';
    if (!this.#fake) this.#stopAt = start + this.#limit;
    else checkMicrotasks();
    try {
      for (;;) {
        if (this.#fake) await this.#advanceFake();
        else await realTurn();
        if (flag.done) return await promise;
        const moved = this.#fake ? await this.#fireFake(start) : this.#checkOwn(start);
        const stamp = `${activity}:${this.#fired}`;
        if (moved || stamp !== seen) {
          seen = stamp;
          lastMove = real();
          idleTurns = 0;
        } else if (real() - lastMove >= this.#stuckAfter || ++idleTurns >= this.#stuckAfter * TURNS_PER_MS) {
          throw new Error(this.#stuck());
        }
      }
    } finally {
      this.#stopAt = Number.POSITIVE_INFINITY;
      if (!this.#fake) void this.#pump();
    }
  }

  /** Lets the client run a few real turns, with the fake timers' zero-delay work (ticks, immediates) done too. */
  async #advanceFake(): Promise<void> {
    for (let i = 0; i < QUIET_TURNS; i++) {
      await realTurn();
      await this.#fake?.advanceTimersByTimeAsync(0);
    }
  }

  /** Fires the next fake timer, if there is one; past `limit`, fails. */
  async #fireFake(start: number): Promise<boolean> {
    if ((this.#fake as FakeTimers).getTimerCount() === 0) return false;
    await (this.#fake as FakeTimers).advanceTimersToNextTimerAsync();
    if (Date.now() - start > this.#limit) {
      throw new Error(
        `backoff-core/testing: the call still waits after ${duration(Date.now() - start)} of virtual time, past \`limit\` (${duration(this.#limit)}); ${(this.#fake as FakeTimers).getTimerCount()} fake timer(s) pending. ${LIMIT_HINT}`,
      );
    }
    return true;
  }

  /** Whether one of the kit's own timers is pending (the pump fires it); past `limit`, fails naming it. */
  #checkOwn(start: number): boolean {
    const next = this.#earliest();
    if (next === undefined) return false;
    if (next.due > this.#stopAt) {
      throw new Error(
        `backoff-core/testing: the call still waits past \`limit\` (${duration(this.#limit)} of virtual time): its next timer, a wait of ${duration(next.ms)} set at +${duration(next.set - start)}, is due at +${duration(next.due - start)}. ${LIMIT_HINT}`,
      );
    }
    return true;
  }

  #stuck(): string {
    const clock = this.#fake
      ? 'no fake timer is pending (getTimerCount() is 0)'
      : `no timer of the kit's clock is pending (${this.#fired} fired)`;
    const holding = [...held.values()];
    const what =
      holding.length > 0
        ? `It waits on the answer to ${holding.join('; ')}.`
        : `No handler of the kit holds a request${lastAnswer ? ` (the last answered: ${lastAnswer})` : ''}.`;
    const hint = this.#fake
      ? 'It may wait on a server that never answers, on a timer captured before the fake timers were installed, or on a promise of its own.'
      : "It may wait on a real timer (give the client the kit's: `{ ...time.options }`, or fake the timers and pass `fakeTimers`), on a server that never answers, or on a promise of its own.";
    return `backoff-core/testing: the call has not settled and nothing moved for ${duration(this.#stuckAfter)} of real time, at +${duration(this.elapsed)} of virtual time: ${clock}. ${what} ${hint}`;
  }

  restore(): void {
    this.#pending.clear();
    if (current === this) current = undefined;
  }
}

const LIMIT_HINT =
  'If that wait is meant, raise `limit`; else look at what asked for it (Retry-After with `maxRetryAfter`, a pacer hold, a `deadline`).';

/**
 * Fails when the fake timers took the microtask queues too (jest's default): MSW's interception and the HTTP
 * client's own plumbing run on them, so requests would escape the mocks or never finish. The fake-timer library
 * both frameworks use marks each function it replaced with its `clock`.
 */
function checkMicrotasks(): void {
  const scope = globalThis as {
    queueMicrotask?: { clock?: unknown };
    process?: { nextTick?: { clock?: unknown } };
  };
  const faked = [
    scope.queueMicrotask?.clock === undefined ? undefined : 'queueMicrotask',
    scope.process?.nextTick?.clock === undefined ? undefined : 'nextTick',
  ].filter((name) => name !== undefined);
  if (faked.length === 0) return;
  throw new Error(
    `backoff-core/testing: the fake timers replaced ${faked.join(' and ')}, on which MSW and the HTTP client run: keep them real, \`jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] })\` (vitest keeps them real unless \`toFake\` lists them).`,
  );
}

/** Real turns until the client has nothing new for a few of them. */
async function quiet(): Promise<void> {
  let seen = activity;
  for (let calm = 0; calm < QUIET_TURNS; ) {
    await realTurn();
    if (activity === seen) calm++;
    else [seen, calm] = [activity, 0];
  }
}

/**
 * Virtual time for one test, in which a call that waits minutes of backoff and Retry-After runs in milliseconds.
 *
 * - Without fake timers: give the client `time.options` (`timers`, `now`, a seeded `random`). Its waits run on
 *   the kit's clock, which moves by itself whenever the client has nothing else to do: `await` the call as usual.
 * - With vitest's or jest's fake timers: pass `fakeTimers: vi` (or `jest`); `time.run(call)` moves them.
 *
 * `time.run(call)` fails fast, with a message naming what the call waits on, when it waits on something virtual
 * time cannot move (a real timer, a server that never answers) or longer than `limit`. The kit's handlers read
 * this clock until `time.restore()` (or the next `virtualTime()`).
 */
export function virtualTime(options: VirtualTimeOptions = {}): VirtualTime {
  const clock = new Clock(options);
  current = clock;
  lastAnswer = undefined;
  return clock;
}
