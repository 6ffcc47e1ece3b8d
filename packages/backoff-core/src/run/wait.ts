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

/** What a retry's wait needs of the attempt that failed, kept apart so that the attempt itself can be let go. */
export interface Failed {
  readonly status: number | undefined;
  /** Let go once `onRetry` heard of it, unless the wait is for the network (its deadline ends the call with it). */
  error: unknown;
  /** It failed on the network while the device was offline: the wait lasts until it is back online. */
  readonly offline: boolean;
}

/** What a retry's wait needs of `outcome`. */
export function failed(call: Call, outcome: Outcome): Failed {
  const { network } = call.policy.options;
  const answered = outcome.type === 'response';
  return {
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
 */
export async function wait(
  call: Call,
  decision: RetryDecision,
  failure: Failed,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { options } = call.policy;
  // A call whose signal ended it meanwhile (the caller, or a client that ended the call on its own) retries
  // nothing: no retry is announced.
  if (signal?.aborted) throw stoppedBy(abortReason(signal));
  const { onRetry } = options;
  if (onRetry !== undefined) {
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
    await callbackAnswer(call, 'onRetry', answer, signal, failure.error);
  }
  // A request parked in its wait holds no more than the wait needs: not the attempt's error, and not this
  // function's frame (the pause is returned, not awaited).
  if (!failure.offline) failure.error = undefined;
  tell(call, { type: 'wait', delay: decision.delay, retry: decision.retryNumber, reason: decision.reason });
  if (decision.delay <= 0) return failure.offline ? offline(call, failure, signal) : undefined;
  const { timers, now } = options;
  // Timed only when an abort can cut the wait short (then only the part that passed counts).
  const started = signal ? now() : 0;
  return sleep(decision.delay, signal, timers).then(
    () => {
      call.totalDelay += decision.delay;
      return failure.offline ? offline(call, failure, signal) : undefined;
    },
    (reason: unknown) => {
      call.totalDelay += Math.min(decision.delay, Math.max(0, now() - started));
      throw stoppedBy(reason);
    },
  );
}

/**
 * After a network failure while the device was offline, the wait for the network. Offline time is not capped by
 * maxDelay and spends no attempt; the deadline ends it with the attempt's error.
 */
async function offline(call: Call, failure: Failed, signal: AbortSignal | undefined): Promise<void> {
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
