import { type Decision, type RetryDecision, stop } from '../decide/rules.js';
import { askedDelay, verdict } from '../decide/verdict.js';
import { headerGetter } from '../http/headers.js';
import type { Outcome } from '../http/outcome.js';
import { describeValue } from '../options/show.js';
import { Call, type Policy, type RequestDescription } from './call.js';
import { callback, callbackAnswer, deadlineFor, lateStop, stoppedBy, tell } from './callbacks.js';
import { decide } from './decide.js';
import type { AttemptContext, AttemptHeaders } from './events.js';
import { gates } from './gates.js';
import {
  type Attempt,
  type Client,
  type Copies,
  type FeatureCall,
  type SendWatch,
  type Settled,
  type Stamp,
  Stopped,
  type Strategy,
} from './roles.js';
import { abortReason, anySignal, isThenable, untilAborted } from './sleep.js';
import { type Failed, failed, wait } from './wait.js';

// RFC 9110 token characters: what a header name may be made of.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A settled result, never a rejection. */
function settled<T>(sending: () => Promise<T>): Promise<Settled<T>> {
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
function outcomeOf<T>(client: Client<T>, result: Settled<T>): Outcome {
  return timedOut.has(result)
    ? { type: 'error', kind: 'timeout', error: (result as { error: unknown }).error }
    : client.outcome(result);
}

/** One send's headers as `beforeAttempt` and a trace change them: through the client's attempt, that send's alone. */
function editable(attempt: Attempt): AttemptHeaders {
  const change = (name: string, value: string | null) => {
    if (typeof name !== 'string' || !TOKEN.test(name)) {
      throw new TypeError(`Expected a header name, got ${describeValue(name)}.`);
    }
    if (value !== null && (typeof value !== 'string' || /[\r\n\0]/.test(value))) {
      throw new TypeError(
        `Expected \`${name}\` to be set to a string without line breaks, got ${describeValue(value)}.`,
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
async function shaped(call: Call, attempt: Attempt, copy: number, signal: AbortSignal | undefined) {
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
function transmit<T>(
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
  const result = await go();
  if (timer !== undefined) timers.clearTimeout(timer);
  release();
  // Cut by its own timeout, not by the caller: a timeout failure.
  if (cut !== undefined && !result.ok && !base?.aborted) timedOut.add(result);
  if (watches !== undefined) {
    const outcome = outcomeOf(client, result);
    for (const watch of watches) watch.done(outcome);
  }
  return result;
}

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
 * One attempt, hedged when the policy hedges and the request may be sent twice; else one copy. Its first copy was
 * shaped already (`attempt`); each hedge's copy is shaped apart, and goes only with the first one's key.
 */
function send<T>(
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
  return hedged(call, client, attempt, signal, strategy);
}

/**
 * One attempt raced by the policy's strategy: its copies, each shaped apart and priced as a retry. A copy is paid
 * for and counted once it is shaped and goes: one its hook made unsendable costs nothing.
 */
async function hedged<T>(
  call: Call,
  client: Client<T>,
  attempt: Attempt,
  signal: AbortSignal | undefined,
  strategy: Strategy,
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
  const raced = await strategy.send(copies, call);
  if ('interrupted' in raced) {
    // A callback ended the call during the race: the copy already out was sent, so it is an attempt.
    call.attempts++;
    throw raced.interrupted;
  }
  return raced;
}

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
    `A retry of this ${call.method} lost its \`${header}\` header (or got another) before it was sent: a hook (beforeAttempt, or the client's own) removed or changed it. A ${call.method} that may have reached the server is sent again only with the same key, so it was not.`,
    { cause: call.previous?.error },
  );
}

/** How one attempt ended for the loop: the caller's answer, or a retry to wait for. */
type Step<T> =
  | { readonly done: true; readonly settled: Settled<T> }
  | { readonly done: false; readonly retry: RetryDecision; readonly failure: Failed };

/**
 * One attempt: sent (hedged when it may be), answered, decided; its result let go unless the caller gets it.
 * `headers` are set on it first (a continuation's `Range`...; `null` restores the request's own).
 */
async function attempt<T>(
  call: Call,
  client: Client<T>,
  signal: AbortSignal | undefined,
  headers?: Readonly<Record<string, string | null>>,
): Promise<Step<T>> {
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
    return { done: true, settled: result };
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
  if (!decision.retry) return { done: true, settled: result };
  client.discard?.(result);
  const failure = failed(call, outcome);
  if (call.policy.options.beforeAttempt !== undefined) {
    call.previous = { status: failure.status, error: failure.error };
  }
  return { done: false, retry: decision, failure };
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
      wait: (decision, outcome, signal) => wait(call, decision, failed(call, outcome), signal),
      attempts: (signal, headers) => attempts(call, client, signal, headers),
    });
    if (resumed !== undefined) return client.finish({ ok: true, value: resumed }, call.liveResult());
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
    // Most calls have no gate: no Promise to wait for.
    if (call.features !== undefined && call.features.length > 0) await gates(call, signal);
    const step = await attempt(call, client, signal, headers);
    if (step.done) return step.settled;
    await wait(call, step.retry, step.failure, signal);
  }
}

/** A started call, and why a feature refused it (then nothing may be sent, and every feature heard it ended). */
interface Begun {
  readonly call: Call;
  readonly refusal: Stopped | undefined;
}

/**
 * Starts the call of one logical request: a generated key stamped on the request (`stamp` puts it there and returns
 * the headers as they will be sent), every feature told. At once, unless a feature's start answers later (a shared
 * store): then a Promise of it.
 */
function begin(policy: Policy, request: RequestDescription, stamp: Stamp | undefined): Begun | Later {
  const call = new Call(policy, request);
  if (call.key !== undefined && stamp !== undefined) {
    call.sent(stamp(policy.options.idempotencyKeyHeader, call.key));
  }
  const parts: (FeatureCall | undefined | PromiseLike<FeatureCall | undefined>)[] = [];
  let refusal: Stopped | undefined;
  let async = false;
  for (const feature of policy.features) {
    try {
      const part = feature.start(call);
      async ||= isThenable(part);
      parts.push(part);
    } catch (error) {
      refusal ??= refused(error);
    }
  }
  if (!async) return started(call, parts as (FeatureCall | undefined)[], refusal);
  const later = Promise.allSettled(parts).then((settled) => {
    const features: (FeatureCall | undefined)[] = [];
    for (const part of settled) {
      if (part.status === 'fulfilled') features.push(part.value);
      else refusal ??= refused(part.reason);
    }
    return started(call, features, refusal);
  });
  return Object.assign(later, { call });
}

/** A call whose features start later (a shared store): the call itself is there at once, to end it on an abort. */
type Later = Promise<Begun> & { readonly call: Call };

/** Why a feature refused a call: an open circuit's `Stopped`, or a callback of the feature's that failed (a key). */
const refused = (error: unknown): Stopped =>
  error instanceof Stopped ? error : new Stopped('callback-error', error);

/** The call with its features' parts; a refused one ended at once for every feature. */
function started(
  call: Call,
  parts: readonly (FeatureCall | undefined)[],
  refusal: Stopped | undefined,
): Begun {
  call.features = parts.filter((part): part is FeatureCall => part !== undefined);
  if (refusal !== undefined) {
    call.last = stop(refusal.reason, undefined);
    call.end(refusal.reason);
  }
  return { call, refusal };
}

/**
 * Starts a call for a client that schedules its own attempts and waits (a simulator in virtual time): decide each
 * attempt with `decide`, wait each retry's delay yourself. Throws the refusal's error when a feature refused the
 * call (an open circuit), and a TypeError when a feature's store answers later (use `runCall` then).
 */
export function startCall(policy: Policy, request: RequestDescription = {}, stamp?: Stamp): Call {
  const begun = begin(policy, request, stamp);
  if (isThenable(begun)) {
    begun.then(undefined, () => {});
    throw new TypeError(
      'A feature of this policy starts a call asynchronously (a shared store): use runCall.',
    );
  }
  if (begun.refusal !== undefined) throw begun.refusal.error;
  return begun.call;
}

/**
 * Runs one logical request: starts its call (an open circuit refuses it here, nothing sent), then sends, decides
 * and waits until the call stops. Resolves or rejects with what `client.finish` makes of the end.
 */
export async function runCall<T>(
  policy: Policy,
  request: RequestDescription,
  client: Client<T>,
  stamp?: Stamp,
): Promise<T> {
  const begun = begin(policy, request, stamp);
  const signal = client.signal();
  let started: Begun;
  if (isThenable(begun)) {
    try {
      started = await untilAborted(begun, signal);
    } catch (error) {
      if (!signal?.aborted) throw error;
      // Aborted while a feature's store answered: the call ends now, and its features hear it when they start.
      const reason = stoppedBy(abortReason(signal));
      begun.then(
        (late) => late.call.end(reason.reason),
        () => {},
      );
      return interrupted(begun.call, client, reason);
    }
  } else started = begun;
  const { call, refusal } = started;
  if (refusal !== undefined) return interrupted(call, client, refusal);
  // Aborted before it began: nothing is sent, and the call ends here and now (a client that rejected the request
  // itself, as axios does, counts it so before its caller hears of it).
  if (signal?.aborted) return interrupted(call, client, stoppedBy(abortReason(signal)));
  // Returned, not awaited: a request parked in its wait holds the loop's frame and the timer, not this one's too.
  return attempts(call, client, signal)
    .then((settled) => delivered(call, client, settled))
    .catch((error: unknown) => {
      if (error instanceof Stopped) return interrupted(call, client, error);
      // The client failed on its own (not through a callback's Stopped): every feature still hears the end, once.
      if (call.features !== undefined) {
        call.last ??= stop('callback-error', call.asked);
        call.end('callback-error');
      }
      throw error;
    });
}
