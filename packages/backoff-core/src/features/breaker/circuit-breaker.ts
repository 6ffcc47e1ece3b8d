import { failing } from '../../decide/verdict.js';
import { originOf } from '../../http/url.js';
import {
  briefly,
  type Check,
  checked,
  fail,
  fn,
  MAX_TIMER_DELAY,
  range,
  withMethods,
} from '../../options/check.js';
import type { CircuitBreakerLike } from '../../options/options.js';
import { describeValue, show } from '../../options/show.js';
import {
  type CallView,
  type Feature,
  type FeatureCall,
  type FeatureOptions,
  Stopped,
} from '../../run/roles.js';
import { isThenable } from '../../run/sleep.js';
import {
  type Admission,
  BUCKETS,
  type Circuit,
  type CircuitRules,
  type CircuitState,
  type CircuitTransition,
  newCircuit,
  stateAt,
} from './rules.js';
import { type CircuitStore, MemoryCircuitStore } from './store.js';

// Bundlers replace it (see options/check.ts).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

export type { CircuitState } from './rules.js';

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

/** What a breaker's store-backed method answers: at once from a store that answers at once, else a Promise. */
export type CircuitAnswer<S extends CircuitStore, T> =
  ReturnType<S['admit']> extends PromiseLike<unknown> ? Promise<T> : T;

/** `value`, or what it resolves to, through `then`: at once when it is no Promise. */
function after<V, R>(value: V | PromiseLike<V>, then: (value: V) => R): R | Promise<R> {
  return isThenable(value) ? Promise.resolve(value).then(then) : then(value as V);
}

