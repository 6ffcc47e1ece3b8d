import { briefly, fail } from '../options/check.js';
import type { CircuitBreakerLike, MetricsLike } from '../options/options.js';
import { describeValue } from '../options/show.js';
import type { CallView, Feature, FeatureCall, FeatureSource } from '../run/roles.js';
import { METHODS, serverAttributes } from './semconv.js';

// Bundlers replace it (see options/check.ts).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/** The parts of an OpenTelemetry `Meter` (`@opentelemetry/api`) that `BackoffMetrics` uses: typed by shape. */
export interface MeterLike {
  createHistogram(
    name: string,
    options?: InstrumentOptions,
  ): { record(value: number, attributes?: Attributes): void };
  createCounter(
    name: string,
    options?: InstrumentOptions,
  ): { add(value: number, attributes?: Attributes): void };
  createObservableGauge(
    name: string,
    options?: InstrumentOptions,
  ): {
    addCallback(callback: (result: { observe(value: number, attributes?: Attributes): void }) => void): void;
  };
}

type Attributes = Record<string, string | number>;

interface InstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** Options of `BackoffMetrics`. */
export interface BackoffMetricsOptions {
  /**
   * An OpenTelemetry `Meter` to record into as well (`metrics.getMeter('my-app')`): the histograms
   * `backoff.call.attempts` and `backoff.call.retry_delay` (s, per call, as gRPC's A96), the counter
   * `backoff.call.stops` (by `backoff.stop_reason` and `error.type`), the counter `backoff.call.hedges` (by
   * `backoff.hedge.won`) and the gauge `backoff.circuit.state`, with
   * the HTTP client convention's `http.request.method`, `url.scheme`, `server.address` and `server.port`. No
   * OpenTelemetry package is needed otherwise (the README lists every instrument and attribute).
   * @default undefined
   */
  meter?: MeterLike | undefined;
}

/** What `BackoffMetrics.snapshot()` returns. Calls are counted when they end. */
export interface BackoffMetricsSnapshot {
  /** Calls through the client (logical requests), those that sent nothing (refused, aborted before) included. */
  readonly calls: number;
  /** Requests actually sent: first attempts and retries. */
  readonly attempts: number;
  /** Retries sent (attempts after the first of their call). */
  readonly retries: number;
  /** Calls by why they stopped (`'success'`, `'retries-exhausted'`, `'circuit-open'`, ...). */
  readonly stops: Readonly<Record<string, number>>;
  /**
   * `attemptsPerCall[n]` calls made `n` attempts (`[0]`: nothing sent: refused by an open circuit, or aborted
   * before the first attempt).
   */
  readonly attemptsPerCall: readonly number[];
  /** All backoff waits added up, in ms. */
  readonly totalWait: number;
  /** The longest total wait of one call, in ms. */
  readonly largestWait: number;
  /** Hedges sent: copies of an attempt beyond its first (`hedge`), counted apart from attempts. */
  readonly hedges: number;
  /** Calls whose answer came from a hedge rather than from the attempt's first copy. */
  readonly hedgeWins: number;
  /** Retries the retry budget refused (the calls that stopped with `'budget-exhausted'`). */
  readonly budgetRefusals: number;
  /** Calls failed at once by an open circuit, nothing sent. */
  readonly circuitRefusals: number;
  /** Sends the `pacer` held (a call held before two of its attempts counts twice). */
  readonly holds: number;
  /** All pacer holds added up, in ms (not part of `totalWait`). */
  readonly heldTime: number;
  /**
   * Continuations of bodies cut after the headers (`resume`): their attempts count in `attempts` and `retries`,
   * their waits in `totalWait`, and no new call.
   */
  readonly resumes: number;
  /** State changes of the observed circuit breakers, by the state entered. */
  readonly circuitChanges: { readonly open: number; readonly halfOpen: number; readonly closed: number };
}

const STATES = ['closed', 'open', 'half-open'] as const;

/** Bucket bounds of the attempts histogram: one bucket per attempt count up to the most common `retries`. */
const ATTEMPT_BOUNDS = [1, 2, 3, 4, 5, 6, 8, 11];

/**
 * Bucket bounds of the retry delay histogram, in seconds (the SDK's default bounds are made for milliseconds, where
 * every real wait would fall in one or two buckets): 0 alone (no retry), jittered waits below a second, the
 * backoff's seconds, and Retry-After waits up to minutes.
 */
const DELAY_BOUNDS = [0, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];

