// The decide step: the features told of an attempt, the decider's verdict, the user's shouldRetry and delay asked
// where the rules ask them, and the limits that settle it.

import { type Decision, earnsCredit, ownDelay, plan, settle, stop } from '../decide/rules.js';
import { askedDelay, overridden, type Verdict, verdict } from '../decide/verdict.js';
import type { Outcome } from '../http/outcome.js';
import type { Call } from './call.js';
import { callback, callbackAnswer, causeOf, deadlineFor, storeAnswer } from './callbacks.js';
import type { DelayContext, ShouldRetryContext } from './events.js';
import { Stopped } from './roles.js';
import { isThenable } from './sleep.js';

/** The context `shouldRetry` (and, with more, `delay`) gets about one finished attempt. */
function context(call: Call, outcome: Outcome, judged: Verdict): ShouldRetryContext {
  const answered = outcome.type === 'response';
  return {
    attempt: call.attempts,
    retries: call.policy.options.retries,
    method: call.method,
    url: call.url,
    status: answered ? outcome.status : undefined,
    error: answered ? undefined : outcome.error,
    response: answered ? outcome.response : undefined,
    headers: answered ? outcome.headers : undefined,
    outcome,
    retryable: judged.retryable,
  };
}

/**
 * Decides one attempt: the features observe it, the decider judges it, the user's `shouldRetry` and `delay` are
 * asked where the rules ask them, and the decider's last limits (deadline, circuit, budget) settle it. At once,
 * unless `shouldRetry` returns a Promise: then a Promise of the decision, which rejects at once (a `Stopped`) when
 * the caller aborts meanwhile. A callback that throws or rejects ends the call (a `Stopped`, `'callback-error'`).
 * The decision is recorded on the call (its result, and the previous delay that decorrelated jitter grows from), and
 * a stop ends the call for every feature, whether the runner or a client that schedules its own waits decides it.
 */
export function decide(call: Call, outcome: Outcome, signal?: AbortSignal): Decision | Promise<Decision> {
  let made: Decision | Promise<Decision>;
  try {
    made = judge(call, outcome, signal);
  } catch (error) {
    throw ended(call, error);
  }
  if (!isThenable(made)) return recorded(call, outcome, made);
  return made.then(
    (decision) => recorded(call, outcome, decision),
    (error: unknown) => {
      throw ended(call, error);
    },
  );
}

/** Records a decision on the call; a stop ends it, with the status or error kind it stopped on. */
function recorded(call: Call, outcome: Outcome, decision: Decision): Decision {
  call.last = decision;
  if (decision.retry) call.previousDelay = decision.delay;
  else call.end(decision.reason, outcome.type === 'response' ? outcome.status : outcome.kind);
  return decision;
}

/** Ends the call that `error` stopped (a `Stopped`), as an interruption does; returns the error. */
function ended(call: Call, error: unknown): unknown {
  if (error instanceof Stopped) {
    call.last = stop(error.reason, call.asked);
    call.end(error.reason);
  }
  return error;
}

/** `decide` without the record: the features told, the verdict, the callbacks, the limits. */
function judge(call: Call, outcome: Outcome, signal: AbortSignal | undefined): Decision | Promise<Decision> {
  const { options } = call.policy;
  call.attempts++;
  const now = options.now();
  const asked = askedDelay(outcome, now);
  call.asked = asked;
  if (asked !== undefined) {
    call.told++;
    call.firstAsked ??= now;
  }
  // The caller's abort says nothing about the server: no feature learns from it, not even shouldRetry is asked.
  if (outcome.type === 'error' && outcome.kind === 'abort') return stop('aborted', undefined);
  let refused = false;
  const pending: PromiseLike<boolean | undefined>[] = [];
  for (const feature of call.features ?? []) {
    const answer = feature.attempted?.(outcome, asked);
    if (isThenable(answer)) pending.push(answer);
    else if (answer) refused = true;
  }
  // A feature whose store answers later (a shared one): the verdict waits for every feature's word.
  // One still learning at the deadline is let go: the deadline decides.
  if (pending.length > 0) {
    return storeAnswer(call, Promise.all(pending), signal, () => {}).then(
      (answers) => verdicts(call, outcome, asked, refused || answers.some(Boolean), signal, options.now()),
      (error: unknown) => {
        if (error instanceof Stopped && error.reason === 'deadline' && !signal?.aborted) {
          return verdicts(call, outcome, asked, refused, signal, options.now());
        }
        throw error;
      },
    );
  }
  return verdicts(call, outcome, asked, refused, signal, now);
}

