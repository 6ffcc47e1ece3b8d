import * as main from 'backoff-core';
import * as adapter from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';

describe('the public surface', () => {
  it('the main entry holds what users write, and nothing an adapter alone needs', () => {
    expect(Object.keys(main).sort()).toEqual([
      'BackoffMetrics',
      'CircuitBreaker',
      'CircuitOpenError',
      'DEFAULT_METHODS',
      'DEFAULT_STATUS_CODES',
      'Pacer',
      'RetryBudget',
      'createBackoff',
      'getBackoffResult',
      'parseRetryAfter',
      'withBackoff',
    ]);
  });

  it('`backoff-core/adapter` holds the call object, its loop, outcomes and the result attached to what callers get', () => {
    expect(Object.keys(adapter).sort()).toEqual([
      'DEFAULTS',
      'RetryState',
      'attachResult',
      'classifyError',
      'classifyNetworkFailure',
      'fetchRedirected',
      'field',
      'headerGetter',
      'isRetryBudget',
      'parseHttpDate',
      'replayableBody',
      'sendAttempts',
      'sleep',
    ]);
  });
});
