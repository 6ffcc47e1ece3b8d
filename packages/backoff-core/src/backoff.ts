import type { RetryBudget } from './budget.js';
import { type RequestDescription, RetryState } from './decision.js';
import type { HeadersLike } from './headers.js';
import type { BackoffOptions, ResolvedOptions } from './options.js';
import { resolveBudget, resolveOptions } from './validate.js';
import type { WatchedState } from './watch.js';

/** A retry policy: validated options plus the budget its requests share. */
export interface Backoff {
  readonly options: ResolvedOptions;
  /** The budget shared by every request of this policy, or `undefined` when budgets are off. */
  readonly budget: RetryBudget | undefined;
  /**
   * Starts the call of one logical request. When the core generates an Idempotency-Key for it
   * (`idempotencyKey`), `stamp(name, key)` puts the key on the outgoing request and returns the headers as they
   * will be sent: the core reads the key back from them, so a client that drops the header never makes it
   * believe a key is there. Throws a `CircuitOpenError` when the request's origin has an open circuit (only with
   * `circuitBreaker`): the call must fail with it, nothing sent.
   */
  start(request?: RequestDescription, stamp?: Stamp): RetryState;
  /**
   * The same policy with some options replaced (a per-request override). The budget stays shared unless
   * `overrides.budget` replaces it. Throws like `createBackoff` on bad options.
   */
  extend(overrides?: BackoffOptions): Backoff;
}

/** Puts the generated Idempotency-Key on the outgoing request; returns the headers as they will be sent. */
export type Stamp = (name: string, key: string) => HeadersLike | undefined | null;

function make(options: ResolvedOptions, budget: RetryBudget | undefined): Backoff {
  // The policy's watchers, in order: the breaker first (it may refuse a call), then the pacer (it holds sends),
  // then the metrics (they count it). Only a policy that has one carries the watched call class.
  const owner = options.circuitBreaker ?? options.pacer ?? options.metrics;
  const watchers = [
    options.circuitBreaker?.watcher(options),
    options.pacer?.watcher(options),
    options.metrics?.watcher(options),
  ].filter((watcher) => watcher !== undefined);
  const State = owner === undefined ? RetryState : (owner.compose(watchers) as WatchedState);
  const policy: Backoff = {
    options,
    budget,
    start: (request, stamp) => {
      const state = new State(options, budget, request);
      const key = state.idempotencyKey;
      state.sent(
        key !== undefined && stamp !== undefined
          ? stamp(options.idempotencyKeyHeader, key)
          : request?.headers,
      );
      return state;
    },
    extend: (overrides) => {
      if (overrides === undefined) return policy;
      const next = resolveOptions(overrides, options);
      return make(next, overrides.budget === undefined ? budget : resolveBudget(overrides.budget));
    },
  };
  return policy;
}

/**
 * Creates a retry policy. Options are validated here: a bad one throws a TypeError or RangeError that
 * names it. Each call creates its own budget unless `options.budget` passes one in.
 */
export function createBackoff(options?: BackoffOptions): Backoff {
  const resolved = resolveOptions(options);
  return make(resolved, resolveBudget(options?.budget));
}
