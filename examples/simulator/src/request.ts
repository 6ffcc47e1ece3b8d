import {
  type Call,
  type Decision,
  decide,
  type Outcome,
  type RetryDecision,
  type StopDecision,
} from 'backoff-core/adapter';
import type { EventQueue } from './event-queue.js';
import type { Random } from './rng.js';

/** One attempt in flight: call `respond` (from a later event) with how it ended. */
export type Attempt = (respond: (outcome: Outcome) => void) => void;

export interface RequestHooks {
  /** Called with each decision to retry, before its wait is scheduled. */
  readonly onRetry?: ((decision: RetryDecision) => void) | undefined;
  /** Called exactly once, when the core decides to stop (on success or on giving up). */
  readonly onFinish: (decision: StopDecision, outcome: Outcome) => void;
}

/**
 * Drives one logical request the way an adapter does, but in virtual time: send an attempt, hand its outcome to
 * the core's `decide`, and either schedule the next attempt after the decision's delay or stop. The wait is an
 * event in the queue rather than the runner's timer, so a simulated minute takes microseconds; every delay, limit
 * and budget check is the core's own. `call` comes from `startCall(policy, request)`.
 */
export function drive(queue: EventQueue, call: Call, attempt: Attempt, hooks: RequestHooks): void {
  const send = (): void => {
    attempt((outcome) => {
      const decision: Decision | Promise<Decision> = decide(call, outcome);
      // The simulated clients have no shouldRetry: the core decides at once.
      if (decision instanceof Promise) throw new TypeError('Expected a decision at once, got a Promise.');
      if (decision.retry) {
        hooks.onRetry?.(decision);
        queue.after(decision.delay, send);
      } else {
        hooks.onFinish(decision, outcome);
      }
    });
  };
  send();
}

/**
 * A network between client and server: each message (request or response) takes |N(delay, (0.2 x delay)^2)| ms,
 * the model of the AWS blog's own simulator (mean 10 ms, sd 2 ms there), so a round trip averages 2 x `delay`
 * and nothing arrives in perfect lockstep.
 */
export class Network {
  readonly #queue: EventQueue;
  readonly #random: Random;
  readonly #mean: number;
  #spare: number | undefined;

  constructor(queue: EventQueue, delay: number, random: Random) {
    this.#queue = queue;
    this.#random = random;
    this.#mean = delay;
  }

  /** The time one message takes, drawn now. */
  leg(): number {
    return Math.abs(this.#mean + 0.2 * this.#mean * this.#gaussian());
  }

  /** A standard normal draw (Box-Muller: two uniforms give two normals; the second is kept for the next call). */
  #gaussian(): number {
    if (this.#spare !== undefined) {
      const spare = this.#spare;
      this.#spare = undefined;
      return spare;
    }
    // 1 - u keeps the logarithm's argument in (0, 1].
    const radius = Math.sqrt(-2 * Math.log(1 - this.#random()));
    const angle = 2 * Math.PI * this.#random();
    this.#spare = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  }

  /**
   * Sends a request: `handle` runs when it reaches the server (at that virtual time) and returns the reply,
   * which reaches `respond` one leg later.
   */
  call<T>(handle: (now: number) => T, respond: (reply: T) => void): void {
    this.#queue.after(this.leg(), () => {
      const reply = handle(this.#queue.now);
      this.#queue.after(this.leg(), () => respond(reply));
    });
  }
}

export const OK: Outcome = Object.freeze({ type: 'response', status: 200, headers: {} });

/** A response outcome with the given status and headers. */
export function response(status: number, headers: Readonly<Record<string, string>> = {}): Outcome {
  return { type: 'response', status, headers };
}
