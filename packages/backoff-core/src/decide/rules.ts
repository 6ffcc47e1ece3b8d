import { briefly, MAX_TIMER_DELAY } from '../options/check.js';
import type { ResolvedOptions } from '../options/options.js';
import { describeValue } from '../options/show.js';
import type { RetryKind } from '../run/budget.js';
import { computeDelay, throttlingDelayOptions } from './delay.js';
import type { RetryReason, StopReason } from './reasons.js';
import { repeatFloor, serverWait, serverWaitBound } from './server-wait.js';
import type { Verdict } from './verdict.js';

// Bundlers replace it (see options/check.ts).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/** Retry: wait `delay` ms, then send attempt `retryNumber + 1`. */
export interface RetryDecision {
  readonly retry: true;
  /** Which retry this is, 1-based. */
  readonly retryNumber: number;
  readonly delay: number;
  readonly reason: RetryReason;
  readonly serverDelay: number | undefined;
}

/** Stop: hand the caller this attempt's outcome. */
export interface StopDecision {
  readonly retry: false;
  readonly reason: StopReason;
  readonly serverDelay: number | undefined;
}

/** What the decider makes of an attempt's outcome: retry after a wait, or stop. */
export type Decision = RetryDecision | StopDecision;

/** What the rules read of the call: what is known of the request and of the attempts so far. */
export interface CallFacts {
  /** Attempts made, the one being decided included. */
  readonly attempts: number;
  /** The method is one retried without a key (`methods`). */
  readonly idempotent: boolean;
  /** The body can be sent again. */
  readonly replayable: boolean;
  /** The attempt as sent carried a usable Idempotency-Key. */
  readonly keyed: boolean;
  /** The wait before the previous retry (decorrelated jitter grows from it). */
  readonly previousDelay: number | undefined;
  /**
   * Retries that waited a delay the server asked for: they count against the deadline and `serverRetries`, not
   * `retries`.
   */
  readonly serverAsked: number;
  /** Answers that told this call to wait, the one being decided included: each widens the next wait's spread. */
  readonly told: number;
  /** When a server first asked this call to wait (clock time): without a deadline, its waits end within a bound. */
  readonly firstAsked: number | undefined;
  /** When the window of the last server-asked wait closes (clock time): the next one starts no sooner. */
  readonly windowCloses: number | undefined;
}

/** A retry the rules allow so far: the wait they compute, before the user's own `delay` and the last limits. */
export interface Planned {
  readonly retry: true;
  readonly retryNumber: number;
  readonly reason: RetryReason;
  readonly serverDelay: number | undefined;
  /** The wait the policy would use: the computed backoff, or the server's delay and its spread. */
  readonly computed: number;
  /**
   * The shortest wait allowed: the server's delay, raised to the floor on repeated asks (a wait of the user's own
   * is never shorter); `undefined` when the server asked for none.
   */
  readonly least: number | undefined;
  /** How the budget prices it: a 429 is throttling. */
  readonly kind: RetryKind;
  /** What remains of the call's time for this wait, in ms: the deadline's, or the bound on server-asked waits. */
  readonly left: number;
  /** For a server-asked wait, when its window closes (clock time). */
  readonly closes: number | undefined;
}

export const stop = (reason: StopReason, serverDelay: number | undefined): StopDecision => ({
  retry: false,
  reason,
  serverDelay,
});

/**
 * The limits after the verdict, in order: the method gate (a request that provably never left may go again
 * whatever its method), the body, `retries` (a wait the server asked for counts against the deadline and
 * `serverRetries`, not `retries`: `retries: 0` still means none), `maxRetryAfter` (for the server's delay raised to
 * the floor on repeated asks); then the wait they would use. `left` is what remains of the deadline at `now`;
 * without one, the waits a server keeps asking for end within `serverWaitBound` of the first ask. The server's
 * spread never pushes a wait past either, nor past `maxRetryAfter`.
 */
