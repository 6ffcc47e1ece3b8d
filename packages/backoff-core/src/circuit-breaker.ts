import { type Check, checked, fail, fn, MAX_TIMER_DELAY, range } from './check.js';
import { attachResult } from './result.js';
import { show } from './show.js';
import { watched } from './watch.js';
import type { CallWatcher, CircuitBreakerLike, WatcherOptions } from './watcher.js';

/** The state of one origin's circuit. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** Passed to `onStateChange` on every transition of one origin's circuit. */
export interface CircuitStateChange {
  /** The origin (scheme, host and port) whose circuit changed, e.g. `'https://api.example.com'`. */
  readonly origin: string;
  readonly from: CircuitState;
  readonly to: CircuitState;
  /** When it changed, by the breaker's clock (ms). */
  readonly at: number;
  /** While open: when the next probe may go (ms, the breaker's clock). */
  readonly openUntil: number | undefined;
}

/** Options of a `CircuitBreaker`. Every one is optional; the defaults are explained in the README. */
export interface CircuitBreakerOptions {
  /**
   * Trip when at least this share of the calls in `window` failed (and there were `minimumCalls`). `1` trips
   * only at 100 %; `false` turns the ratio rule off (the consecutive rule alone).
   * @default 0.5
   */
  failureRatio?: number | false | undefined;
  /**
   * The fewest calls in `window` before the ratio rule may trip.
   * @default 20
   */
  minimumCalls?: number | undefined;
  /**
   * The sliding window of the ratio rule, in ms.
   * @default 30000
   */
  window?: number | undefined;
  /**
   * Trip after this many failed calls in a row, whatever the ratio; `false` turns the rule off.
   * @default 5
   */
  consecutiveFailures?: number | false | undefined;
  /**
   * The first break: how long the circuit stays open before a probe, in ms. Each failed probe doubles it.
   * @default 5000
   */
  breakDuration?: number | undefined;
  /**
   * The cap on the doubled break, in ms.
   * @default 30000
   */
  maxBreakDuration?: number | undefined;
  /**
   * Calls let through at once while half-open; that many successes close the circuit, one failure re-opens it.
   * @default 1
   */
  halfOpenProbes?: number | undefined;
  /** Called on every state change of any origin's circuit. @default undefined */
  onStateChange?: ((change: CircuitStateChange) => void) | undefined;
  /** A snapshot from `toJSON()` to start from (a serverless function's cold start). @default undefined */
  initialState?: CircuitBreakerSnapshot | undefined;
}

/** One origin's circuit, as saved by `toJSON()`. Times are the breaker's clock (ms since the epoch by default). */
export interface CircuitSnapshot {
  readonly state: CircuitState;
  /** While open: when the next probe may go. */
  readonly openUntil: number;
  /** Failed probes since the circuit last closed: the break is `breakDuration * 2 ** (opens - 1)`. */
  readonly opens: number;
  readonly consecutiveFailures: number;
  /** Calls and failures in the window, as `[bucketStart, calls, failures]`. */
  readonly window: ReadonlyArray<readonly [number, number, number]>;
}

/** What `toJSON()` returns and `initialState` takes: every origin's circuit. */
export interface CircuitBreakerSnapshot {
  readonly version: 1;
  readonly origins: Readonly<Record<string, CircuitSnapshot>>;
}

/**
 * The error a call fails with while its origin's circuit is open: nothing was sent. For axios it is the `cause`
 * of an AxiosError with the code `'ERR_CIRCUIT_OPEN'`.
 */
export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
  readonly code = 'ERR_CIRCUIT_OPEN';
  /** The origin whose circuit is open. */
  readonly origin: string;
  /** Ms until the next probe may go (0 when half-open and every probe slot is taken). */
  readonly nextProbeIn: number;

  constructor(origin: string, nextProbeIn: number) {
    super(`The circuit for ${origin} is open: nothing was sent (next probe in ${nextProbeIn} ms).`);
    this.origin = origin;
    this.nextProbeIn = nextProbeIn;
  }
}

// The ratio rule counts in this many buckets over the window: a sliding window with no per-call allocation
// (Polly samples the same way).
const BUCKETS = 10;

/** What the breaker keeps of one call in flight. */
interface Call {
  readonly origin: string;
  /** Admitted while the circuit was not closed: a half-open probe. */
  readonly probe: boolean;
  /** The last attempt: failed (5xx, network, timeout), succeeded (`false`), or neither (`undefined`). */
  failed: boolean | undefined;
  serverDelay: number | undefined;
  /** Reported to the circuit already (a failed probe reports at once). */
  reported: boolean;
}

