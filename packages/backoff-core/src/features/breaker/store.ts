import { range } from '../../options/check.js';
import { makeRoom } from '../bounded.js';
import {
  ADMITTED,
  type Admission,
  admit,
  type Circuit,
  type CircuitRules,
  type CircuitTransition,
  forgettable,
  newCircuit,
  record,
} from './rules.js';

export type { Admission, Circuit, CircuitRules, CircuitTransition } from './rules.js';

/**
 * Where a `CircuitBreaker` keeps each origin's circuit, so that processes or tabs can share one view of a
 * backend. The breaker never changes a circuit itself: it asks the store for `admit` or `record`, and the store
 * applies the breaker's pure rules (`admit`, `record` of circuit-rules, with the breaker's `rules`) to the
 * origin's circuit as ONE atomic step: read, rule, write, with no other operation on the same origin in between.
 * In memory that is a plain function call; across processes it is one round trip that runs the rule where the
 * state is (one Redis script).
 *
 * The contract every store keeps (the shared contract suite checks it):
 * - **Time.** `now` is the caller's clock, in ms. A store shared by several processes needs ONE time source: it
 *   may use its own in place of every `now` it is given, for every operation alike.
 * - **Admit** lets a call go or refuses it, atomically: a half-open circuit never lets more than
 *   `halfOpenProbes` probes through at once, however many callers ask together.
 * - **Record** applies a finished call; **read** changes nothing (a restored circuit is clamped by the next
 *   admit or record, never by a read).
 * - **Bounded.** A store keeps a bounded number of origins: closed circuits with nothing counted go first; an
 *   open or half-open circuit goes only when every circuit is one (a Redis store: keys that expire).
 * - **Cheap when closed.** Admitting a call to a closed circuit, or to an origin with no circuit, allocates
 *   nothing.
 *
 * - **Sync or not.** `admit`, `record` and `read` may answer at once (memory) or with a Promise (a shared store:
 *   one round trip), within a bounded time (a shared store falls back to local breaking when its server is slow or
 *   gone). `entries` and `replace` (snapshots) answer at once: a shared store keeps no snapshot of its own.
 */
export interface CircuitStore {
  /** Asks to send a call to `origin` at `now`. */
  admit(origin: string, now: number, rules: CircuitRules): Admission | PromiseLike<Admission>;
  /** Records a finished call to `origin` at `now` (see `record` of the rules); answers the transition it made. */
  record(
    origin: string,
    now: number,
    failed: boolean | undefined,
    serverDelay: number | undefined,
    probe: boolean,
    rules: CircuitRules,
  ): CircuitTransition | undefined | PromiseLike<CircuitTransition | undefined>;
  /**
   * `origin`'s circuit as it is (none: closed, nothing counted), at `now` (a shared store reads its own clock and
   * answers the circuit on the caller's). Must not be changed by the caller.
   */
  read(
    origin: string,
    now: number,
  ): Readonly<Circuit> | undefined | PromiseLike<Readonly<Circuit> | undefined>;
  /** Every circuit kept, for a snapshot (`toJSON`). */
  entries(): Iterable<readonly [string, Readonly<Circuit>]>;
  /** Replaces every circuit with `circuits` (a restored snapshot). */
  replace(circuits: ReadonlyMap<string, Circuit>): void;
}

/** How many origins a memory store keeps at most by default. */
const ORIGINS = 1000;

/**
 * The default `CircuitStore`: every circuit in this process's memory, in a Map. At most `maxOrigins` origins
 * (1,000 by default): closed circuits with nothing counted are let go first, then the oldest closed ones; an
 * open or half-open circuit goes only when every circuit is one.
 */
export class MemoryCircuitStore implements CircuitStore {
  readonly #circuits = new Map<string, Circuit>();
  readonly #max: number;

  constructor(options: { maxOrigins?: number | undefined } = {}) {
    this.#max = range(1e9, 1, 'an integer')(options.maxOrigins ?? ORIGINS, 'maxOrigins') as number;
  }

  /** How many origins are kept. */
  get size(): number {
    return this.#circuits.size;
  }

  admit(origin: string, now: number, rules: CircuitRules): Admission {
    const circuit = this.#circuits.get(origin);
    return circuit === undefined ? ADMITTED : admit(circuit, now, rules);
  }

  record(
    origin: string,
    now: number,
    failed: boolean | undefined,
    serverDelay: number | undefined,
    probe: boolean,
    rules: CircuitRules,
  ): CircuitTransition | undefined {
    let circuit = this.#circuits.get(origin);
    if (circuit === undefined) {
      // Nothing to count: neither a failure nor a success, or a success the ratio rule does not count.
      if (failed === undefined || (!failed && rules.failureRatio === false)) return undefined;
      makeRoom(
        this.#circuits,
        this.#max,
        (kept) => forgettable(kept, now, rules),
        (kept) => kept.state !== 'closed',
      );
      circuit = newCircuit();
      this.#circuits.set(origin, circuit);
    }
    return record(circuit, now, failed, serverDelay, probe, rules);
  }

  read(origin: string, _now?: number): Readonly<Circuit> | undefined {
    return this.#circuits.get(origin);
  }

  entries(): Iterable<readonly [string, Readonly<Circuit>]> {
    return this.#circuits.entries();
  }

  replace(circuits: ReadonlyMap<string, Circuit>): void {
    this.#circuits.clear();
    for (const [origin, circuit] of circuits) this.#circuits.set(origin, circuit);
  }
}
