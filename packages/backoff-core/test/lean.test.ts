import { collected, VirtualClock } from '@backoff/test-utils';
import { createBackoff, RetryBudget, withBackoff } from 'backoff-core';
import type { HeadersLike } from 'backoff-core/adapter';
import { describe, expect, it, vi } from 'vitest';

// No work a request does not need on its success path, and nothing of a failed attempt held while a
// request waits to retry it. Costs themselves are measured by the benchmarks; these tests pin the behaviour.

/** Headers as a getter that counts its reads. */
function countedHeaders(values: Record<string, string> = {}) {
  const read = vi.fn((name: string) => values[name.toLowerCase()]);
  return { headers: read as HeadersLike, read };
}

describe('a success path without needless work', () => {
  it('the clock is not read for a request with no deadline', () => {
    const now = vi.fn(() => 0);
    const state = createBackoff({ now, budget: false }).start({ method: 'GET' });
    state.sent(undefined);
    expect(state.next({ type: 'response', status: 200 })).toMatchObject({ retry: false, reason: 'success' });
    expect(now).not.toHaveBeenCalled();
    // With a deadline the start is timed, as before.
    createBackoff({ now, budget: false, deadline: 1000 }).start({ method: 'GET' });
    expect(now).toHaveBeenCalledTimes(1);
  });

  it("an idempotent request's outgoing headers are read only when a 409 asks", () => {
    const policy = createBackoff({ random: () => 0.5, budget: false });
    const success = policy.start({ method: 'GET' });
    const sent = countedHeaders({ 'idempotency-key': 'k-1' });
    success.sent(sent.headers);
    success.next({ type: 'response', status: 200 });
    expect(sent.read).not.toHaveBeenCalled();

    // A 409 retries only a request that carried a key: now the headers are read, once.
    const conflict = policy.start({ method: 'GET' });
    conflict.sent(sent.headers);
    expect(conflict.next({ type: 'response', status: 409 })).toMatchObject({
      retry: true,
      reason: 'idempotency-conflict',
    });
    expect(sent.read).toHaveBeenCalledTimes(1);
    conflict.sent(countedHeaders().headers);
    expect(conflict.next({ type: 'response', status: 409 })).toMatchObject({
      retry: false,
      reason: 'not-retryable-status',
    });
    expect(sent.read).toHaveBeenCalledTimes(1);

    // A POST needs its key on every retry: read when reported, as before.
    const post = policy.start({ method: 'POST' });
    const posted = countedHeaders({ 'idempotency-key': 'k-2' });
    post.sent(posted.headers);
    expect(posted.read).toHaveBeenCalledTimes(1);
    expect(post.next({ type: 'response', status: 503 })).toMatchObject({ retry: true });
  });
});

describe('a request that succeeds at once', () => {
  it('credits the budget and carries one shared, frozen result', () => {
    const budget = new RetryBudget();
    const policy = createBackoff({ budget });
    const results = [200, 304].map((status) => {
      const state = policy.start({ method: 'GET' });
      expect(state.next({ type: 'response', status })).toMatchObject({ retry: false, reason: 'success' });
      return state.result();
    });
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

  it('RetryState.wait keeps the error only when it waits for the network (the deadline may end the call with it)', async () => {
    const clock = new VirtualClock();
    clock.auto = false;
    const policy = createBackoff({ timers: clock.timers, now: clock.now, random: () => 0.5, budget: false });
    const state = policy.start({ method: 'GET' });
    let error: Error | undefined = new Error('reset');
    const ref = new WeakRef(error);
    const decision = state.next({ type: 'error', kind: 'network', error });
    error = undefined;
    if (!decision.retry) throw new Error('Expected a retry');
    const waiting = state.wait(decision);
    expect(await collected(ref)).toBe(true);
    clock.advance(60_000);
    await waiting;
  });
});
