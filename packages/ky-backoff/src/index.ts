export {
  type BackoffOptions,
  type BackoffResult,
  getBackoffResult,
  RetryBudget,
  type RetryBudgetOptions,
  type RetryEvent,
} from 'backoff-core';
export { kyBackoff } from './ky-backoff.js';
export type { KyBackoffOptions, KyBackoffRequestOptions, KyInstanceLike } from './types.js';