interface Circuit {
  state: CircuitState;
  openUntil: number;
  opens: number;
  consecutive: number;
  probes: number;
  successes: number;
  /** Per bucket: its start time, calls, failures. */
  readonly starts: number[];
  readonly calls: number[];
  readonly failures: number[];
  /**
   * Restored from a snapshot and not read since: its `openUntil` is clamped at the first read, by the policy's
   * clock (the breaker has none of its own).
   */
  restored: boolean;
}

const count = (max: number, min = 1) => range(max, min, 'an integer');
const duration = count(MAX_TIMER_DELAY, 0);
/** `false` (the rule is off), or what `check` accepts. */
const orOff =
  (check: Check): Check =>
  (value, name) =>
    value === false ? false : check(value, name);

const CHECKS: Readonly<Record<keyof CircuitBreakerOptions, Check | null>> = {
  failureRatio: orOff((value, name) =>
    typeof value === 'number' && value > 0 && value <= 1
      ? value
      : fail(name, `a number above 0 and at most 1, or false, got ${show(value)}`, RangeError),
  ),
  minimumCalls: count(1e9),
  window: count(MAX_TIMER_DELAY, BUCKETS),
  consecutiveFailures: orOff(count(1e9)),
  breakDuration: duration,
  // At least breakDuration: checked once both are known.
  maxBreakDuration: duration,
  halfOpenProbes: count(1000),
  onStateChange: fn,
  initialState: null,
};

/**
 * A circuit breaker per origin (scheme, host, port): the per-service ("macro") recovery that complements the
 * per-request backoff. Closed, it counts calls that failed after their retries (5xx, network, timeouts; never a
 * 4xx); it trips open on `consecutiveFailures` failures in a row or on `failureRatio` of at least `minimumCalls`
 * calls in `window`. Open, every call fails at once with a `CircuitOpenError` and nothing is sent. After the
 * break (or the tripping answer's Retry-After, if longer) it is half-open: `halfOpenProbes` calls go through;
 * their success closes it, a failure re-opens it with a doubled break, up to `maxBreakDuration`.
 *
 * Share one instance between clients (pass it as `circuitBreaker`) to give them one view of each backend. Time
 * comes from the policy's `now`, so it runs on an injected clock in tests.
 */
export class CircuitBreaker implements CircuitBreakerLike {
  readonly compose = watched;
  readonly #ratio: number | false;
  readonly #minimum: number;
  readonly #window: number;
  readonly #consecutive: number | false;
  readonly #break: number;
  readonly #maxBreak: number;
  readonly #probes: number;
  readonly #onStateChange: ((change: CircuitStateChange) => void) | undefined;
  readonly #circuits = new Map<string, Circuit>();
  readonly #listeners = new Set<(change: CircuitStateChange) => void>();

