/** The state of one origin's circuit. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * The ratio rule counts in this many buckets over the window: a sliding window with no per-call allocation
 * (Polly samples the same way).
 */
export const BUCKETS = 10;

/** A breaker's rules, as its options set them: what the transitions below apply. */
export interface CircuitRules {
  readonly failureRatio: number | false;
  readonly minimumCalls: number;
  readonly window: number;
  readonly consecutiveFailures: number | false;
  readonly breakDuration: number;
  readonly maxBreakDuration: number;
  readonly halfOpenProbes: number;
}

/**
 * One origin's circuit: the pure state the rules below read and write, and that a store keeps. Times are ms on
 * the store's clock (the `now` its callers pass).
 */
export interface Circuit {
  state: CircuitState;
  /** While open: when the next probe may go. While half-open: when its probes were let go. */
  openUntil: number;
  /** Failed probes since the circuit last closed, the first opening included. */
  opens: number;
  consecutive: number;
  probes: number;
  successes: number;
  /** Per bucket: its start time, calls, failures. */
  readonly starts: number[];
  readonly calls: number[];
  readonly failures: number[];
  /**
   * Restored from a snapshot and not admitted or recorded since: its `openUntil` is clamped by the first of
   * those, on the caller's clock (a snapshot's may be another's).
   */
  restored: boolean;
}

/** A change of state, to tell the breaker's listeners. */
export interface CircuitTransition {
  readonly from: CircuitState;
  readonly to: CircuitState;
  readonly at: number;
  /** While open: when the next probe may go. */
  readonly openUntil: number | undefined;
}

/**
 * What `admit` answers: the call goes (as a probe when the circuit is not closed), or it is refused with the ms
 * until the next probe may go. `change` is the transition admitting made (open to half-open), if any.
 */
export interface Admission {
  readonly admitted: boolean;
  readonly probe: boolean;
  readonly nextProbeIn: number;
  readonly change: CircuitTransition | undefined;
}

/** The answer for a closed circuit and for a probe that changed nothing: shared, so admitting allocates nothing. */
export const ADMITTED: Admission = Object.freeze({
  admitted: true,
  probe: false,
  nextProbeIn: 0,
  change: undefined,
});
const PROBE: Admission = Object.freeze({ admitted: true, probe: true, nextProbeIn: 0, change: undefined });
const NO_SLOT: Admission = Object.freeze({
  admitted: false,
  probe: false,
  nextProbeIn: 0,
  change: undefined,
});

