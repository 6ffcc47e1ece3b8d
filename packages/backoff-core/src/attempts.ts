import type { Decision, RetryState } from './decision.js';
import type { BackoffResult } from './events.js';
import { anySignal, type HedgePlan, settlesRace } from './hedge.js';
import type { Outcome, Settled } from './outcome.js';

export type { Settled } from './outcome.js';

/**
 * What a client whose adapter sends every attempt itself (withBackoff, axios) tells the attempt loop: how to send
 * one attempt, what its result means in the core's terms, and how the caller gets the end of the call.
 */
export interface Attempts<T> {
  /**
   * Sends one attempt of the request, as it was first sent. With `hedge`, each copy of an attempt gets a
   * `signal` of its own, which follows the caller's: send that copy with it instead of the caller's signal
   * (a losing copy is aborted through it).
   */
  send(signal?: AbortSignal): Promise<T>;
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
 * The attempt loop: send, ask the call, wait, send again, until the call stops. Written as a chain of promises
 * rather than an async loop: a request waiting to retry then holds two small callbacks, no suspended frame, and
 * nothing of its failed attempt. It answers at once (no extra tick) when `shouldRetry` is not async.
 */
export function sendAttempts<T>(call: RetryState, attempts: Attempts<T>): Promise<T> {
  // A pacer may hold the send first (an abort or the deadline ends the hold, and the call, at once).
  const ready = call.ready(attempts.signal());
  if (ready === undefined) return send(call, attempts);
  return ready.then(
    () => send(call, attempts),
    (reason: unknown) => interrupted(call, attempts, reason),
  );
}

/** Sends one attempt and asks the call about it. */
function send<T>(call: RetryState, attempts: Attempts<T>): Promise<T> {
  // An attempt begun after the caller aborted sends nothing (the client rejects at once): it is no attempt.
  const unsent = attempts.signal()?.aborted === true;
  // Read only with `hedge` on: the default path allocates no timer, controller or plan.
  const plan = unsent ? undefined : call.hedging();
  if (plan !== undefined) {
    return race(attempts, plan).then((raced) =>
      'interrupted' in raced ? interrupted(call, attempts, raced.interrupted) : decide(call, attempts, raced),
    );
  }
  let sent: Promise<T>;
  try {
    sent = attempts.send();
  } catch (error) {
    sent = Promise.reject(error);
  }
  return sent.then(
    (value) => decide(call, attempts, { ok: true, value }),
    (error: unknown) => {
      if (!unsent) return decide(call, attempts, { ok: false, error });
      call.abandon();
      return attempts.finish({ ok: false, error }, call.result());
    },
  );
}

/** Asks the call about an attempt (awaiting an async `shouldRetry` only when there is one). */
function decide<T>(call: RetryState, attempts: Attempts<T>, settled: Settled<T>): T | Promise<T> {
  let decision: Decision | Promise<Decision>;
  try {
    decision = call.decide(attempts.outcome(settled), attempts.signal());
  } catch (reason) {
    // A shouldRetry, delay or watcher that threw.
    attempts.discard?.(settled);
    return interrupted(call, attempts, reason);
  }
  if (!(decision instanceof Promise)) return next(call, attempts, settled, decision);
  return decision.then(
    (made) => next(call, attempts, settled, made),
    (reason: unknown) => {
      // An abort while an async shouldRetry ran, or its rejection.
      attempts.discard?.(settled);
      return interrupted(call, attempts, reason);
    },
  );
}

/** The caller's answer, or the wait and the next attempt. */
function next<T>(
  call: RetryState,
  attempts: Attempts<T>,
  settled: Settled<T>,
  decision: Decision,
): T | Promise<T> {
  if (!decision.retry) return attempts.finish(settled, call.result());
  attempts.discard?.(settled);
  return call.wait(decision, attempts.signal()).then(
    () => sendAttempts(call, attempts),
    (reason: unknown) => interrupted(call, attempts, reason),
  );
}

/** The call ended on `reason` rather than on an attempt's own outcome: the caller gets it in the client's terms. */
function interrupted<T>(call: RetryState, attempts: Attempts<T>, reason: unknown): T {
  const error = attempts.interrupted ? attempts.interrupted(reason) : reason;
  return attempts.finish({ ok: false, error }, call.result());
}

/** The reason a losing copy is aborted with. */
function lost(): DOMException {
  return new DOMException('Another copy of this request answered first', 'AbortError');
}

/** How an attempt's race ended: with a copy's outcome, or interrupted (`onHedge` threw). */
export type Raced<T> = Settled<T> | { readonly ok: false; readonly interrupted: unknown };

/** What a race asks of a client: how to send a copy, what its result means, the caller's signal, a discard. */
export type Racing<T> = Pick<Attempts<T>, 'send' | 'outcome' | 'signal' | 'discard'>;

interface Copy {
  readonly number: number;
  readonly controller: AbortController;
  readonly release: () => void;
  readonly started: number;
  settled: boolean;
}

/**
 * One attempt, hedged: sends the first copy, then after `plan.delay` ms without an answer another (while
 * `plan.hedge` allows one: deadline, circuit, pacer, budget), up to `plan.max` more. The first answer that
 * settles the race wins; every other copy is aborted at once and its late result discarded, never reported.
 * Each copy is sent with a signal of its own that also follows the caller's.
 */
export function race<T>(attempts: Racing<T>, plan: HedgePlan): Promise<Raced<T>> {
  const { timers, now } = plan;
  if (plan.delay === undefined) {
    // Not hedged yet ('auto' before it learned a delay): one copy, timed.
    const started = now();
    return sendCopy(attempts, undefined).then((settled) => {
      plan.won(1, attempts.outcome(settled), now() - started);
      return settled;
    });
  }
  const delay = plan.delay;
  const caller = attempts.signal();
  const copies: Copy[] = [];
  let done = false;
  let timer: unknown;
  return new Promise<Raced<T>>((resolve) => {
    const finish = (raced: Raced<T>, winner?: Copy) => {
      done = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      for (const copy of copies) {
        if (copy !== winner && !copy.settled) copy.controller.abort(lost());
        copy.release();
      }
      resolve(raced);
    };
    const settle = (copy: Copy, settled: Settled<T>) => {
      copy.settled = true;
      // A loser's late answer: let go of it (an unread body holds its connection).
      if (done) return attempts.discard?.(settled);
      const outcome = attempts.outcome(settled);
      const inFlight = copies.filter((other) => !other.settled).length;
      if (!settlesRace(plan.retryable(outcome), inFlight)) return attempts.discard?.(settled);
      plan.won(copy.number, outcome, now() - copy.started);
      finish(settled, copy);
    };
    const send = () => {
      const controller = new AbortController();
      const { signal, release } = caller ? anySignal([caller, controller.signal]) : noCombiner(controller);
      const copy: Copy = { number: copies.length + 1, controller, release, started: now(), settled: false };
      copies.push(copy);
      sendCopy(attempts, signal).then((settled) => settle(copy, settled));
      if (copies.length <= plan.max) timer = timers.setTimeout(hedge, delay);
    };
    const hedge = () => {
      timer = undefined;
      // The caller's abort ends every copy: none is added meanwhile.
      if (done || caller?.aborted) return;
      let allowed: boolean;
      try {
        allowed = plan.hedge(copies.length + 1, delay);
      } catch (interrupted) {
        finish({ ok: false, interrupted });
        return;
      }
      if (allowed) send();
    };
    send();
  });
}

const noCombiner = (controller: AbortController) => ({ signal: controller.signal, release() {} });

/**
 * Sends one copy of the attempt and settles with its outcome, never rejecting. The one place every copy goes
 * through on its way out.
 */
function sendCopy<T>(attempts: Racing<T>, signal: AbortSignal | undefined): Promise<Settled<T>> {
  let sent: Promise<T>;
  try {
    sent = attempts.send(signal);
  } catch (error) {
    sent = Promise.reject(error);
  }
  return sent.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}
