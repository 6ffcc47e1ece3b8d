import type { BackoffOptions, ResolvedOptions } from './options/options.js';
import { resolveBudget, resolveOptions } from './options/validate.js';
import type { RetryBudget } from './run/budget.js';
import type { Policy } from './run/call.js';
import { later } from './run/later.js';
import type { Feature, FeatureSource, Strategy } from './run/roles.js';

/** A retry policy: validated options, the budget its requests share, and the features its options brought. */
export interface Backoff extends Policy {
  readonly options: ResolvedOptions;
  /** The budget shared by every request of this policy, or `undefined` when budgets are off. */
  readonly budget: RetryBudget | undefined;
  /**
   * The same policy with some options replaced (a per-request override). The budget stays shared unless
   * `overrides.budget` replaces it. Throws like `createBackoff` on bad options.
   */
  extend(overrides?: BackoffOptions): Backoff;
}

/**
 * The trace's code and `@opentelemetry/api`, imported by the first call with a `tracer` (a missing
 * `@opentelemetry/api` fails each call with an error that says so).
 */
const loadSpans = () => import('./features/tracing/spans.js').then((module) => module.spans());

/**
 * The features a policy's options bring, in the order they act: the breaker first (it may refuse a call), then
 * the pacer (it holds sends), then the metrics (they count what the others did), then the trace. Each is made by
 * the instance the user passed, so a bundle that never creates one holds none of its code; the trace's code is
 * imported only when `tracer` is set.
 */
function featuresOf(options: ResolvedOptions): Feature[] {
  const sources: FeatureSource[] = [];
  for (const source of [options.circuitBreaker, options.pacer, options.metrics]) {
    if (source !== undefined) sources.push(source);
  }
  const features = sources.map((source) => source.feature(options, sources));
  // Last: its call span ends after the others heard of the end, and it sees every hold the pacer made.
  const { tracer, redactQueryParams } = options;
  if (tracer !== undefined) features.push(later(loadSpans, (make) => make(tracer, redactQueryParams)));
  return features;
}

function make(options: ResolvedOptions, budget: RetryBudget | undefined): Backoff {
  const features = featuresOf(options);
  const strategy: Strategy | undefined = options.hedge?.strategy(options);
  const policy: Backoff = {
    options,
    budget,
    features,
    strategy,
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
