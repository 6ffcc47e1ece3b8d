/**
 * The runner's part in bodies that survive a cut (`resume`): the caller's body wrapped so that a cut goes on as
 * more attempts of the same call. Loaded by the runner with `import()`, for a call with `resume` only.
 */

import { type Decision, type RetryDecision, stop } from '../decide/rules.js';
import type { Part, ReopenRequest } from '../features/resume/splicer.js';
import { partOf, resumeStream } from '../features/resume/stream.js';
import { headerGetter } from '../http/headers.js';
import type { Outcome } from '../http/outcome.js';
import type { Call } from './call.js';
import type { BackoffResult } from './events.js';
import { type Client, type Settled, Stopped } from './roles.js';
import { anySignal, isThenable } from './sleep.js';

/**
 * The runner's steps a continuation runs, handed over by the runner: this module, loaded lazily, imports none of it.
 */
export interface RunnerSteps<T> {
  /** Decides an outcome of the call's latest attempt. */
  decide(outcome: Outcome, signal: AbortSignal): Decision | Promise<Decision>;
  /** Waits a retry's delay, as after any failed attempt. */
  wait(decision: RetryDecision, outcome: Outcome, signal: AbortSignal): Promise<void> | undefined;
  /** Attempts with `headers` set until the decider stops: the last attempt's result. */
  attempts(signal: AbortSignal, headers: Readonly<Record<string, string | null>>): Promise<Settled<T>>;
}

/**
 * What the caller gets for `value` with a body that goes on across cuts (`resume`), its result read live; or
 * `undefined` when its body is not resumed.
 */
export async function resumeBody<T>(
  call: Call,
  client: Client<T>,
  value: T,
  steps: RunnerSteps<T>,
): Promise<T | undefined> {
  const body = client.body?.(value);
  const options = call.policy.options.resume;
  if (body === undefined || options === undefined || body.stream === null) return undefined;
  const open = (response: T): Part => {
    const next = client.body?.(response);
    if (next !== undefined) return partOf(next.status, next.header, next.stream);
    const outcome = client.outcome({ ok: true, value: response });
    const status = outcome.type === 'response' ? outcome.status : 0;
    return partOf(status, headerGetter(outcome.type === 'response' ? outcome.headers : undefined), null);
  };
  const reopen = continuation(call, client, steps);
  // A limit that stopped the continuation (retries, the budget, the deadline...) is the reason already; else the
  // call that had succeeded failed after all, as its body could not go on.
  const failed = () => {
    if (call.last === undefined || call.last.reason === 'success') {
      call.last = stop('not-resumable', call.last?.serverDelay);
    }
  };
  const resumed = await resumeStream(
    body,
    { method: call.method, reopen, options, signal: client.signal(), failed },
    open,
  );
  return resumed === undefined ? undefined : client.finish({ ok: true, value: resumed }, liveResult(call));
}

/** What Node's `util.inspect` (and so `console.log`) calls to show an object: a registered symbol, no import. */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * The result of a call whose body may go on after it ended: read afresh at every access, so that the attempts and
 * waits of each continuation show on the response the caller already holds.
 */
function liveResult(call: Call): BackoffResult {
  const read = () => ({ ...call.result(), resumes: call.resumes });
  const live = {} as Record<string, unknown>;
  for (const key of Object.keys(read())) {
    Object.defineProperty(live, key, { enumerable: true, get: () => read()[key as keyof BackoffResult] });
  }
  // Node's console.log and util.inspect would show each getter as `[Getter]`: they get the values as they are now.
  Object.defineProperty(live, INSPECT, { value: read });
  return Object.freeze(live) as unknown as BackoffResult;
}

/**
 * The continuation of a call whose body was cut: the cut decided as the attempt's network failure (the budget,
 * `retries`, `deadline`, a circuit that opened meanwhile), the wait (the stream's own `retry:` when it asked), then attempts with the
 * continuation's headers until the decider stops. Resolves with the last answer (the splicer judges it); rejects
 * with the cut when no retry may go, or with the caller's abort.
 */
function continuation<T>(
  call: Call,
  client: Client<T>,
  steps: RunnerSteps<T>,
): (request: ReopenRequest) => Promise<T> {
  /** The headers a continuation set, and the request's own values of them, restored on the next one. */
  const own = new Map<string, string | null>();
  return async ({ headers, cause, wait: asked, signal: cancelled }) => {
    const caller = client.signal();
    const { signal, release } = anySignal(caller === undefined ? [cancelled] : [caller, cancelled]);
    const set: Record<string, string | null> = {};
    for (const [name, value] of own) set[name] = value;
    for (const name of Object.keys(headers)) {
      if (!own.has(name)) own.set(name, headerGetter(call.headers)(name) ?? null);
      set[name] = headers[name] as string;
    }
    call.reopen();
    try {
      // The attempt that answered failed after all, as a network failure does: decided again, not counted again.
      call.attempts--;
      // An event stream's own `retry:` is its wait, as EventSource waits it; within the deadline.
      const outcome: Outcome = {
        type: 'error',
        kind: 'network',
        error: cause,
        redirected: false,
        wait: asked,
      };
      const made = steps.decide(outcome, signal);
      const decision = isThenable(made) ? await made : made;
      if (!decision.retry) throw cause;
      await steps.wait(decision, outcome, signal);
      call.resumes++;
      const settled = await steps.attempts(signal, set);
      if (settled.ok) return settled.value;
      // An answer the client rejects (axios: a 416, a final 503) is still the splicer's to judge.
      const answered = client.outcome(settled);
      if (answered.type === 'response' && answered.response !== undefined) return answered.response as T;
      throw settled.error;
    } catch (error) {
      if (!(error instanceof Stopped)) throw error;
      call.last = stop(error.reason, call.asked);
      call.end(error.reason);
      throw error.error;
    } finally {
      release();
    }
  };
}
