import { collected, VirtualClock } from '@backoff/test-utils';
import { createBackoff, RetryBudget, withBackoff } from 'backoff-core';
import type { Outcome } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';
import { run } from './support/calls.ts';

// What a call keeps in memory: one shared result for the most common call, nothing of a failed attempt while it
// waits to retry it. What the runner reads per request (the clock, the outgoing headers) is counted by the
// benchmarks' call-work measure.

describe('a request that succeeds at once', () => {
  it('credits the budget and carries one shared, frozen result', async () => {
    const budget = new RetryBudget();
    const policy = createBackoff({ budget });
    const results = [];
    for (const status of [200, 304]) {
      const { outcome, result } = await run(policy, [{ type: 'response', status }], { method: 'GET' });
      expect(outcome).toMatchObject({ status });
      results.push(result);
    }
    expect(results[0]).toEqual({
      attempts: 1,
      totalDelay: 0,
      reason: 'success',
      serverDelay: undefined,
      hedges: 0,
      hedgeWon: false,
    });
    expect(results[1]).toBe(results[0]);
    expect(Object.isFrozen(results[0])).toBe(true);
    expect(budget.snapshot().successes).toBe(2);
  });
});

describe('a request parked in its retry wait holds nothing of the failed attempt', () => {
  /**
   * Sends one request through withBackoff whose first attempt fails as `fail` says (a Response to return, or an
   * error to throw), and checks, while the retry waits, that the failed attempt's object has been collected.
   */
  async function parkedAfter(fail: () => { response: Response } | { error: Error }): Promise<void> {
    const clock = new VirtualClock();
    clock.auto = false;
    let failed: WeakRef<object> | undefined;
    let calls = 0;
    const fetchWithBackoff = withBackoff(
      async () => {
        calls++;
        if (calls > 1) return new Response('ok');
        const attempt = fail();
        if ('response' in attempt) {
          failed = new WeakRef(attempt.response);
          return attempt.response;
        }
        failed = new WeakRef(attempt.error);
        throw attempt.error;
      },
      { timers: clock.timers, now: clock.now, random: () => 0.5, budget: false },
    );
    const pending = fetchWithBackoff('https://api.test/items');
    await clock.nextWait();
    expect(await collected(failed as WeakRef<object>)).toBe(true);
    clock.advance(60_000);
    expect((await pending).status).toBe(200);
  }

  it('withBackoff lets go of the failed Response while it waits', async () => {
    await parkedAfter(() => ({ response: new Response('busy', { status: 503 }) }));
  });

  it('withBackoff lets go of the failed attempt’s error while it waits', async () => {
    const cause = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    await parkedAfter(() => ({ error: new TypeError('fetch failed', { cause }) }));
  });

  it('the runner keeps the error only when it waits for the network (the deadline may end the call with it)', async () => {
    const clock = new VirtualClock();
    clock.auto = false;
    const policy = createBackoff({ timers: clock.timers, now: clock.now, random: () => 0.5, budget: false });
    let failed: WeakRef<object> | undefined;
    const answer = (attempt: number): Outcome => {
      if (attempt > 1) return { type: 'response', status: 200 };
      const error = new Error('reset');
      failed = new WeakRef(error);
      return { type: 'error', kind: 'network', error };
    };
    const call = run(policy, answer, { method: 'GET' });
    await clock.nextWait();
    expect(await collected(failed as WeakRef<object>)).toBe(true);
    clock.advance(60_000);
    expect((await call).result).toMatchObject({ attempts: 2, reason: 'success' });
  });
});
