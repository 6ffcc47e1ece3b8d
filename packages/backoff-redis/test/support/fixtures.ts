import type { CircuitBreaker, Pacer } from 'backoff-core';

/** The time the tests give: stores that answer exact waits run on it (`clock: 'caller'`). */
export const T = Date.UTC(2026, 11, 2, 12);

export const LIMITS: Pacer.StoreLimits = { maxRetryAfter: 60_000, stated: undefined };

/** A spent quota for `reset` ms (2 s), then 10 per second, as a RateLimit answer says it. */
export const spent = (now: number, reset = 2000) => ({
  status: 429,
  ticket: 0,
  sentAt: now,
  serverDelay: undefined,
  remaining: 0,
  reset,
  interval: 100,
});

export const RULES: CircuitBreaker.StoreRules = {
  failureRatio: 0.5,
  minimumCalls: 20,
  window: 30_000,
  consecutiveFailures: 2,
  breakDuration: 5000,
  maxBreakDuration: 30_000,
  halfOpenProbes: 1,
};
