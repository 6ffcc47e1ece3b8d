// The user's callbacks as the runner calls them: what they throw ends the call, what they return is awaited under
// the caller's abort and the deadline; and the features told what happened.

import type { Outcome } from '../http/outcome.js';
import { describeValue } from '../options/show.js';
import type { Call } from './call.js';
import { type CallEvent, Stopped } from './roles.js';
import { type Expiring, expiring, isThenable, untilAborted } from './sleep.js';

/**
 * Calls one of the user's callbacks: what it throws, or a Promise it returns rejects with, ends the call with the
 * reason `'callback-error'`. The caller gets that error; a non-Error (`undefined`, a string) is wrapped in a
 * TypeError that names the callback, with `cause` the attempt's own error or response.
 */
export function callback<R>(name: string, fn: () => R, cause?: unknown): R {
  const failed = (error: unknown): never => {
    const thrown =
      error instanceof Error
        ? error
        : new TypeError(`\`${name}\` threw or rejected with ${describeValue(error)}, not an Error.`, {
            cause,
          });
    throw new Stopped('callback-error', thrown);
  };
  let value: R;
  try {
    value = fn();
  } catch (error) {
    return failed(error);
  }
  return isThenable(value) ? ((value as PromiseLike<unknown>).then(undefined, failed) as R) : value;
}

/** What a failing callback was asked about: the attempt's error, or else its response. */
export const causeOf = (outcome: Outcome): unknown =>
  outcome.type === 'error' ? outcome.error : outcome.response;

/**
 * The stop for a wait cut short by the call's signal: the caller's abort, or a client that ended the call on its
 * own and aborted with the `Stopped` it ended for.
 */
export const stoppedBy = (reason: unknown): Stopped =>
  reason instanceof Stopped ? reason : new Stopped('aborted', reason);

/** Waits for `value` when it is a Promise, under the caller's signal (an abort ends the call at once). */
export async function awaited<V>(value: V | PromiseLike<V>, signal: AbortSignal | undefined): Promise<V> {
  if (!isThenable(value)) return value;
  try {
    return await untilAborted(value, signal);
  } catch (error) {
    if (error instanceof Stopped || signal?.aborted) throw stoppedBy(error);
    throw error;
  }
}

/** The stop for a deadline that passed while the callback `name` ran: `cause` (the attempt's error), else a TimeoutError. */
export const lateStop = (name: string, cause: unknown): Stopped =>
  new Stopped(
    'deadline',
    cause ?? new DOMException(`The deadline passed while \`${name}\` ran.`, 'TimeoutError'),
  );

/**
 * With a deadline, the signal a callback of the user's runs under: the caller's, and the deadline's once armed,
 * which aborts with `lateStop`.
 */
export function deadlineFor(
  call: Call,
  name: string,
  signal: AbortSignal | undefined,
  cause: unknown,
): Expiring | undefined {
  const { deadline, timers } = call.policy.options;
  if (deadline === undefined) return undefined;
  return expiring(signal, Math.max(0, call.left()), () => lateStop(name, cause), timers);
}

/**
 * Waits for a callback's answer when it is a Promise: under the caller's signal (an abort ends the call at once)
 * and the deadline, which ends the call at its time, pending callback or not (`limit`: made by `deadlineFor`, or
 * made here). A late answer is let go.
 */
export async function callbackAnswer<V>(
  call: Call,
  name: string,
  answer: V | PromiseLike<V>,
  signal: AbortSignal | undefined,
  cause: unknown,
  limit?: Expiring,
): Promise<V> {
  if (!isThenable(answer)) {
    limit?.release();
    return answer;
  }
  const bound = limit ?? deadlineFor(call, name, signal, cause);
  bound?.arm();
  try {
    return await awaited(answer, bound?.signal ?? signal);
  } finally {
    bound?.release();
  }
}

/** Tells every feature of the call about one event. */
export function tell(call: Call, event: CallEvent): void {
  if (call.features !== undefined) for (const feature of call.features) feature.observe?.(event, call);
}

/** The stop for a deadline that passed while a shared store answered. */
const storeLate = (): Stopped =>
  new Stopped(
    'deadline',
    new DOMException('The deadline passed while a shared store answered.', 'TimeoutError'),
  );

/**
 * Waits for a shared store's answer under the caller's signal and the deadline: an abort ends the wait at once and
 * the deadline at its time (a `Stopped`), as a slow store must not keep a call past either. `late` gets the answer
 * that comes after, to give back what the store granted meanwhile.
 */
export async function storeAnswer<V>(
  call: Call,
  answer: PromiseLike<V>,
  signal: AbortSignal | undefined,
  late: (value: V, stopped: Stopped) => void,
): Promise<V> {
  const { deadline, timers } = call.policy.options;
  const bound =
    deadline === undefined ? undefined : expiring(signal, Math.max(0, call.left()), storeLate, timers);
  bound?.arm();
  try {
    return await awaited(answer, bound?.signal ?? signal);
  } catch (error) {
    if (error instanceof Stopped && (signal?.aborted || bound?.expired)) {
      answer.then(
        (value) => late(value, error),
        () => {},
      );
    }
    throw error;
  } finally {
    bound?.release();
  }
}
