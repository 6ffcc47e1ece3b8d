// What users write. What an adapter author needs is in `backoff-core/adapter` (adapter.ts).
export { type Backoff, createBackoff } from './backoff.js';
export type { RetryReason, StopReason } from './decide/reasons.js';
export { parseRetryAfter } from './decide/server-timing.js';
export {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitBreakerSnapshot,
  CircuitOpenError,
  type CircuitState,
  type CircuitStateChange,
} from './features/breaker/circuit-breaker.js';
export { Hedge, type HedgeOptions } from './features/hedge.js';
export {
  BackoffMetrics,
  type BackoffMetricsOptions,
  type BackoffMetricsSnapshot,
} from './features/metrics.js';
export { Pacer } from './features/pacer/pacer.js';
export { ResumeError } from './features/resume/errors.js';
export type { ResumeOptions } from './features/resume/options.js';
export { TabStore } from './features/tab-store.js';
export { attemptAttributes } from './features/tracing/wire.js';
export { type FetchWithBackoff, withBackoff } from './fetch.js';
export {
  type BackoffOptions,
  DEFAULT_METHODS,
  DEFAULT_STATUS_CODES,
  type Jitter,
} from './options/options.js';
export { RetryBudget, type RetryBudgetOptions, type RetryBudgetSnapshot } from './run/budget.js';
export type {
  AttemptContext,
  BackoffResult,
  DelayContext,
  RetryEvent,
  ShouldRetryContext,
} from './run/events.js';
export type { NetworkStatus } from './run/offline.js';
export { getBackoffResult } from './run/result.js';
