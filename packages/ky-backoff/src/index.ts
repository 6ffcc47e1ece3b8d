export {
  attemptAttributes,
  BackoffMetrics,
  type BackoffMetricsOptions,
  type BackoffMetricsSnapshot,
  type BackoffOptions,
  type BackoffResult,
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitBreakerSnapshot,
  CircuitOpenError,
  type CircuitState,
  type CircuitStateChange,
  getBackoffResult,
  Hedge,
  type HedgeOptions,
  Pacer,
  ResumeError,
  RetryBudget,
  type RetryBudgetOptions,
  type RetryEvent,
} from 'backoff-core';
export { RetriedResponseError } from './call.js';
export { kyBackoff } from './ky-backoff.js';
export type { KyBackoffOptions, KyBackoffRequestOptions, KyInstanceLike } from './types.js';
