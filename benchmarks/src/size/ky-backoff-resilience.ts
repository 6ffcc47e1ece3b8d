// kyBackoff with the opt-in circuit breaker and metrics: what the two features cost a user who uses them.
export { BackoffMetrics, CircuitBreaker, kyBackoff } from 'ky-backoff';
