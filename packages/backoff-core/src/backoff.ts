import type { RetryBudget } from './budget.js';
import { type RequestDescription, RetryState } from './decision.js';
import type { BackoffOptions, ResolvedOptions } from './options.js';
import { resolveBudget, resolveOptions } from './validate.js';

/** A retry policy: validated options plus the budget its requests share. */
export interface Backoff {
  readonly options: ResolvedOptions;
  /** The budget shared by every request of this policy, or `undefined` when budgets are off. */
  readonly budget: RetryBudget | undefined;
  /**
   * Starts the retry state of one logical request. Throws a `CircuitOpenError` when the request's origin has an
   * open circuit (only with `circuitBreaker`): the call must fail with it, nothing sent.
   */
  start(request?: RequestDescription): RetryState;
  /**
   * The same policy with some options replaced (a per-request override). The budget stays shared unless
   * `overrides.budget` replaces it. Throws like `createBackoff` on bad options.
   */
  extend(overrides?: BackoffOptions): Backoff;
}

function make(options: ResolvedOptions, budget: RetryBudget | undefined): Backoff {
  // With a circuit breaker (which passes calls on to the metrics) or metrics, their retry state that reports to
  // them (issue 15, watch.ts): reached only through them, so a bundle that never creates either carries none of it.
  const State = (options.circuitBreaker ?? options.metrics)?.watcher(options) ?? RetryState;
  const policy: Backoff = {
    options,
    budget,
    start: (request) => new State(options, budget, request),
    extend: (overrides) => {
      if (overrides === undefined) return policy;
      const next = resolveOptions(overrides, options);
      return make(next, overrides.budget === undefined ? budget : resolveBudget(overrides.budget));
    },
  };
  return policy;
}

/**
 * Creates a retry policy (R1-R9). Options are validated here: a bad one throws a TypeError or RangeError that
 * names it. Each call creates its own budget unless `options.budget` passes one in.
 */
export function createBackoff(options?: BackoffOptions): Backoff {
  const resolved = resolveOptions(options);
  return make(resolved, resolveBudget(options?.budget));
}
