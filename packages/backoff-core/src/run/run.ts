// The runner's loop, one for every client: a call begun, then attempts (gated, sent, answered, decided) and the
// waits between them until the decider stops, and the caller's answer made by the client. Each step is a file of
// its own beside this one.

import { type Decision, stop } from '../decide/rules.js';
import { briefly } from '../options/check.js';
import { type Begun, begin, type Later } from './begin.js';
import type { Call, Policy, RequestDescription } from './call.js';
import { stoppedBy, storeAnswer } from './callbacks.js';
import { decide } from './decide.js';
import { gates } from './gates.js';
import { type Client, type Settled, type Stamp, Stopped } from './roles.js';
import { outcomeOf, send, settled, shaped } from './send.js';
import { abortReason, isThenable } from './sleep.js';
import { type Retry, retryAfter, wait } from './wait.js';

// Bundlers replace it (see options/check.ts).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/** The error the caller gets for a call that stopped on `stopped`, and the features told. */
function interrupted<T>(call: Call, client: Client<T>, stopped: Stopped): T {
  call.last = stop(stopped.reason, call.asked);
  call.end(stopped.reason);
  const error = client.interrupted ? client.interrupted(stopped.error) : stopped.error;
  return client.finish({ ok: false, error }, call.result());
}

/** The error a resend that lost its Idempotency-Key ends the call with. */
function keyLost(call: Call): TypeError {
  const header = call.policy.options.idempotencyKeyHeader;
  return new TypeError(
    process.env.NODE_ENV !== 'production'
      ? `A retry of this ${call.method} lost its \`${header}\` header (or got another) before it was sent: a hook (beforeAttempt, or the client's own) removed or changed it. A ${call.method} that may have reached the server is sent again only with the same key, so it was not.`
      : briefly('key-lost', header, call.sentKey),
    { cause: call.previous?.error },
  );
}

/** How one attempt ended for the loop: the caller's answer, or a retry to wait for. */
type Step<T> = { readonly settled: Settled<T> } | Retry;

/**
 * One attempt: gated, sent (hedged when it may be), answered, decided; its result let go unless the caller gets it.
 * `headers` are set on it first (a continuation's `Range`...; `null` restores the request's own).
 */
async function attempt<T>(
  call: Call,
  client: Client<T>,
  signal: AbortSignal | undefined,
  headers?: Readonly<Record<string, string | null>>,
): Promise<Step<T>> {
  // Most calls have no gate: no Promise to wait for.
  if (call.features !== undefined && call.features.length > 0) await gates(call, signal);
  const next = client.next();
  const sending = isThenable(next) ? await next : next;
  if (headers !== undefined) for (const name in headers) sending.header?.(name, headers[name] ?? null);
  // An attempt begun after the caller aborted sends nothing (the client rejects at once): it is no attempt.
  const unsent = signal?.aborted === true;
  if (!unsent && call.policy.options.beforeAttempt !== undefined) await shaped(call, sending, 1, signal);
  call.sent(sending.headers);
  // What may have reached the server goes again only with its key: a hook that took it away (or changed it) made
  // this another request, which is not sent.
  if (!unsent && call.reached !== undefined && call.sentKey !== call.reached) {
    throw new Stopped('method-not-idempotent', keyLost(call));
  }
  const result = unsent
    ? await settled(() => client.send(sending))
    : await send(call, client, sending, signal);
  if (unsent && !result.ok) {
    call.last = stop('aborted', undefined);
    call.end('aborted');
    return { settled: result };
  }
  const raw = outcomeOf(client, result);
  const outcome = client.answer ? await client.answer(result, raw) : raw;
  let decision: Decision;
  try {
    const made = decide(call, outcome, signal);
    decision = isThenable(made) ? await made : made;
  } catch (error) {
    client.discard?.(result);
    throw error;
  }
  if (!decision.retry) return { settled: result };
  client.discard?.(result);
  const retry = retryAfter(call, decision, outcome);
  if (call.policy.options.beforeAttempt !== undefined) {
    call.previous = { status: retry.status, error: retry.error };
  }
  return retry;
}

/**
 * The caller's answer from the last attempt's result: with `resume`, a body cut later is taken up where it broke
 * (the resume code is loaded here only: a bundle without `resume` carries none of it).
 */
async function delivered<T>(call: Call, client: Client<T>, settled: Settled<T>): Promise<T> {
  if (settled.ok && call.policy.options.resume !== undefined && client.body !== undefined) {
    const { resumeBody } = await import('./continue.js');
    const resumed = await resumeBody(call, client, settled.value, {
      decide: (outcome, signal) => decide(call, outcome, signal),
      wait: (decision, outcome, signal) => wait(call, retryAfter(call, decision, outcome), signal),
      attempts: (signal, headers) => attempts(call, client, signal, headers),
    });
    if (resumed !== undefined) return resumed;
  }
  return client.finish(settled, call.result());
}

/** Attempts and waits until the decider stops: the last attempt's result. */
export async function attempts<T>(
  call: Call,
  client: Client<T>,
  signal: AbortSignal | undefined,
  headers?: Readonly<Record<string, string | null>>,
): Promise<Settled<T>> {
  for (;;) {
    const step = await attempt(call, client, signal, headers);
    if ('settled' in step) return step.settled;
    await wait(call, step, signal);
  }
}

/**
 * Runs one logical request: starts its call (an open circuit refuses it here, nothing sent), then sends, decides
 * and waits until the call stops. Resolves or rejects with what `client.finish` makes of the end.
 */
export function runCall<T>(
  policy: Policy,
  request: RequestDescription,
  client: Client<T>,
  stamp?: Stamp,
): Promise<T> {
  let begun: Begun | Later;
  let signal: AbortSignal | undefined;
  try {
    begun = begin(policy, request, stamp);
    signal = client.signal();
  } catch (error) {
    return Promise.reject(error);
  }
  return isThenable(begun) ? startedLater(begun, client, signal) : run(begun, client, signal);
}

/** A call whose features start later (a shared store), waited for under the caller's signal and the deadline. */
async function startedLater<T>(begun: Later, client: Client<T>, signal: AbortSignal | undefined): Promise<T> {
  let started: Begun;
  try {
    // Aborted, or past the deadline, while a feature's store answered: the call ends now, and its features hear
    // it when they start.
    started = await storeAnswer(begun.call, begun, signal, (late, stopped) => late.call.end(stopped.reason));
  } catch (error) {
    if (!(error instanceof Stopped)) throw error;
    return interrupted(begun.call, client, error);
  }
  return run(started, client, signal);
}

/**
 * A started call: refused, or aborted before it began, or sent, decided and waited until it stops (the loop of
 * `attempts`, in this frame: a request parked in its wait holds this frame and the timer, nothing more).
 */
async function run<T>(
  { call, refusal }: Begun,
  client: Client<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  // Aborted before it began: nothing is sent, and the call ends here and now (a client that rejected the request
  // itself, as axios does, counts it so before its caller hears of it).
  const stopped = refusal ?? (signal?.aborted ? stoppedBy(abortReason(signal)) : undefined);
  if (stopped !== undefined) return interrupted(call, client, stopped);
  try {
    for (;;) {
      const step = await attempt(call, client, signal);
      if ('settled' in step) return await delivered(call, client, step.settled);
      await wait(call, step, signal);
    }
  } catch (error) {
    if (error instanceof Stopped) return interrupted(call, client, error);
    // The client failed on its own (not through a callback's Stopped): every feature still hears the end, once.
    if (call.features !== undefined) {
      call.last ??= stop('callback-error', call.asked);
      call.end('callback-error');
    }
    throw error;
  }
}
