// What users write. What an adapter author needs is in `backoff-core/adapter` (adapter.ts).
export { type Backoff, createBackoff } from './backoff.js';
export { RetryBudget, type RetryBudgetOptions, type RetryBudgetSnapshot } from './budget.js';
export {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitBreakerSnapshot,
  CircuitOpenError,
  type CircuitState,
  type CircuitStateChange,
} from './circuit-breaker.js';
export type {
  AttemptContext,
  BackoffResult,
  DelayContext,
  RetryEvent,
  ShouldRetryContext,
} from './events.js';
export { type FetchWithBackoff, withBackoff } from './fetch.js';
export { Hedge, type HedgeOptions } from './hedge.js';
export { BackoffMetrics, type BackoffMetricsOptions, type BackoffMetricsSnapshot } from './metrics.js';
export type { NetworkStatus } from './network.js';
export { type BackoffOptions, DEFAULT_METHODS, DEFAULT_STATUS_CODES, type Jitter } from './options.js';
export { Pacer } from './pacer.js';
export type { RetryReason, StopReason } from './reasons.js';
export { getBackoffResult } from './result.js';
export { ResumeError } from './resume/errors.js';
export type { ResumeOptions } from './resume/options.js';
export { parseRetryAfter } from './server-timing.js';
export { TabStore } from './tab-store.js';
