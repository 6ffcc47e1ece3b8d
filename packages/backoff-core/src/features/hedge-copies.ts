// The runner's half of a hedge: each copy of an attempt shaped apart by beforeAttempt, kept to the first copy's
// key, paid for from the budget, counted and told, then raced by the Hedge. Reached only through `new Hedge()`.

import { askedDelay, verdict } from '../decide/verdict.js';
import type { Outcome } from '../http/outcome.js';
import type { Call } from '../run/call.js';
import { callback, callbackAnswer, tell } from '../run/callbacks.js';
import {
  type Attempt,
  type CallView,
  type Client,
  type Settled,
  Stopped,
  type Strategy,
} from '../run/roles.js';
import { outcomeOf, shaped, transmit } from '../run/send.js';

/** How an attempt's race ended: with a copy's outcome, or interrupted (a callback threw: the call has ended). */
export type Raced<T> = Settled<T> | { readonly ok: false; readonly interrupted: unknown };

/** What a sending strategy is given for one attempt: how to send a copy, and what the runner says of copies. */
export interface Copies<T> {
  /**
   * Sends copy `copy` of the attempt (1: the first), settling with its result, never rejecting; `signal` (its own,
   * following the caller's) aborts a losing copy. Settles as interrupted when the call must end (a `beforeAttempt`
   * that failed).
   */
  send(copy: number, signal?: AbortSignal): Promise<Raced<T>>;
  /** A copy's outcome, in the core's terms. */
  outcome(settled: Settled<T>): Outcome;
  /** The caller's signal. */
  readonly signal: AbortSignal | undefined;
  /** Lets go of a copy's result that will not reach the caller. */
  discard(settled: Settled<T>): void;
  /** Whether an outcome is one another copy might improve on (a failure the default rules retry). */
  retryable(outcome: Outcome): boolean;
  /**
   * Asks to send copy `copy` (2: the first hedge), the attempt unanswered after `delay` ms: `false` when it may
   * not (deadline, circuit, pacer, budget). Throws what `onHedge` threw: the call has then ended.
   */
  mayCopy(copy: number, delay: number): boolean;
  /** Records the copy that answered the attempt, and how long it took. */
  won(copy: number, outcome: Outcome, elapsed: number): void;
}

/** Races one attempt's copies (the Hedge's part): the first answer that settles the race, or the interruption. */
export type Race = <T>(copies: Copies<T>, call: CallView) => Promise<Raced<T>>;

/** The strategy that sends each attempt as copies raced by `race`. */
export const hedging = (race: Race): Strategy => ({
  send: (call: Call, client, attempt, signal) => hedged(call, client, attempt, signal, race),
});

/**
 * Why a hedge's copy was not sent: its `beforeAttempt` took away the attempt's Idempotency-Key (or changed it), or
 * the budget emptied meanwhile.
 */
class CopyNotSentError extends Error {
  override name = 'CopyNotSentError';
}

/** A copy that was not sent, as its result. */
const unsent = (why: string): Settled<never> => ({ ok: false, error: new CopyNotSentError(why) });

/**
 * One attempt raced by `race`: its copies, each shaped apart and priced as a retry. A copy is paid
 * for and counted once it is shaped and goes: one its hook made unsendable costs nothing.
 */
async function hedged<T>(
  call: Call,
  client: Client<T>,
  attempt: Attempt,
  signal: AbortSignal | undefined,
  race: Race,
): Promise<Settled<T>> {
  const { options, budget } = call.policy;
  const key = call.sentKey;
  // Each copy the runner allowed: the delay it comes after, and onHedge's answer (awaited before it is shaped).
  const allowed = new Map<number, { readonly delay: number; readonly told: unknown }>();
  const copies: Copies<T> = {
    send: async (copy, own) => {
      if (copy === 1) return transmit(call, client, attempt, 1, own);
      const { delay, told } = allowed.get(copy) as { delay: number; told: unknown };
      const mine = attempt.copy?.() ?? attempt;
      try {
        await callbackAnswer(call, 'onHedge', told, own, undefined);
        await shaped(call, mine, copy, own);
      } catch (error) {
        if (error instanceof Stopped) return { ok: false, interrupted: error };
        throw error;
      }
      if (!call.idempotent && call.keyOn(mine.headers) !== key) {
        return unsent("beforeAttempt took this copy's Idempotency-Key away: not sent.");
      }
      if (budget !== undefined && !budget.tryAcquire('hedge')) {
        return unsent('The retry budget emptied while this copy was shaped: not sent.');
      }
      call.hedges++;
      tell(call, { type: 'hedge', copy, delay });
      return transmit(call, client, mine, copy, own);
    },
    outcome: (result) =>
      !result.ok && result.error instanceof CopyNotSentError
        ? { type: 'error', kind: 'not-sent', error: result.error, redirected: false }
        : outcomeOf(client, result),
    signal,
    discard: (result) => client.discard?.(result),
    retryable: (outcome) =>
      !(outcome.type === 'error' && outcome.kind === 'abort') &&
      verdict(outcome, askedDelay(outcome, options.now()), call, options).retryable,
    mayCopy: (copy, delay) => {
      if (call.left() <= 0) return false;
      if (call.features?.some((feature) => feature.admitsCopy?.() === false)) return false;
      // A hedge is priced as a retry: one the budget cannot pay is refused (and counted so) before onHedge hears
      // of it; one it can pay is paid when it goes.
      if (budget !== undefined && budget.available < 1) {
        budget.tryAcquire('hedge');
        return false;
      }
      const { onHedge } = options;
      const event = { copy, delay, method: call.method, url: call.url, attempt: call.attempts + 1 };
      const told = onHedge === undefined ? undefined : callback('onHedge', () => onHedge(event));
      allowed.set(copy, { delay, told });
      return true;
    },
    won: (copy) => {
      call.hedgeWon = copy > 1;
    },
  };
  const raced = await race(copies, call);
  if ('interrupted' in raced) {
    // A callback ended the call during the race: the copy already out was sent, so it is an attempt.
    call.attempts++;
    throw raced.interrupted;
  }
  return raced;
}