export function plan(
  verdict: Verdict,
  serverDelay: number | undefined,
  throttled: boolean,
  call: CallFacts,
  left: number,
  now: number,
  options: ResolvedOptions,
): Planned | StopDecision {
  if (!verdict.retryable) return stop(verdict.reason, serverDelay);
  if (!call.idempotent && !call.keyed && verdict.reason !== 'not-sent') {
    return stop('method-not-idempotent', serverDelay);
  }
  if (!call.replayable) return stop('body-not-replayable', serverDelay);
  const retryNumber = call.attempts;
  const own = retryNumber - call.serverAsked;
  if (serverDelay === undefined ? own > options.retries : options.retries === 0) {
    return stop('retries-exhausted', serverDelay);
  }
  if (serverDelay !== undefined && call.serverAsked >= options.serverRetries) {
    return stop('server-retries-exhausted', serverDelay);
  }
  // A server that keeps asking for "now" waits longer each time: past maxRetryAfter, as a longer delay, no retry.
  const least = serverDelay === undefined ? undefined : Math.max(serverDelay, repeatFloor(call.told));
  if (least !== undefined && least > options.maxRetryAfter) {
    return stop('retry-after-too-long', serverDelay);
  }
  const kind: RetryKind = throttled ? 'throttling' : 'transient';
  let computed: number;
  let room = left;
  let closes: number | undefined;
  if (serverDelay === undefined) {
    // A 429 without a timing header (nginx's limit_req) backs off as throttling: see throttlingDelayOptions.
    const shape = throttled ? throttlingDelayOptions(options) : options;
    // Whole milliseconds: a timer has no finer grain, and a total wait of 2274.2334405337783 ms reads badly.
    computed = Math.floor(computeDelay(retryNumber, shape, options.random, call.previousDelay));
  } else {
    // No deadline: a server that keeps asking still cannot hold the call past serverWaitBound.
    if (options.deadline === undefined) {
      room = serverWaitBound(options.maxRetryAfter) - (now - (call.firstAsked ?? now));
    }
    // The server's delay is a floor; the spread above it stays under maxRetryAfter and the deadline.
    const spread = serverWait(
      serverDelay,
      call.told,
      (call.windowCloses ?? now) - now,
      Math.min(options.maxRetryAfter, room),
      options.retryAfterSpread,
      options.random,
    );
    computed = Math.max(least as number, Math.floor(spread.wait));
    closes = now + spread.closes;
  }
  return {
    retry: true,
    retryNumber,
    reason: verdict.reason,
    serverDelay,
    computed,
    least,
    kind,
    left: room,
    closes,
  };
}

/**
 * The `delay` option's answer checked: a finite number of ms, never below `least` (the server's delay, raised to the
 * floor on repeated asks: see `Planned.least`).
 */
export function ownDelay(answer: unknown, least: number | undefined): number {
  if (typeof answer !== 'number' || !(answer >= 0) || answer > MAX_TIMER_DELAY) {
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? `Expected \`delay\` to return a number of ms from 0 to ${MAX_TIMER_DELAY}, got ${describeValue(answer)}.`
        : briefly('bad-return', 'delay', answer),
    );
  }
  // The server said when to come back: a wait of one's own may be longer, never shorter.
  return least === undefined ? answer : Math.max(answer, least);
}

/**
 * The last limits on a planned retry, once its wait is known (`delay`: the computed one, or the user's own): the
 * time left (`planned.left`), an origin whose circuit is not closed (`refused`), then the budget, which spends a
 * token only on a retry that passed every other limit.
 */
export function settle(
  planned: Planned,
  delay: number,
  refused: boolean,
  budget: { tryAcquire(kind: RetryKind): boolean } | undefined,
): Decision {
  const { retryNumber, reason, serverDelay } = planned;
  if (delay > planned.left) return stop('deadline', serverDelay);
  if (refused) return stop('circuit-open', serverDelay);
  if (budget !== undefined && !budget.tryAcquire(planned.kind)) return stop('budget-exhausted', serverDelay);
  return { retry: true, retryNumber, delay, reason, serverDelay };
}

/**
 * Whether an attempt earns the budget its credit: the server answered below 500 and the rules do not retry it (from
 * the budget's point of view the request did not fail).
 */
export function earnsCredit(verdict: Verdict, status: number | undefined): boolean {
  return !verdict.retryable && status !== undefined && status < 500;
}