  constructor(options: CircuitBreakerOptions = {}) {
    const valid = {
      failureRatio: 0.5,
      minimumCalls: 20,
      window: 30_000,
      consecutiveFailures: 5,
      breakDuration: 5000,
      maxBreakDuration: 30_000,
      halfOpenProbes: 1,
      ...checked(
        options,
        CHECKS,
        'circuit breaker',
        'the CircuitBreaker options to be an object',
        'circuitBreaker.',
      ),
    } as { [K in keyof CircuitBreakerOptions]-?: Exclude<CircuitBreakerOptions[K], undefined> };
    const { onStateChange } = valid;
    this.#ratio = valid.failureRatio;
    this.#minimum = valid.minimumCalls;
    this.#window = valid.window;
    this.#consecutive = valid.consecutiveFailures;
    if (this.#ratio === false && this.#consecutive === false) {
      throw new RangeError(
        'Expected `circuitBreaker.failureRatio` or `circuitBreaker.consecutiveFailures` to be on: the breaker could never trip.',
      );
    }
    this.#break = valid.breakDuration;
    this.#maxBreak = count(MAX_TIMER_DELAY, this.#break)(
      valid.maxBreakDuration,
      'circuitBreaker.maxBreakDuration',
    ) as number;
    this.#probes = valid.halfOpenProbes;
    this.#onStateChange = onStateChange;
    if (options.initialState !== undefined) this.restore(options.initialState);
  }

  /** `origin`'s circuit in `circuits` (the breaker's own by default), a new closed one if it has none. */
  #circuit(origin: string, circuits = this.#circuits): Circuit {
    let circuit = circuits.get(origin);
    if (circuit === undefined) {
      const zeros = () => Array.from({ length: BUCKETS }, () => 0);
      circuit = {
        state: 'closed',
        openUntil: 0,
        opens: 0,
        consecutive: 0,
        probes: 0,
        successes: 0,
        starts: zeros(),
        calls: zeros(),
        failures: zeros(),
        restored: false,
      };
      circuits.set(origin, circuit);
    }
    return circuit;
  }

  #move(origin: string, circuit: Circuit, to: CircuitState, now: number): void {
    const from = circuit.state;
    circuit.state = to;
    circuit.probes = 0;
    circuit.successes = 0;
    if (to === 'closed') {
      circuit.opens = 0;
      circuit.consecutive = 0;
      circuit.calls.fill(0);
      circuit.failures.fill(0);
    }
    const change: CircuitStateChange = {
      origin,
      from,
      to,
      at: now,
      openUntil: to === 'open' ? circuit.openUntil : undefined,
    };
    for (const listener of this.#listeners) listener(change);
    this.#onStateChange?.(change);
  }

  /** The break after the `opens`-th opening: `breakDuration`, doubled by each failed probe, up to the cap. */
  #length(opens: number): number {
    return Math.min(this.#maxBreak, this.#break * 2 ** (Math.max(1, opens) - 1));
  }

  #open(origin: string, circuit: Circuit, now: number, serverDelay: number | undefined): void {
    circuit.opens++;
    // The server's Retry-After on the tripping answer is the earliest time to ask it again.
    circuit.openUntil = now + Math.max(this.#length(circuit.opens), serverDelay ?? 0);
    this.#move(origin, circuit, 'open', now);
  }

  /**
   * `origin`'s circuit, a restored one first clamped: a saved `openUntil` far ahead (another clock, a bad save)
   * would hold it open with no probe for as long, so it is never later than now plus its break.
   */
  #read(origin: string, now: number): Circuit | undefined {
    const circuit = this.#circuits.get(origin);
    if (circuit?.restored) {
      circuit.restored = false;
      circuit.openUntil = Math.min(circuit.openUntil, now + this.#length(circuit.opens));
    }
    return circuit;
  }

  /**
   * The origin of a request URL, the key of its circuit: `scheme://host:port` as `URL#origin` spells it (default
   * ports left out). A relative URL is resolved against the page's location; one that cannot be parsed is `''`.
   */
  origin(url: string | undefined): string {
    try {
      return new URL(url ?? '', (globalThis as { location?: { href?: string } }).location?.href).origin;
    } catch {
      return '';
    }
  }

  /** The state of `origin`'s circuit at `now` (an open circuit whose break is over reads as half-open). */
  state(origin: string, now: number): CircuitState {
    const circuit = this.#read(origin, now);
    if (circuit === undefined) return 'closed';
    return circuit.state === 'open' && now >= circuit.openUntil ? 'half-open' : circuit.state;
  }

  /**
   * Asks to send a call to `origin` at `now`: `undefined` lets it go (as a probe when half-open: its outcome must
   * then be reported with `record`), a `CircuitOpenError` refuses it.
   */
  admit(origin: string, now: number): CircuitOpenError | undefined {
    const circuit = this.#read(origin, now);
    if (circuit === undefined || circuit.state === 'closed') return undefined;
    if (circuit.state === 'open') {
      if (now < circuit.openUntil) return new CircuitOpenError(origin, circuit.openUntil - now);
      this.#move(origin, circuit, 'half-open', now);
      circuit.openUntil = now;
    }
    // Half-open: a bounded number of probes. A probe that never reports (its caller vanished) frees its slot
    // after one maximal break, so the circuit cannot stay stuck half-open.
    if (circuit.probes >= this.#probes && now - circuit.openUntil < this.#maxBreak) {
      return new CircuitOpenError(origin, 0);
    }
    if (circuit.probes >= this.#probes) {
      circuit.probes = 0;
      circuit.openUntil = now;
    }
    circuit.probes++;
    return undefined;
  }

  /** The error for a call to `origin` that may not go now (a retry while the circuit is not closed). */
  refusal(origin: string, now: number): CircuitOpenError {
    return new CircuitOpenError(origin, Math.max(0, (this.#circuits.get(origin)?.openUntil ?? now) - now));
  }

  /**
   * Reports a finished call to `origin`: `failed` (a 5xx, network failure or timeout after its retries),
   * `false` for a success (any answer below 500), or `undefined` for neither (an abort, a bug): it only frees
   * a probe slot. `serverDelay` is the answer's Retry-After in ms (already capped by `maxRetryAfter`). `probe`
   * says whether the call was admitted while half-open: only probes decide a half-open circuit.
   */
  record(origin: string, now: number, failed: boolean | undefined, serverDelay?: number, probe = true): void {
    const circuit = failed === undefined ? this.#circuits.get(origin) : this.#circuit(origin);
    if (circuit === undefined) return;
    if (circuit.state === 'half-open') {
      if (!probe) return;
      if (failed === undefined) circuit.probes = Math.max(0, circuit.probes - 1);
      else if (failed) this.#open(origin, circuit, now, serverDelay);
      else if (++circuit.successes >= this.#probes) this.#move(origin, circuit, 'closed', now);
      return;
    }
    // While open, late answers of calls sent before it opened change nothing.
    if (circuit.state !== 'closed' || failed === undefined) return;
    const span = this.#window / BUCKETS;
    const start = now - (now % span);
    const index = Math.floor(now / span) % BUCKETS;
    if (circuit.starts[index] !== start) {
      circuit.starts[index] = start;
      circuit.calls[index] = 0;
      circuit.failures[index] = 0;
    }
    (circuit.calls[index] as number)++;
    if (!failed) {
      circuit.consecutive = 0;
      return;
    }
    (circuit.failures[index] as number)++;
    circuit.consecutive++;
    if (this.#consecutive !== false && circuit.consecutive >= this.#consecutive) {
      this.#open(origin, circuit, now, serverDelay);
      return;
    }
    if (this.#ratio === false) return;
    let calls = 0;
    let failures = 0;
    for (let i = 0; i < BUCKETS; i++) {
      if (now - (circuit.starts[i] as number) < this.#window) {
        calls += circuit.calls[i] as number;
        failures += circuit.failures[i] as number;
      }
    }
    if (calls >= this.#minimum && failures >= this.#ratio * calls)
      this.#open(origin, circuit, now, serverDelay);
  }

  /**
   * The watcher of a policy's calls: it admits each call, learns from each attempt, and refuses a retry into a
   * circuit that opened. Called by `createBackoff`; not needed otherwise.
   */
  watcher(options: WatcherOptions): CallWatcher<Call> {
    const { now, maxRetryAfter } = options;
    const report = (call: Call) => {
      if (call.reported) return;
      call.reported = true;
      this.record(call.origin, now(), call.failed, call.serverDelay, call.probe);
    };
    return {
      admit: (state) => {
        const origin = this.origin(state.url);
        const at = now();
        const probe = this.state(origin, at) !== 'closed';
        const refused = this.admit(origin, at);
        if (refused !== undefined) {
          throw attachResult(
            refused,
            Object.freeze({
              attempts: 0,
              totalDelay: 0,
              reason: 'circuit-open',
              serverDelay: undefined,
              hedges: 0,
              hedgeWon: false,
            }),
          );
        }
        return { origin, probe, failed: undefined, serverDelay: undefined, reported: false };
      },
      attempt: (call, outcome, failing, serverDelay) => {
        // Only what says the backend is failing counts, and never an answer below 500 (a 429 is a live server).
        call.failed =
          outcome.type === 'response'
            ? failing
            : outcome.kind === 'network' ||
              outcome.kind === 'not-sent' ||
              outcome.kind === 'timeout' ||
              undefined;
        call.serverDelay = serverDelay === undefined ? undefined : Math.min(serverDelay, maxRetryAfter);
        if (call.probe && call.failed) report(call);
        return this.state(call.origin, now()) !== 'closed';
      },
      resume: (call) => {
        if (this.state(call.origin, now()) === 'closed') return;
        // The call then ends with the reason 'circuit-open'.
        throw this.refusal(call.origin, now());
      },
      end: (_state, reason, call) => {
        if (call === undefined) return;
        // An aborted call says nothing about the server; it only frees its probe slot.
        if (reason === 'aborted') call.failed = undefined;
        report(call);
      },
    };
  }

  /** Adds a listener to every state change (what `BackoffMetrics` uses); the same function is added once. */
  listen(listener: (change: CircuitStateChange) => void): void {
    this.#listeners.add(listener);
  }

  /**
   * Every origin's circuit, to save and later pass as `initialState` (or to `restore`). A circuit that is
   * closed with nothing counted is left out.
   */
  toJSON(): CircuitBreakerSnapshot {
    const origins: Record<string, CircuitSnapshot> = {};
    for (const [origin, circuit] of this.#circuits) {
      const window: Array<readonly [number, number, number]> = [];
      for (let i = 0; i < BUCKETS; i++) {
        const calls = circuit.calls[i] as number;
        if (calls > 0) window.push([circuit.starts[i] as number, calls, circuit.failures[i] as number]);
      }
      if (circuit.state === 'closed' && circuit.consecutive === 0 && window.length === 0) continue;
      origins[origin] = {
        state: circuit.state,
        openUntil: circuit.openUntil,
        opens: circuit.opens,
        consecutiveFailures: circuit.consecutive,
        window,
      };
    }
    return { version: 1, origins };
  }

  /**
   * Replaces the circuits with a saved snapshot. A half-open circuit comes back open until the time it was
   * saved with, so that a probe goes first: the probes in flight when it was saved are gone. An open circuit
   * waits at most its break from the first time it is asked about (its saved `openUntil` may be on another
   * clock). A snapshot with any field wrong throws a TypeError naming it, and leaves the breaker as it was.
   */
  restore(snapshot: CircuitBreakerSnapshot): void {
    const name = 'circuitBreaker.initialState';
    const object = (value: unknown): value is Record<string, unknown> =>
      typeof value === 'object' && value !== null && !Array.isArray(value);
    // Typed in full, so that a call to it ends the checked branch (TypeScript narrows on it).
    const bad: (field: string, expected: string, value: unknown) => never = (field, expected, value) =>
      fail(
        `${name}${field}`,
        `${expected}, got ${show(value, JSON.stringify)}: pass what \`toJSON()\` returned, unchanged`,
      );
    if (!object(snapshot)) bad('', 'a snapshot from `toJSON()`', snapshot);
    if (snapshot.version !== 1) bad('.version', '1', snapshot.version);
    const { origins } = snapshot as { origins: unknown };
    if (!object(origins)) bad('.origins', 'an object of circuits by origin', origins);
    const integer = (field: string, value: unknown, max = 1e9): number =>
      typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max
        ? value
        : bad(field, `an integer from 0 to ${max}`, value);
    const span = this.#window / BUCKETS;
    // Read in full before anything changes: a bad snapshot leaves the breaker as it was.
    const circuits = new Map<string, Circuit>();
    for (const [origin, saved] of Object.entries(origins)) {
      const at = `.origins[${JSON.stringify(origin)}]`;
      if (!object(saved)) bad(at, 'a circuit from `toJSON()`', saved);
      const { state, openUntil, window } = saved;
      if (state !== 'closed' && state !== 'open' && state !== 'half-open') {
        bad(`${at}.state`, "'closed', 'open' or 'half-open'", state);
      }
      if (typeof openUntil !== 'number' || !Number.isFinite(openUntil)) {
        bad(`${at}.openUntil`, 'a time in ms (a finite number)', openUntil);
      }
      if (!Array.isArray(window)) bad(`${at}.window`, 'an array of [bucketStart, calls, failures]', window);
      const circuit = this.#circuit(origin, circuits);
      circuit.state = state === 'closed' ? 'closed' : 'open';
      circuit.openUntil = openUntil as number;
      circuit.opens = integer(`${at}.opens`, saved.opens);
      circuit.consecutive = integer(`${at}.consecutiveFailures`, saved.consecutiveFailures);
      circuit.restored = circuit.state === 'open';
      (window as unknown[]).forEach((bucket, i) => {
        const [start, calls, failures] = Array.isArray(bucket) ? bucket : [];
        if (!Array.isArray(bucket) || bucket.length !== 3 || !(start >= 0) || !Number.isFinite(start)) {
          bad(`${at}.window[${i}]`, '[bucketStart, calls, failures], a time in ms and two counts', bucket);
        }
        const index = Math.floor(start / span) % BUCKETS;
        circuit.starts[index] = start;
        circuit.calls[index] = integer(`${at}.window[${i}][1]`, calls);
        circuit.failures[index] = integer(`${at}.window[${i}][2]`, failures, circuit.calls[index]);
      });
    }
    this.#circuits.clear();
    for (const [origin, circuit] of circuits) this.#circuits.set(origin, circuit);
  }
}
