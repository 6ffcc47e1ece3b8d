export {
  type Backoff,
  type BackoffOptions,
  type BackoffResult,
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
