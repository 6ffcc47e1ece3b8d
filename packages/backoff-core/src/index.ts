export { type Attempts, type Settled, sendAttempts } from './attempts.js';
export { type Backoff, createBackoff, type Stamp } from './backoff.js';
export {
  isRetryBudget,
  RetryBudget,
  type RetryBudgetOptions,
  type RetryBudgetSnapshot,
  type RetryKind,
} from './budget.js';
export {
  CircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitBreakerSnapshot,
  CircuitOpenError,
  type CircuitSnapshot,
  type CircuitState,
  type CircuitStateChange,
} from './circuit-breaker.js';
export {
  type Decision,
  type RequestDescription,
  type RetryDecision,
  RetryState,
  type StopDecision,
} from './decision.js';
export {
  computeDelay,
  type DelayOptions,
  exponentialDelay,
  serverDelayWithJitter,
  THROTTLING_BASE_DELAY,
  throttlingDelayOptions,
} from './delay.js';
export type { BackoffResult, RetryEvent, ShouldRetryContext } from './events.js';
export { type BackoffRequestInit, type FetchLike, type FetchWithBackoff, withBackoff } from './fetch.js';
export { type HeaderGetter, type HeadersLike, headerGetter } from './headers.js';
export { parseHttpDate } from './http-date.js';
export {
  BackoffMetrics,
  type BackoffMetricsOptions,
  type BackoffMetricsSnapshot,
  type MeterLike,
} from './metrics.js';
export { browserNetworkStatus, type NetworkStatus } from './network.js';
export { fetchRedirected } from './not-sent.js';
export {
  type BackoffOptions,
  DEFAULT_METHODS,
  DEFAULT_STATUS_CODES,
  DEFAULTS,
  type Jitter,
  type OnRetry,
  type ResolvedOptions,
  type ShouldRetry,
} from './options.js';
export { classifyError, classifyNetworkFailure, type ErrorKind, type Outcome } from './outcome.js';
export type { RetryReason, StopReason } from './reasons.js';
export { attachResult, getBackoffResult } from './result.js';
export { parseRetryAfter } from './server-timing.js';
export { abortReason, defaultTimers, sleep, type TimerProvider } from './sleep.js';
export { MAX_TIMER_DELAY } from './validate.js';
export type { CallWatcher, Watchable, WatchedState } from './watch.js';
