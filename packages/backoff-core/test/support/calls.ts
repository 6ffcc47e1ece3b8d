import type { Backoff, BackoffResult } from 'backoff-core';
import {
  type Attempt,
  attachResult,
  type Call,
  type Client,
  classifyError,
  type Decision,
  decide,
  type HeadersLike,
  type Held,
  type Outcome,
  type RequestDescription,
  runCall,
  type Settled,
  Stopped,
} from 'backoff-core/adapter';

/**
 * Decides one attempt of `call` at once, as a client that schedules its own waits does (a simulator): the policy
 * must answer synchronously (no `shouldRetry` that returns a Promise).
 */
export function next(call: Call, outcome: Outcome): Decision {
  const decision = decide(call, outcome);
  if (decision instanceof Promise) throw new TypeError('Expected a decision at once, got a Promise');
  return decision;
}

/**
 * The hold `call`'s gates ask for before its next send, its slot reserved, as the runner asks them (none:
 * `undefined`). A gate's refusal is thrown as the error the caller would get (a `PacerDeadlineError`).
 */
export function hold(call: Call): Held | undefined {
  for (const feature of call.features ?? []) {
    try {
      const held = feature.gate?.(call.left());
      if (held instanceof Promise) throw new TypeError('Expected a hold at once, got a Promise');
      if (held !== undefined) return held as Held;
    } catch (refusal) {
      throw refusal instanceof Stopped ? refusal.error : refusal;
    }
  }
  return undefined;
}

/** How the test answers attempt `attempt` (1-based): an outcome, at once or later. */
export type Answer = (attempt: number) => Outcome | Promise<Outcome>;

/**
 * A client for `runCall` whose attempts are answered by the test: each send resolves with the attempt's outcome
 * itself (an error outcome too), so that every outcome reaches the runner exactly as written. The caller of the
 * call gets the last response outcome, or the last error outcome's error (or the interruption's), with the call's
 * result attached.
 */
export class ScriptedClient implements Client<Outcome> {
  /** Attempts sent. */
  sent = 0;
  /** The call's result, once it ended. */
  result: BackoffResult | undefined;
  readonly #answer: Answer;
  readonly #signal: AbortSignal | undefined;
  readonly #attempt: Attempt;

  /** `headers`: what every attempt is sent with (a non-idempotent request is retried only with its key there). */
  constructor(answers: readonly Outcome[] | Answer, signal?: AbortSignal, headers?: HeadersLike) {
    this.#answer =
      typeof answers === 'function'
        ? answers
        : (attempt) => answers[attempt - 1] ?? Promise.reject(new Error(`no answer for attempt ${attempt}`));
    this.#signal = signal;
    this.#attempt = { headers };
  }

  next(): Attempt {
    return this.#attempt;
  }

  send(): Promise<Outcome> {
    this.sent++;
    return Promise.resolve(this.#answer(this.sent));
  }

  outcome(settled: Settled<Outcome>): Outcome {
    if (settled.ok) return settled.value;
    const kind = this.#signal?.aborted ? 'abort' : classifyError(settled.error);
    return { type: 'error', kind, error: settled.error };
  }

  signal(): AbortSignal | undefined {
    return this.#signal;
  }

  finish(settled: Settled<Outcome>, result: BackoffResult): Outcome {
    this.result = result;
    // As an adapter does: the caller's value or error carries the result.
    if (!settled.ok) throw attachResult(settled.error, result);
    if (settled.value.type === 'error') throw attachResult(settled.value.error, result);
    return settled.value;
  }
}

/** How a scripted call ended: the caller's outcome or error, the call's result, and the attempts sent. */
export interface Ran {
  readonly outcome?: Outcome;
  readonly error?: unknown;
  readonly result: BackoffResult | undefined;
  readonly sent: number;
}

/** Runs one call on the runner, its attempts answered by `answers`; never rejects. */
export async function run(
  policy: Backoff,
  answers: readonly Outcome[] | Answer,
  request: RequestDescription = {},
  signal?: AbortSignal,
): Promise<Ran> {
  const client = new ScriptedClient(answers, signal, request.headers);
  try {
    const outcome = await runCall(policy, request, client);
    return { outcome, result: client.result, sent: client.sent };
  } catch (error) {
    return { error, result: client.result, sent: client.sent };
  }
}
