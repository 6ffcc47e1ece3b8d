import type { Decision, RetryState } from './decision.js';
import type { BackoffResult } from './events.js';
import type { Outcome } from './outcome.js';

/** How one attempt settled: the client's value (its response), or what it threw. */
export type Settled<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

/**
 * What a client whose adapter sends every attempt itself (withBackoff, axios) tells the attempt loop: how to send
 * one attempt, what its result means in the core's terms, and how the caller gets the end of the call.
 */
export interface Attempts<T> {
  /** Sends one attempt of the request, as it was first sent. */
  send(): Promise<T>;
  /** The attempt's outcome in the core's terms. */
  outcome(settled: Settled<T>): Outcome;
  /** The caller's abort signal, for the core's waits (and an async `shouldRetry`), or none. */
  signal(): AbortSignal | undefined;
  /** Lets go of a failed attempt that will not reach the caller (an unread body holds its connection). */
  discard?(settled: Settled<T>): void;
  /**
   * The error the caller gets when the call ends other than with an attempt's own outcome (an abort during a wait
   * or an async `shouldRetry`, an open circuit, a callback's own error), in the client's own terms. By default,
   * that reason itself.
   */
  interrupted?(reason: unknown): unknown;
  /**
   * What the caller gets, with the call's result attached: the last attempt's own value or error, or the error
   * of an interruption. Throw to reject.
   */
  finish(settled: Settled<T>, result: BackoffResult): T;
}

/**
 * The attempt loop: send, ask the call, wait, send again, until the call stops. The loop holds nothing of a
 * failed attempt while it waits, and answers at once (no extra tick) when `shouldRetry` is not async.
 */
export async function sendAttempts<T>(call: RetryState, attempts: Attempts<T>): Promise<T> {
  const interrupted = (reason: unknown): T => {
    const error = attempts.interrupted ? attempts.interrupted(reason) : reason;
    return attempts.finish({ ok: false, error }, call.result());
  };
  for (;;) {
    let settled: Settled<T> | undefined;
    // An attempt begun after the caller aborted sends nothing (the client rejects at once): it is no attempt.
    const unsent = attempts.signal()?.aborted === true;
    try {
      settled = { ok: true, value: await attempts.send() };
    } catch (error) {
      if (unsent) {
        call.abandon();
        return attempts.finish({ ok: false, error }, call.result());
      }
      settled = { ok: false, error };
    }
    let decision: Decision | Promise<Decision>;
    try {
      decision = call.decide(attempts.outcome(settled), attempts.signal());
      if (decision instanceof Promise) decision = await decision;
    } catch (reason) {
      // An abort during an async shouldRetry, or a shouldRetry, delay or watcher that threw.
      attempts.discard?.(settled);
      return interrupted(reason);
    }
    if (!decision.retry) return attempts.finish(settled, call.result());
    attempts.discard?.(settled);
    // Nothing of the failed attempt is held while the request waits.
    settled = undefined;
    try {
      await call.wait(decision, attempts.signal());
    } catch (reason) {
      return interrupted(reason);
    }
  }
}
