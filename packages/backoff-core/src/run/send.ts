// The send step: one attempt's copy shaped by beforeAttempt, sent within attemptTimeout, watched by the features
// that watch sends; hedged when the policy hedges.

import { headerGetter } from '../http/headers.js';
import type { Outcome } from '../http/outcome.js';
import { briefly } from '../options/check.js';
import { describeValue } from '../options/show.js';
import type { Call } from './call.js';
import { callback, callbackAnswer, deadlineFor, lateStop } from './callbacks.js';
import type { AttemptContext, AttemptHeaders } from './events.js';
import type { Attempt, Client, SendWatch, Settled } from './roles.js';
import { anySignal } from './sleep.js';

// RFC 9110 token characters: what a header name may be made of.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

// Bundlers replace it (see options/check.ts).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/** A settled result, never a rejection. */
export function settled<T>(sending: () => Promise<T>): Promise<Settled<T>> {
  let sent: Promise<T>;
  try {
    sent = sending();
  } catch (error) {
    sent = Promise.reject(error);
  }
  return sent.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** Results whose attempt was cut by `attemptTimeout`: each is a `'timeout'` failure, whatever the client says. */
const timedOut = new WeakSet<Settled<unknown>>();

/** A copy's outcome in the core's terms. */
export function outcomeOf<T>(client: Client<T>, result: Settled<T>): Outcome {
  return timedOut.has(result)
    ? { type: 'error', kind: 'timeout', error: (result as { error: unknown }).error }
    : client.outcome(result);
}

/** One send's headers as `beforeAttempt` and a trace change them: through the client's attempt, that send's alone. */
function editable(attempt: Attempt): AttemptHeaders {
  const change = (name: string, value: string | null) => {
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new TypeError(
        process.env.NODE_ENV !== 'production'
          ? `Expected a header name, got ${describeValue(name)}.`
          : briefly('bad-header', 'header name', name),
      );
    }
    if (value !== null && (typeof value !== 'string' || /[\r\n\0]/.test(value))) {
      throw new TypeError(
        process.env.NODE_ENV !== 'production'
          ? `Expected \`${name}\` to be set to a string without line breaks, got ${describeValue(value)}.`
          : briefly('bad-header', name, value),
      );
    }
    if (attempt.header === undefined)
      throw new TypeError('This client cannot change the headers of an attempt.');
    attempt.header(name, value);
  };
  return {
    // Read afresh every time: a set or a delete shows at once.
    get: (name) => headerGetter(attempt.headers)(name) ?? null,
    set: (name, value) => change(name, value),
    delete: (name) => change(name, null),
  };
}

/**
 * Copy `copy` of the attempt about to go, shaped by `beforeAttempt` (awaited under the copy's signal; its time
 * counts against the deadline, and its `signal` aborts at the deadline). Throws a `Stopped` when the call must
 * end: the hook failed, or the deadline passed while it ran.
 */
export async function shaped(call: Call, attempt: Attempt, copy: number, signal: AbortSignal | undefined) {
  const { beforeAttempt } = call.policy.options;
  if (beforeAttempt === undefined) return;
  const cause = call.previous?.error;
  const limit = deadlineFor(call, 'beforeAttempt', signal, cause);
  const hookSignal = limit?.signal ?? signal;
  const context: AttemptContext = {
    attempt: call.attempts + 1,
    retry: call.attempts,
    copy,
    method: call.method,
    url: call.url,
    previous: call.previous,
    headers: editable(attempt),
    // One that never aborts when the caller gave none and there is no deadline.
    signal: hookSignal ?? new AbortController().signal,
  };
  let answer: unknown;
  try {
    answer = callback('beforeAttempt', () => beforeAttempt(context), cause);
  } catch (error) {
    limit?.release();
    throw error;
  }
  await callbackAnswer(call, 'beforeAttempt', answer, signal, cause, limit);
  if (call.left() <= 0) throw lateStop('beforeAttempt', cause);
}

/**
 * Sends one copy, its headers final: cut at `attemptTimeout` (never past the deadline), watched by the features
 * that watch sends (a trace adds its context to the headers and runs the send inside its span). `signal` is the
 * copy's own (a hedge's); without one the client's request keeps the signal it has.
 */
export function transmit<T>(
  call: Call,
  client: Client<T>,
  attempt: Attempt,
  copy: number,
  signal: AbortSignal | undefined,
): Promise<Settled<T>> {
  let watches: SendWatch[] | undefined;
  for (const feature of call.features ?? []) {
    const watch = feature.sending?.(
      { attempt: call.attempts + 1, copy, headers: editable(attempt), transport: client.transport },
      call,
    );
    if (watch === undefined) continue;
    watches ??= [];
    watches.push(watch);
  }
  // Nothing watches or cuts this send: it goes as the client sends it.
  if (watches === undefined && call.policy.options.attemptTimeout === undefined) {
    return settled(() => client.send(attempt, signal));
  }
  return watched(call, client, attempt, signal, watches);
}

/** A send cut at `attemptTimeout` or watched by features (see `transmit`). */
async function watched<T>(
  call: Call,
  client: Client<T>,
  attempt: Attempt,
  signal: AbortSignal | undefined,
  watches: SendWatch[] | undefined,
): Promise<Settled<T>> {
  const { attemptTimeout, timers } = call.policy.options;
  let timer: unknown;
  let cut: DOMException | undefined;
  let own = signal;
  let release = () => {};
  // The cut joins the copy's signal, or the caller's that the client's request hears.
  const base = signal ?? client.signal();
  if (attemptTimeout !== undefined) {
    const controller = new AbortController();
    const limit = Math.max(0, Math.min(attemptTimeout, call.left()));
    timer = timers.setTimeout(() => {
      cut = new DOMException(
        `The attempt was not answered within attemptTimeout (${attemptTimeout} ms).`,
        'TimeoutError',
      );
      controller.abort(cut);
    }, limit);
    ({ signal: own, release } = base
      ? anySignal([base, controller.signal])
      : { signal: controller.signal, release });
  }
  let go = () => settled(() => client.send(attempt, own));
  for (const watch of watches ?? []) {
    const inner = go;
    go = () => watch.run(inner);
  }
  let result: Settled<T>;
  try {
    result = await go();
  } finally {
    // Whatever a watch does, the attempt's timer and its joined signal end with it.
    if (timer !== undefined) timers.clearTimeout(timer);
    release();
  }
  // Cut by its own timeout, not by the caller: a timeout failure.
  if (cut !== undefined && !result.ok && !base?.aborted) timedOut.add(result);
  if (watches !== undefined) {
    const outcome = outcomeOf(client, result);
    for (const watch of watches) watch.done(outcome);
  }
  return result;
}

/**
 * One attempt, hedged when the policy hedges and the request may be sent twice; else one copy. Its first copy was
 * shaped already (`attempt`); each hedge's copy is shaped apart, and goes only with the first one's key.
 */
export function send<T>(
  call: Call,
  client: Client<T>,
  attempt: Attempt,
  signal: AbortSignal | undefined,
): Promise<Settled<T>> {
  const { strategy } = call.policy;
  call.hedgeWon = false;
  if (strategy === undefined || !call.replayable || (!call.idempotent && !call.keyed)) {
    // The client's request already hears the caller: a signal of ours goes only with an attemptTimeout.
    return transmit(call, client, attempt, 1, undefined);
  }
  return strategy.send(call, client, attempt, signal);
}
