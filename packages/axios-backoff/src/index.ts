export {
  type Backoff,
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
  DEFAULT_METHODS,
  DEFAULT_STATUS_CODES,
  getBackoffResult,
  type Jitter,
  RetryBudget,
  type RetryBudgetOptions,
  type RetryEvent,
  type ShouldRetryContext,
} from 'backoff-core';
export { axiosBackoff, type RemoveBackoff } from './install.js';
export type { AxiosBackoffOptions } from './types.js';
