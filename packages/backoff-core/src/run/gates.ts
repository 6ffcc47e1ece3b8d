// The gates before each send: a circuit that may refuse, a pacer that may hold; each hold told and waited, and its
// slot given back when the caller aborts.

import { serverWaitBound } from '../decide/server-wait.js';
import type { Call } from './call.js';
import { callback, callbackAnswer, stoppedBy, storeAnswer, tell } from './callbacks.js';
import type { Held } from './events.js';
import type { FeatureCall } from './roles.js';
import { isThenable, sleep } from './sleep.js';

/** Waits one gate's hold: `onHold` told, every feature told, the hold's slot given back when it is cut short. */
async function hold(
  call: Call,
  gate: FeatureCall,
  held: Held,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { options } = call.policy;
  const { delay, reason, key } = held;
  try {
    const { onHold } = options;
    if (onHold !== undefined) {
      const event = { delay, reason, key, method: call.method, url: call.url, attempt: call.attempts + 1 };
      const cause = call.previous?.error;
      await callbackAnswer(
        call,
        'onHold',
        callback('onHold', () => onHold(event), cause),
        signal,
        cause,
      );
    }
    tell(call, { type: 'hold', delay, reason, key });
    const started = options.now();
    await sleep(delay, signal, options.timers).catch((reason: unknown) => {
      call.held += Math.min(delay, Math.max(0, options.now() - started));
      throw stoppedBy(reason);
    });
    call.held += delay;
  } catch (error) {
    // Cut short: the hold's slot goes back to whoever comes next.
    gate.release?.(held);
    throw error;
  }
}

/**
 * Runs every gate before a send (a circuit that opened meanwhile, a pacer's hold) and waits each hold. A gate's
 * refusal (a circuit that opened, a hold past the deadline) is thrown as a `Stopped`.
 */
export async function gates(call: Call, signal: AbortSignal | undefined): Promise<void> {
  const features = call.features;
  if (features === undefined) return;
  for (let i = 0; i < features.length; i++) {
    const gate = features[i] as FeatureCall;
    const answer = asked(gate, call, signal);
    const held = isThenable(answer) ? await answer : answer;
    if (held === undefined) continue;
    // Without a deadline, holds renewed again and again still end, as the waits a server keeps asking for do:
    // whatever the gate (ours or the user's own), its confirmations are given no more time than that bound.
    const until = call.policy.options.now() + serverWaitBound(call.policy.options.maxRetryAfter);
    await hold(call, gate, held, signal);
    // A hold over is confirmed by its gate; one that holds again (a pause, a queue stretched) is confirmed in its
    // turn, until the gate lets the send go or refuses it.
    for (let over = gate.confirm !== undefined; over; ) {
      const confirmed = asked(gate, call, signal, until);
      const again = isThenable(confirmed) ? await confirmed : confirmed;
      over = again !== undefined;
      if (again !== undefined) await hold(call, gate, again, signal);
    }
    // The gates before this one look again: a circuit may have opened during the hold.
    for (let j = 0; j < i; j++) {
      const earlier = features[j] as FeatureCall;
      const answer = asked(earlier, call, signal);
      const again = isThenable(answer) ? await answer : answer;
      if (again !== undefined) await hold(call, earlier, again, signal);
    }
  }
}

/**
 * A gate's answer, or (given `confirmUntil`) its confirmation of a hold that is over, with the time left until then. One that answers later (a shared store)
 * is awaited under the caller's signal: an abort ends the call at once, and a hold reserved after it is given back
 * when it comes.
 */
function asked(
  gate: FeatureCall,
  call: Call,
  signal: AbortSignal | undefined,
  confirmUntil?: number,
): Held | undefined | Promise<Held | undefined> {
  const answer =
    confirmUntil === undefined
      ? gate.gate?.(call.left())
      : gate.confirm?.(Math.min(call.left(), Math.max(0, confirmUntil - call.policy.options.now())));
  if (!isThenable(answer)) return answer;
  return storeAnswer(call, answer, signal, (late) => {
    if (late !== undefined) gate.release?.(late);
  });
}
