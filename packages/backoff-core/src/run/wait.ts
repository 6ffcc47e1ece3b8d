// The wait before a retry: onRetry told, the decision's delay waited on the policy's timers, and after a network
// failure while the device is offline, the wait for the network.

import type { RetryDecision } from '../decide/rules.js';
import type { Outcome } from '../http/outcome.js';
import type { Call } from './call.js';
import { callback, callbackAnswer, stoppedBy, tell } from './callbacks.js';
import type { RetryEvent } from './events.js';
import { waitForNetwork } from './offline.js';
import { Stopped } from './roles.js';
import { abortReason, sleep } from './sleep.js';

/**
 * A retry to wait for: its decision, and what its wait needs of the attempt that failed, kept apart so that the
 * attempt itself can be let go.
 */
export interface Retry {
  readonly decision: RetryDecision;
  readonly status: number | undefined;
  /** Let go once `onRetry` heard of it, unless the wait is for the network (its deadline ends the call with it). */
  error: unknown;
  /** It failed on the network while the device was offline: the wait lasts until it is back online. */
  readonly offline: boolean;
}

/** The retry `decision` allows after `outcome`. */
export function retryAfter(call: Call, decision: RetryDecision, outcome: Outcome): Retry {
  const { network } = call.policy.options;
  const answered = outcome.type === 'response';
  return {
    decision,
    status: answered ? outcome.status : undefined,
    error: answered ? undefined : outcome.error,
    offline:
      network !== undefined &&
      !answered &&
      (outcome.kind === 'network' || outcome.kind === 'not-sent') &&
      !network.isOnline(),
  };
}

/**
 * The wait before a retry: `onRetry` told (and awaited when it returns a Promise), then the decision's delay, then,
 * after a network failure while the device is offline, the wait for the network (bounded by the deadline only).
 * Not async itself: a request parked in its wait holds the loop's frame and the pause, not this one's too.
 */
export function wait(call: Call, failure: Retry, signal: AbortSignal | undefined): Promise<void> | undefined {
  const { options } = call.policy;
  const { decision } = failure;
  // A call whose signal ended it meanwhile (the caller, or a client that ended the call on its own) retries
  // nothing: no retry is announced.
  if (signal?.aborted) throw stoppedBy(abortReason(signal));
  const { onRetry } = options;
  if (onRetry === undefined) return pause(call, failure, signal);
  const event: RetryEvent = {
    retry: decision.retryNumber,
    retries: options.retries,
    delay: decision.delay,
    serverDelay: decision.serverDelay,
    reason: decision.reason,
    method: call.method,
    url: call.url,
    status: failure.status,
    error: failure.error,
    waitingForNetwork: failure.offline,
  };
  const answer = callback('onRetry', () => onRetry(event), failure.error);
  return callbackAnswer(call, 'onRetry', answer, signal, failure.error).then(() =>
    pause(call, failure, signal),
  );
}

/** The decision's delay, every feature told of it, then the wait for the network when the device is offline. */
function pause(call: Call, failure: Retry, signal: AbortSignal | undefined): Promise<void> | undefined {
  const { decision } = failure;
  // A request parked in its wait holds no more than the wait needs: not the attempt's error.
  if (!failure.offline) failure.error = undefined;
  tell(call, { type: 'wait', delay: decision.delay, retry: decision.retryNumber, reason: decision.reason });
  const { delay } = decision;
  if (delay <= 0) return failure.offline ? offline(call, failure, signal) : undefined;
  const { timers, now } = call.policy.options;
  if (signal === undefined && !failure.offline) {
    // Nothing can cut this wait short: it is counted now, and the loop waits on the timer's own promise alone.
    call.totalDelay += delay;
    return sleep(delay, undefined, timers);
  }
  // Timed only when an abort can cut the wait short (then only the part that passed counts).
  const started = signal ? now() : 0;
  return sleep(delay, signal, timers).then(
    () => {
      call.totalDelay += delay;
      return failure.offline ? offline(call, failure, signal) : undefined;
    },
    (reason: unknown) => {
      call.totalDelay += Math.min(delay, Math.max(0, now() - started));
      throw stoppedBy(reason);
    },
  );
}

/**
 * After a network failure while the device was offline, the wait for the network. Offline time is not capped by
 * maxDelay and spends no attempt; the deadline ends it with the attempt's error.
 */
async function offline(call: Call, failure: Retry, signal: AbortSignal | undefined): Promise<void> {
  const { options } = call.policy;
  const { network } = options;
  if (network === undefined) return;
  const from = options.now();
  const left = options.deadline === undefined ? undefined : Math.max(0, call.left());
  let ended: 'online' | 'deadline';
  try {
    ended = await waitForNetwork(network, signal, options.timers, left);
  } catch (reason) {
    throw stoppedBy(reason);
  } finally {
    call.totalDelay += Math.max(0, options.now() - from);
  }
  if (ended === 'deadline') throw new Stopped('deadline', failure.error);
}