/** Options of a `CircuitBreaker`. Every one is optional; the defaults are explained in the README. */
export interface CircuitBreakerOptions<S extends CircuitStore = CircuitStore> {
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
  /**
   * Where each origin's circuit is kept: one process's memory by default; a shared store gives several
   * processes or tabs one view of each backend. See `CircuitBreaker.Store` for what a store must do.
   * @default a `CircuitBreaker.MemoryStore` (1,000 origins at most)
   */
  store?: S | undefined;
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

const count = (max: number, min = 1) => range(max, min, 'an integer');
const duration = count(MAX_TIMER_DELAY, 0);
/** `false` (the rule is off), or what `check` accepts. */
const orOff =
  (check: Check): Check =>
  (value, name) =>
    value === false ? false : check(value, name);

const STORE_METHODS = ['admit', 'record', 'read', 'entries', 'replace'];

const CHECKS: Readonly<Record<keyof CircuitBreakerOptions, Check | null>> = {
  failureRatio: orOff((value, name) =>
    typeof value === 'number' && value > 0 && value <= 1
      ? value
      : fail(name, value, `a number above 0 and at most 1, or false, got ${show(value)}`, RangeError),
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
  store: withMethods(STORE_METHODS, false, `a circuit store (with ${STORE_METHODS.join(', ')})`),
};

/** `now` as a time a breaker can use: a finite number of ms; anything else throws, naming `name`. */
function time(now: unknown, name: string): number {
  if (typeof now === 'number' && Number.isFinite(now)) return now;
  return fail(
    name,
    now,
    `a time in ms (a finite number), got ${describeValue(now)}: pass the clock of the breaker's policies (Date.now() by default), or leave it out`,
  );
}

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
export class CircuitBreaker<S extends CircuitStore = MemoryCircuitStore> implements CircuitBreakerLike {
  /** The default store: every origin's circuit in this process's memory (at most `maxOrigins`, 1,000 by default). */
  static readonly MemoryStore = MemoryCircuitStore;
  readonly #rules: CircuitRules;
  readonly #onStateChange: ((change: CircuitStateChange) => void) | undefined;
  readonly #store: CircuitStore;
  readonly #listeners = new Set<(change: CircuitStateChange) => void>();

  constructor(options: CircuitBreakerOptions<S> = {}) {
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
    const { onStateChange, failureRatio, consecutiveFailures, breakDuration } = valid;
    if (failureRatio === false && consecutiveFailures === false) {
      throw new RangeError(
        process.env.NODE_ENV !== 'production'
          ? 'Expected `circuitBreaker.failureRatio` or `circuitBreaker.consecutiveFailures` to be on: the breaker could never trip.'
          : briefly('bad-option', 'circuitBreaker.consecutiveFailures', false),
      );
    }
    this.#rules = {
      failureRatio,
      minimumCalls: valid.minimumCalls,
      window: valid.window,
      consecutiveFailures,
      breakDuration,
      maxBreakDuration: count(MAX_TIMER_DELAY, breakDuration)(
        valid.maxBreakDuration,
        'circuitBreaker.maxBreakDuration',
      ) as number,
      halfOpenProbes: valid.halfOpenProbes,
    };
    this.#onStateChange = onStateChange;
    this.#store = valid.store ?? new MemoryCircuitStore();
    if (options.initialState !== undefined) this.restore(options.initialState);
  }

  /** Tells every listener of a transition of `origin`'s circuit. */
  #tell(origin: string, transition: CircuitTransition | undefined): void {
    if (transition === undefined) return;
    const change: CircuitStateChange = { origin, ...transition };
    for (const listener of this.#listeners) listener(change);
    this.#onStateChange?.(change);
  }

  /**
   * The origin of a request URL, the key of its circuit: `scheme://host:port` as `URL#origin` spells it (default
   * ports left out). A relative URL is resolved against the page's location; one that cannot be parsed is `''`.
   */
  origin(url: string | undefined): string {
    return originOf(url);
  }

  /**
   * The state of `origin`'s circuit at `now` (an open circuit whose break is over reads as half-open). It only
   * reads. `now` is the breaker's clock: its policies' `now`, `Date.now()` by default.
   */
  state(origin: string, now: number = Date.now()): CircuitAnswer<S, CircuitState> {
    const at = time(now, 'now');
    return after(this.#store.read(origin, at), (circuit) => stateAt(circuit, at)) as CircuitAnswer<
      S,
      CircuitState
    >;
  }

  /**
   * Asks to send a call to `origin` at `now`: `undefined` lets it go (as a probe when half-open: its outcome must
   * then be reported with `record`), a `CircuitOpenError` refuses it.
   */
  admit(origin: string, now: number = Date.now()): CircuitAnswer<S, CircuitOpenError | undefined> {
    return after(this.#store.admit(origin, time(now, 'now'), this.#rules), (admission) => {
      this.#tell(origin, admission.change);
      return admission.admitted ? undefined : new CircuitOpenError(origin, admission.nextProbeIn);
    }) as CircuitAnswer<S, CircuitOpenError | undefined>;
  }

  /** The error for a call to `origin` that may not go now, from its circuit as read at `now`. */
  #refusal(origin: string, circuit: Readonly<Circuit> | undefined, now: number): CircuitOpenError {
    return new CircuitOpenError(origin, Math.max(0, (circuit?.openUntil ?? now) - now));
  }

  /**
   * Reports a finished call to `origin`: `failed` (a 5xx, network failure or timeout after its retries),
   * `false` for a success (any answer below 500), or `undefined` for neither (an abort, a bug): it only frees
   * a probe slot. `serverDelay` is the answer's Retry-After in ms (already capped by `maxRetryAfter`). `probe`
   * says whether the call was admitted while half-open: only probes decide a half-open circuit.
   */
  record(
    origin: string,
    now: number,
    failed: boolean | undefined,
    serverDelay?: number,
    probe = true,
  ): CircuitAnswer<S, void> {
    const at = time(now, 'now');
    return after(this.#store.record(origin, at, failed, serverDelay, probe, this.#rules), (transition) =>
      this.#tell(origin, transition),
    ) as CircuitAnswer<S, void>;
  }

  /**
   * The breaker's part in a policy's calls: it admits each call (refusing it while the origin's circuit is open),
   * learns from each attempt, and refuses a retry into a circuit that opened. Called by `createBackoff`.
   */
  feature(options: FeatureOptions): Feature {
    const { now } = options;
    const store = this.#store;
    const rules = this.#rules;
    return {
      start: (call) => {
        const origin = this.origin(call.url);
        return after(store.admit(origin, now(), rules), (admission) =>
          this.#call(origin, admission, call, options),
        );
      },
    };
  }