/** A new closed circuit with nothing counted. */
export function newCircuit(): Circuit {
  const zeros = () => Array.from({ length: BUCKETS }, () => 0);
  return {
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
}

/** The break after the `opens`-th opening: `breakDuration`, doubled by each failed probe, up to the cap. */
export function breakAfter(opens: number, rules: CircuitRules): number {
  return Math.min(rules.maxBreakDuration, rules.breakDuration * 2 ** (Math.max(1, opens) - 1));
}

/** The state `circuit` reads as at `now`: an open circuit whose break is over is half-open. Reads only. */
export function stateAt(circuit: Circuit | undefined, now: number): CircuitState {
  if (circuit === undefined) return 'closed';
  return circuit.state === 'open' && now >= circuit.openUntil ? 'half-open' : circuit.state;
}

/** Whether `circuit` may be forgotten at `now`: closed, with nothing counted in its window. */
export function forgettable(circuit: Circuit, now: number, rules: CircuitRules): boolean {
  if (circuit.state !== 'closed' || circuit.consecutive > 0) return false;
  for (let i = 0; i < BUCKETS; i++) {
    if ((circuit.calls[i] as number) > 0 && now - (circuit.starts[i] as number) < rules.window) return false;
  }
  return true;
}

/**
 * A restored circuit, first touched at `now`: its saved `openUntil` (another clock, a bad save) may be far
 * ahead, and would hold it open with no probe as long; it is never later than now plus its break.
 */
function settle(circuit: Circuit, now: number, rules: CircuitRules): void {
  if (!circuit.restored) return;
  circuit.restored = false;
  circuit.openUntil = Math.min(circuit.openUntil, now + breakAfter(circuit.opens, rules));
}

function move(circuit: Circuit, to: CircuitState, now: number): CircuitTransition {
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
  return { from, to, at: now, openUntil: to === 'open' ? circuit.openUntil : undefined };
}

function open(circuit: Circuit, now: number, serverDelay: number | undefined, rules: CircuitRules) {
  circuit.opens++;
  // The server's Retry-After on the tripping answer is the earliest time to ask it again.
  circuit.openUntil = now + Math.max(breakAfter(circuit.opens, rules), serverDelay ?? 0);
  return move(circuit, 'open', now);
}

/**
 * The admission rule, pure: a call to `circuit` at `now`. Closed, it goes. Open, it is refused until the break
 * is over; then the circuit is half-open and lets `halfOpenProbes` calls through as probes. A probe that never
 * reports (its caller vanished) frees its slot after one maximal break, so a circuit cannot stay stuck half-open.
 */
export function admit(circuit: Circuit, now: number, rules: CircuitRules): Admission {
  settle(circuit, now, rules);
  if (circuit.state === 'closed') return ADMITTED;
  let change: CircuitTransition | undefined;
  if (circuit.state === 'open') {
    if (now < circuit.openUntil) {
      return { admitted: false, probe: false, nextProbeIn: circuit.openUntil - now, change: undefined };
    }
    circuit.openUntil = now;
    change = move(circuit, 'half-open', now);
  }
  if (circuit.probes >= rules.halfOpenProbes) {
    if (now - circuit.openUntil < rules.maxBreakDuration) return NO_SLOT;
    circuit.probes = 0;
    circuit.openUntil = now;
  }
  circuit.probes++;
  return change === undefined ? PROBE : { admitted: true, probe: true, nextProbeIn: 0, change };
}

/**
 * The recording rule, pure: a finished call to `circuit` at `now`, `failed` (a 5xx, network failure or timeout
 * after its retries), `false` for a success, `undefined` for neither (an abort: it only frees a probe slot).
 * `serverDelay` is the answer's Retry-After in ms; `probe` says whether the call was admitted as one: only probes
 * decide a half-open circuit. Answers the transition it made, if any.
 */
export function record(
  circuit: Circuit,
  now: number,
  failed: boolean | undefined,
  serverDelay: number | undefined,
  probe: boolean,
  rules: CircuitRules,
): CircuitTransition | undefined {
  settle(circuit, now, rules);
  if (circuit.state === 'half-open') {
    if (!probe) return undefined;
    if (failed === undefined) circuit.probes = Math.max(0, circuit.probes - 1);
    else if (failed) return open(circuit, now, serverDelay, rules);
    else if (++circuit.successes >= rules.halfOpenProbes) return move(circuit, 'closed', now);
    return undefined;
  }
  // While open, late answers of calls sent before it opened change nothing.
  if (circuit.state !== 'closed' || failed === undefined) return undefined;
  const span = rules.window / BUCKETS;
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
    return undefined;
  }
  (circuit.failures[index] as number)++;
  circuit.consecutive++;
  if (rules.consecutiveFailures !== false && circuit.consecutive >= rules.consecutiveFailures) {
    return open(circuit, now, serverDelay, rules);
  }
  if (rules.failureRatio === false) return undefined;
  let calls = 0;
  let failures = 0;
  for (let i = 0; i < BUCKETS; i++) {
    if (now - (circuit.starts[i] as number) < rules.window) {
      calls += circuit.calls[i] as number;
      failures += circuit.failures[i] as number;
    }
  }
  if (calls >= rules.minimumCalls && failures >= rules.failureRatio * calls) {
    return open(circuit, now, serverDelay, rules);
  }
  return undefined;
}