/** A source that is a circuit breaker (its state changes are counted): by shape, as another copy's would be. */
const isBreaker = (source: FeatureSource): source is CircuitBreakerLike =>
  typeof (source as Partial<CircuitBreakerLike>).listen === 'function' &&
  typeof (source as Partial<CircuitBreakerLike>).toJSON === 'function';

/**
 * The `error.type` of a call that failed, as the HTTP convention has it: the final status as a string when the
 * caller got an answer of 400 or above; else the kind of the error (`'network'`, `'timeout'`, `'not-sent'`,
 * `'tls'`, `'unknown'`, `'aborted'`), or the stop reason when the call stopped on no attempt (`'circuit-open'`,
 * `'aborted'`). `undefined` for a call that did not fail. All of them are few: no message, no URL.
 */
function errorType(reason: string, last: number | string | undefined): string | undefined {
  if (typeof last === 'number') return last >= 400 ? String(last) : undefined;
  return last === 'abort' ? 'aborted' : (last ?? reason);
}

/**
 * Counters of what the retry layer does, for one client or shared between clients (pass the same instance as
 * `metrics`). Counting allocates nothing per request: fixed counters, an array for the histogram, a map of stop
 * reasons. Optionally records into an OpenTelemetry `Meter` too (then each call's attributes are built when it
 * ends: its method, its server, how it ended).
 */
export class BackoffMetrics implements MetricsLike {
  #calls = 0;
  #attempts = 0;
  #circuitRefusals = 0;
  #totalWait = 0;
  #largestWait = 0;
  #hedges = 0;
  #hedgeWins = 0;
  #holds = 0;
  #heldTime = 0;
  #resumes = 0;
  readonly #perCall: number[] = [];
  readonly #stops = new Map<string, number>();
  readonly #changes = { open: 0, halfOpen: 0, closed: 0 };
  readonly #breakers = new Set<CircuitBreakerLike>();
  readonly #otel:
    | {
        readonly attempts: ReturnType<MeterLike['createHistogram']>;
        readonly delay: ReturnType<MeterLike['createHistogram']>;
        readonly stops: ReturnType<MeterLike['createCounter']>;
        readonly hedges: ReturnType<MeterLike['createCounter']>;
        readonly hold: ReturnType<MeterLike['createHistogram']>;
      }
    | undefined;