/** The verdict on an attempt the features have observed, `shouldRetry`'s word on it, and the limits. */
function verdicts(
  call: Call,
  outcome: Outcome,
  asked: number | undefined,
  refused: boolean,
  signal: AbortSignal | undefined,
  now: number,
): Decision | Promise<Decision> {
  const { options, budget } = call.policy;
  const judged = verdict(outcome, asked, call, options);
  // What may have reached the server fixes the key every later send of a non-idempotent request must carry.
  if (!call.idempotent && judged.reason !== 'not-sent') call.reached ??= call.sentKey;
  // A retry the client forced with a request of its own: the gate judges the request that goes next.
  if (outcome.replacement !== undefined) call.replace(outcome.replacement);
  const status = outcome.type === 'response' ? outcome.status : undefined;
  if (earnsCredit(judged, status)) budget?.recordSuccess();
  const { shouldRetry } = options;
  // Asked about failures only, as every peer asks its callback: a success is no question, nor a retry the client's
  // own hook asked for.
  if (shouldRetry === undefined || judged.reason === 'success' || outcome.forced) {
    return limits(call, outcome, judged, refused, now);
  }
  const question = context(call, outcome, judged);
  const answer = callback('shouldRetry', () => shouldRetry(question), causeOf(outcome));
  if (!isThenable(answer)) return limits(call, outcome, overridden(judged, answer), refused, now);
  // An async answer: the clock has moved on by the time the limits are read. One still pending at the deadline
  // stops the call there, on this attempt's outcome, as the deadline stops a retry.
  const limit = deadlineFor(call, 'shouldRetry', signal, undefined);
  return callbackAnswer(call, 'shouldRetry', answer, signal, undefined, limit).then(
    (value) => limits(call, outcome, overridden(judged, value), refused, options.now()),
    (error: unknown) => {
      if (limit?.expired) return stop('deadline', call.asked);
      throw error;
    },
  );
}

/** The decider's limits on a verdict at `now`, with the user's own `delay` asked for a retry they allow. */
function limits(call: Call, outcome: Outcome, judged: Verdict, refused: boolean, now: number): Decision {
  const { options, budget } = call.policy;
  const status = outcome.type === 'response' ? outcome.status : undefined;
  const left = call.left(now);
  const planned = plan(judged, call.asked, status === 429, call, left, now, options);
  if (!planned.retry) return planned;
  let delay = planned.computed;
  const own = options.delay;
  // A retry the client's own hook forced waits what that hook asked, and the client waits it.
  if (outcome.forced) delay = 0;
  else if (outcome.type === 'error' && outcome.wait !== undefined) delay = outcome.wait;
  else if (own !== undefined) {
    const { retryNumber: retry, serverDelay, computed } = planned;
    const asked: DelayContext = { ...context(call, outcome, judged), retry, serverDelay, computed };
    delay = callback('delay', () => ownDelay(own(asked), planned.least), causeOf(outcome));
  }
  const decision = settle(planned, delay, refused, budget);
  if (decision.retry && planned.closes !== undefined) {
    // A wait the server asked for: counted apart from `retries`, and the next one starts after its window.
    call.serverAsked++;
    call.windowCloses = planned.closes;
  }
  return decision;
}