  /** One admitted call's part: what it learns from each attempt, and the gate of each retry. */
  #call(origin: string, admission: Admission, call: CallView, options: FeatureOptions): FeatureCall {
    const { now, maxRetryAfter } = options;
    const store = this.#store;
    const rules = this.#rules;
    this.#tell(origin, admission.change);
    if (!admission.admitted) {
      throw new Stopped('circuit-open', new CircuitOpenError(origin, admission.nextProbeIn));
    }
    const { probe } = admission;
    /** The circuit as last read: a copy (a hedge) is asked about at once, even of a store that answers later. */
    let wasClosed = !probe;
    /** The circuit at `now`, read: closed or else the error a send into it gets. */
    const look = (): CircuitOpenError | undefined | Promise<CircuitOpenError | undefined> => {
      const at = now();
      return after(store.read(origin, at), (circuit) => {
        wasClosed = stateAt(circuit, at) === 'closed';
        return wasClosed ? undefined : this.#refusal(origin, circuit, at);
      });
    };
    /** The last attempt: failed (5xx, network, timeout), succeeded (`false`), or neither (`undefined`). */
    let failed: boolean | undefined;
    let serverDelay: number | undefined;
    /** Reported to the circuit already (a failed probe reports at once). */
    let reported = false;
    const report = () => {
      if (reported) return;
      reported = true;
      const recorded = after(store.record(origin, now(), failed, serverDelay, probe, rules), (transition) =>
        this.#tell(origin, transition),
      );
      // A shared store that failed to answer fell back on its own: nothing is left unhandled.
      if (isThenable(recorded)) recorded.then(undefined, () => {});
    };
    return {
      attempted: (outcome, asked) => {
        // Only what says the backend is failing counts, and never an answer below 500 (a 429 is a live server).
        failed =
          outcome.type === 'response'
            ? failing(outcome, options)
            : outcome.kind === 'network' ||
              outcome.kind === 'not-sent' ||
              outcome.kind === 'timeout' ||
              undefined;
        const delay = outcome.type === 'response' && outcome.status >= 500 ? asked : undefined;
        serverDelay = delay === undefined ? undefined : Math.min(delay, maxRetryAfter);
        if (probe && failed) report();
        return after(look(), (refusal) => refusal !== undefined);
      },
      // A probe's first attempt was admitted as such; any other send goes only into a closed circuit.
      gate: () => {
        if (probe && call.attempts === 0) return undefined;
        return after(look(), (refusal) => {
          if (refusal === undefined) return undefined;
          throw new Stopped('circuit-open', refusal);
        });
      },
      admitsCopy: () => {
        const refusal = look();
        if (!isThenable(refusal)) return refusal === undefined;
        refusal.then(undefined, () => {});
        return wasClosed;
      },
      ended: (reason) => {
        // An aborted call says nothing about the server; it only frees its probe slot.
        if (reason === 'aborted') failed = undefined;
        report();
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
    for (const [origin, circuit] of this.#store.entries()) {
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
        value,
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
    const span = this.#rules.window / BUCKETS;
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
      const circuit = newCircuit();
      circuits.set(origin, circuit);
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
    this.#store.replace(circuits);
  }
}

// The store types, reached through the class (`CircuitBreaker.Store`, `CircuitBreaker.MemoryStore`): the main
// entry stays short.
export declare namespace CircuitBreaker {
  export type Options<S extends CircuitStore = CircuitStore> = CircuitBreakerOptions<S>;
  export type Store = CircuitStore;
  export type MemoryStore = MemoryCircuitStore;
  /** One origin's circuit, as a store keeps it. */
  export type StoreCircuit = Circuit;
  /** The breaker's rules, passed to each store operation. */
  export type StoreRules = CircuitRules;
  /** What a store's `admit` answers. */
  export type StoreAdmission = Admission;
  /** A change of state a store's operation made. */
  export type StoreTransition = CircuitTransition;
}
