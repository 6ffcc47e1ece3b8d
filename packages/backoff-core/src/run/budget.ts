import { type Check, checked, range } from '../options/check.js';

/** Options of a `RetryBudget`. */
export interface RetryBudgetOptions {
  /**
   * Retries that may be spent in a burst, with no successes at all: the bucket's size, and its content at start.
   * @default 20
   */
  reserve?: number | undefined;
  /**
   * Retries earned by each success: a sustained retry rate of at most `ratio` x the successful requests.
   * @default 0.1
   */
  ratio?: number | undefined;
  /**
   * What a retry after a throttling answer (a 429) costs, in retries: a throttled client that waits as told is
   * pacing itself, not hammering a failing server. The AWS SDK's retry quota charges 5 tokens for a throttling
   * retry against 14 for a transient one, so the default is 5/14 (about 0.357: 56 throttled retries in a full
   * bucket of 20).
   * @default 5 / 14
   */
  throttlingCost?: number | undefined;
}

/**
 * What a retry is for, as the budget prices it: a transient failure (1 retry), a throttling answer, or a hedge
 * (a second copy of a slow request: 1 retry, so that hedges and retries together stay within the budget).
 */
export type RetryKind = 'transient' | 'throttling' | 'hedge';

/** Counters of a budget, for logs and tests. Tokens are in retries (1 token = one retry). */
export interface RetryBudgetSnapshot {
  readonly tokens: number;
  readonly capacity: number;
  readonly acquired: number;
  readonly refused: number;
  readonly successes: number;
}

// Tokens are kept as integers of 1/SCALE retry, so that adding 0.1 ten thousand times is exact and the
// accounting can be checked to the unit (no floating-point drift, never a negative balance).
const SCALE = 1000;

const share = range(1);
const CHECKS: Readonly<Record<keyof RetryBudgetOptions, Check>> = {
  reserve: range(1e9, 0, 'an integer', ': for no budget, write `budget: false`'),
  ratio: share,
  throttlingCost: share,
};

const NOT_BUDGET = '`budget` to be a RetryBudget, RetryBudget options or false';

/** The `budget` option's check: `false`, a RetryBudget (of any copy of this package), or valid options for one. */
export const checkBudget: Check = (value) => {
  if (value !== false && !isRetryBudget(value)) checked(value, CHECKS, 'budget', NOT_BUDGET, 'budget.');
  return value;
};

/**
 * A token bucket that caps retries at a fraction of successes: each success adds `ratio` tokens, each retry
 * takes one (a retry after a 429 takes `throttlingCost`), up to `reserve` tokens. Under total failure only
 * `reserve` retries are ever made (load ~1x); with a few random failures the bucket stays full and every failure
 * gets its retries. This is the SRE book's 10% per-client rule as a bucket (Marc Brooker's 0.1-per-success
 * variant; gRPC's throttling is the same shape), with the AWS SDK's cheaper price for throttling retries.
 * Share one instance between clients to give them one budget.
 */
export class RetryBudget {
  readonly #capacity: number;
  readonly #credit: number;
  readonly #throttlingCost: number;
  #tokens: number;
  #acquired = 0;
  #refused = 0;
  #successes = 0;

  constructor(options: RetryBudgetOptions = {}) {
    const { reserve, ratio, throttlingCost } = {
      reserve: 20,
      ratio: 0.1,
      throttlingCost: 5 / 14,
      ...checked(options, CHECKS, 'budget', NOT_BUDGET, 'budget.'),
    } as Record<keyof RetryBudgetOptions, number>;
    this.#capacity = reserve * SCALE;
    this.#throttlingCost = Math.round(throttlingCost * SCALE);
    this.#credit = Math.round(ratio * SCALE);
    this.#tokens = this.#capacity;
  }

  /**
   * Takes what one retry of this kind costs (1 token, or `throttlingCost` for a throttling answer); `false` (and
   * nothing taken) when there is not enough.
   */
  tryAcquire(kind: RetryKind = 'transient'): boolean {
    const cost = kind === 'throttling' ? this.#throttlingCost : SCALE;
    if (this.#tokens < cost) {
      this.#refused++;
      return false;
    }
    this.#tokens -= cost;
    this.#acquired++;
    return true;
  }

  /** Records a request that the server answered without a retryable failure. */
  recordSuccess(): void {
    this.#successes++;
    this.#tokens = Math.min(this.#capacity, this.#tokens + this.#credit);
  }

  /** Whole retries available now. */
  get available(): number {
    return Math.floor(this.#tokens / SCALE);
  }

  snapshot(): RetryBudgetSnapshot {
    return {
      tokens: this.#tokens / SCALE,
      capacity: this.#capacity / SCALE,
      acquired: this.#acquired,
      refused: this.#refused,
      successes: this.#successes,
    };
  }
}

/** Matches budgets from another copy of this package too (duck typing, not `instanceof`). */
export function isRetryBudget(value: unknown): value is RetryBudget {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as RetryBudget).tryAcquire === 'function' &&
    typeof (value as RetryBudget).recordSuccess === 'function'
  );
}
