import { type BackoffOptions, createBackoff } from 'backoff-core';
import { type Outcome, type RequestDescription, startCall } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';
import { next } from './support/calls.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const policy = (options: BackoffOptions = {}) =>
  createBackoff({ random: () => 0.5, now: () => NOW, budget: false, ...options });
const answer = (status: number, headers: Record<string, unknown>): Outcome => ({
  type: 'response',
  status,
  headers,
});
const decide = (outcome: Outcome, request: RequestDescription = {}, options: BackoffOptions = {}) =>
  next(startCall(policy(options), { url: 'https://api.test/items', ...request }), outcome);

describe('the server says whether to retry: x-should-retry, Stripe-Should-Retry', () => {
  it.each<[string, Record<string, unknown>, number, boolean, string]>([
    ['false on a 503', { 'x-should-retry': 'false' }, 503, false, 'should-retry-header'],
    [
      'false on a 429 with Retry-After',
      { 'x-should-retry': 'false', 'retry-after': '1' },
      429,
      false,
      'should-retry-header',
    ],
    ['Stripe false on a 500', { 'Stripe-Should-Retry': 'false' }, 500, false, 'should-retry-header'],
    ['true on a 400', { 'x-should-retry': 'true' }, 400, true, 'should-retry-header'],
    [
      'Stripe true on a 409 without a key',
      { 'stripe-should-retry': 'true' },
      409,
      true,
      'should-retry-header',
    ],
    ['true on a 503 (retryable anyway)', { 'x-should-retry': 'true' }, 503, true, 'should-retry-header'],
    ['any case, spaces around', { 'X-SHOULD-RETRY': ' False ' }, 503, false, 'should-retry-header'],
    ['repeated lines that agree', { 'x-should-retry': ['true', 'true'] }, 400, true, 'should-retry-header'],
    [
      'one header says true, the other false: false wins',
      { 'x-should-retry': 'true', 'stripe-should-retry': 'false' },
      503,
      false,
      'should-retry-header',
    ],
    [
      'the other way round',
      { 'x-should-retry': 'false', 'stripe-should-retry': 'true' },
      400,
      false,
      'should-retry-header',
    ],
    [
      'a malformed one beside a good one',
      { 'x-should-retry': 'yes', 'stripe-should-retry': 'true' },
      400,
      true,
      'should-retry-header',
    ],
    ['malformed (ignored): 1', { 'x-should-retry': '1' }, 400, false, 'not-retryable-status'],
    ['malformed (ignored): empty', { 'x-should-retry': '' }, 503, true, 'status'],
    [
      'malformed (ignored): lines that disagree',
      { 'x-should-retry': ['true', 'false'] },
      503,
      true,
      'status',
    ],
    ['below 400 it is a success whatever it says', { 'x-should-retry': 'true' }, 200, false, 'success'],
    ['a 304 too', { 'x-should-retry': 'true' }, 304, false, 'success'],
  ])('%s', (_label, headers, status, retry, reason) => {
    expect(decide(answer(status, headers))).toMatchObject({ retry, reason });
  });

  it('true still waits at least the server delay, and a longer one than maxRetryAfter still stops', () => {
    expect(decide(answer(400, { 'x-should-retry': 'true', 'retry-after': '2' }))).toMatchObject({
      retry: true,
      delay: 3500,
      serverDelay: 2000,
    });
    expect(decide(answer(400, { 'x-should-retry': 'true', 'retry-after': '61' }))).toMatchObject({
      retry: false,
      reason: 'retry-after-too-long',
    });
  });

  it('true does not lift the method gate: a keyless POST is not retried', () => {
    expect(decide(answer(503, { 'x-should-retry': 'true' }), { method: 'POST' })).toMatchObject({
      retry: false,
      reason: 'method-not-idempotent',
    });
  });

  it('shouldRetry sees the header verdict and still has the last word', () => {
    const seen: boolean[] = [];
    const options: BackoffOptions = {
      shouldRetry: ({ retryable }) => {
        seen.push(retryable);
        return true;
      },
    };
    expect(decide(answer(503, { 'x-should-retry': 'false' }), {}, options)).toMatchObject({
      retry: true,
      reason: 'should-retry',
    });
    expect(seen).toEqual([false]);
  });

  it('shouldRetryHeaders: false ignores them', () => {
    const off = { shouldRetryHeaders: false };
    expect(decide(answer(503, { 'x-should-retry': 'false' }), {}, off)).toMatchObject({
      retry: true,
      reason: 'status',
    });
    expect(decide(answer(400, { 'x-should-retry': 'true' }), {}, off)).toMatchObject({
      retry: false,
      reason: 'not-retryable-status',
    });
  });

  it('the budget counts a header-retried 4xx as a failure, and a header-refused 4xx as an answer', () => {
    const backoff = createBackoff({ random: () => 0.5, now: () => NOW, budget: { reserve: 1, ratio: 0.5 } });
    next(startCall(backoff), answer(400, { 'x-should-retry': 'false' }));
    expect(backoff.budget?.snapshot()).toMatchObject({ successes: 1 });
    next(startCall(backoff), answer(400, { 'x-should-retry': 'true' }));
    expect(backoff.budget?.snapshot()).toMatchObject({ successes: 1, acquired: 1 });
  });
});