  constructor(options: BackoffMetricsOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new TypeError(
        process.env.NODE_ENV !== 'production'
          ? `Expected the BackoffMetrics options to be an object, got ${describeValue(options)}.`
          : briefly('options-not-object', 'BackoffMetrics options', options),
      );
    }
    const { meter } = options;
    if (meter === undefined) return;
    if (
      typeof meter !== 'object' ||
      meter === null ||
      typeof meter.createHistogram !== 'function' ||
      typeof meter.createCounter !== 'function' ||
      typeof meter.createObservableGauge !== 'function'
    ) {
      fail(
        'meter',
        meter,
        `an OpenTelemetry Meter (\`metrics.getMeter(name)\`), got ${describeValue(meter)}`,
      );
    }
    this.#otel = {
      attempts: meter.createHistogram('backoff.call.attempts', {
        description:
          'Attempts sent per call, the first included (0: nothing sent, refused by an open circuit or aborted before).',
        unit: '{attempt}',
        advice: { explicitBucketBoundaries: ATTEMPT_BOUNDS },
      }),
      delay: meter.createHistogram('backoff.call.retry_delay', {
        description: 'Total time a call spent waiting between its attempts (0 without retries).',
        unit: 's',
        advice: { explicitBucketBoundaries: DELAY_BOUNDS },
      }),
      stops: meter.createCounter('backoff.call.stops', {
        description: 'Calls ended, by the reason they stopped.',
        unit: '{call}',
      }),
      hedges: meter.createCounter('backoff.call.hedges', {
        description:
          'Hedges sent (copies of an attempt beyond its first), by whether the call was won by one.',
        unit: '{request}',
      }),
      hold: meter.createHistogram('backoff.pacer.hold', {
        description:
          'Each hold of a send by the pacer, by its reason (its count is the holds, its sum the time held).',
        unit: 's',
        advice: { explicitBucketBoundaries: DELAY_BOUNDS },
      }),
    };
    meter
      .createObservableGauge('backoff.circuit.state', {
        description: 'The state of each origin circuit: 1 for its current state, 0 for the others.',
        unit: '{circuit}',
      })
      .addCallback((result) => {
        for (const breaker of this.#breakers) {
          for (const [origin, circuit] of Object.entries(breaker.toJSON().origins)) {
            // An origin with no server to name (a data: URL's 'null') is left out; it never costs the others.
            const server = serverAttributes(origin);
            if (server === undefined) continue;
            for (const state of STATES) {
              result.observe(state === circuit.state ? 1 : 0, { 'backoff.circuit.state': state, ...server });
            }
          }
        }
      });
  }

  /**
   * The metrics' part in a policy's calls: counts each call when it ends, and each hold; counts the state changes of
   * the policy's circuit breaker. Called by `createBackoff`.
   */
  feature(_options: unknown, sources: readonly FeatureSource[]): Feature {
    for (const source of sources) if (isBreaker(source)) this.#observe(source);
    return this.#feature;
  }

  // One part for every call: counting a call allocates nothing (without a meter).
  readonly #part: FeatureCall = {
    ended: (reason, last, call) => this.#count(call, reason, last),
    observe: (event, call) => {
      if (event.type === 'resume') {
        if (event.attempts > 0) this.#resumes++;
        this.#attempts += event.attempts;
        this.#totalWait += event.delay;
        return;
      }
      if (event.type !== 'hold') return;
      this.#holds++;
      this.#heldTime += event.delay;
      this.#otel?.hold.record(event.delay / 1000, {
        'http.request.method': METHODS.has(call.method) ? call.method : '_OTHER',
        ...serverAttributes(call.url),
        'backoff.hold_reason': event.reason,
      });
    },
  };

  readonly #feature: Feature = { start: () => this.#part };

  #count(state: CallView, reason: string, last: number | string | undefined): void {
    const { attempts, totalDelay: wait } = state;
    this.#calls++;
    this.#attempts += attempts;
    this.#perCall[attempts] = (this.#perCall[attempts] ?? 0) + 1;
    // Not every call with nothing sent was refused: one aborted before it began sent nothing too.
    if (attempts === 0 && reason === 'circuit-open') this.#circuitRefusals++;
    this.#stops.set(reason, (this.#stops.get(reason) ?? 0) + 1);
    this.#totalWait += wait;
    if (wait > this.#largestWait) this.#largestWait = wait;
    const { hedges, hedgeWon } = state;
    this.#hedges += hedges;
    if (hedgeWon) this.#hedgeWins++;
    const otel = this.#otel;
    if (otel === undefined) return;
    // The HTTP client convention's attributes: which request (method, server) on every instrument; how it ended
    // (stop reason, error type) only on the counter, so that the histograms keep few series.
    const request: Attributes = {
      'http.request.method': METHODS.has(state.method) ? state.method : '_OTHER',
      ...serverAttributes(state.url),
    };
    otel.attempts.record(attempts, request);
    otel.delay.record(wait / 1000, request);
    // A new object: an SDK may keep the one a series was recorded with.
    const ended: Attributes = { ...request, 'backoff.stop_reason': reason };
    const type = errorType(reason, last);
    if (type !== undefined) ended['error.type'] = type;
    otel.stops.add(1, ended);
    if (hedges > 0) otel.hedges.add(hedges, { ...request, 'backoff.hedge.won': String(hedgeWon) });
  }

  /** Counts `breaker`'s state changes from now on, and shows its circuits in the gauge. */
  #observe(breaker: CircuitBreakerLike): void {
    if (this.#breakers.has(breaker)) return;
    this.#breakers.add(breaker);
    breaker.listen(this.#onChange);
  }

  readonly #onChange = (change: { readonly to: string }): void => {
    if (change.to === 'open') this.#changes.open++;
    else if (change.to === 'half-open') this.#changes.halfOpen++;
    else this.#changes.closed++;
  };

  snapshot(): BackoffMetricsSnapshot {
    const perCall = Array.from(this.#perCall, (count) => count ?? 0);
    return {
      calls: this.#calls,
      attempts: this.#attempts,
      retries: this.#attempts - (this.#calls - (perCall[0] ?? 0)),
      stops: Object.fromEntries(this.#stops),
      attemptsPerCall: perCall,
      totalWait: this.#totalWait,
      largestWait: this.#largestWait,
      hedges: this.#hedges,
      hedgeWins: this.#hedgeWins,
      budgetRefusals: this.#stops.get('budget-exhausted') ?? 0,
      circuitRefusals: this.#circuitRefusals,
      holds: this.#holds,
      heldTime: this.#heldTime,
      resumes: this.#resumes,
      circuitChanges: { ...this.#changes },
    };
  }
}
