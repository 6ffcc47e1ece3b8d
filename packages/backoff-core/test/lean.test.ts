import { collected, VirtualClock } from '@backoff/test-utils';
import {
  BackoffMetrics,
  CircuitBreaker,
  createBackoff,
  firstSuccess,
  type HeadersLike,
  RetryBudget,
  startsLate,
  withBackoff,
} from 'backoff-core';
import { describe, expect, it, vi } from 'vitest';

// Issue 17: no work a request does not need on its success path, and nothing of a failed attempt held while a
// request waits to retry it. Costs themselves are measured by the benchmarks; these tests pin the behaviour.

/** Headers as a getter that counts its reads. */
function countedHeaders(values: Record<string, string> = {}) {
  const read = vi.fn((name: string) => values[name.toLowerCase()]);
  return { headers: read as HeadersLike, read };
}

describe('issue 17: a success path without needless work', () => {
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

describe('issue 17: a request that succeeds at once needs no retry state', () => {
  it('startsLate: an idempotent method without a key of its own, under a policy that tracks nothing in flight', () => {
    const policy = createBackoff({ budget: false });
    expect(startsLate(policy, { method: 'get' })).toBe(true);
    expect(startsLate(policy, {})).toBe(true);
    expect(startsLate(policy, { method: 'HEAD', headers: { Accept: 'text/plain' } })).toBe(true);
    // A key is generated for (or checked on) a non-idempotent request before it is sent.
    expect(startsLate(policy, { method: 'POST' })).toBe(false);
    // A caller's key is checked before sending, whatever the method (and it makes a 409 retryable).
    expect(startsLate(policy, { method: 'GET', headers: { 'idempotency-key': 'k-1' } })).toBe(false);
    expect(startsLate(policy, { method: 'GET', headers: { 'idempotency-key': '' } })).toBe(false);
    expect(
      startsLate(createBackoff({ idempotencyKeyHeader: 'X-Key', budget: false }), {
        method: 'GET',
        headers: { 'x-key': 'k' },
      }),
    ).toBe(false);
    expect(startsLate(createBackoff({ methods: ['POST'], budget: false }), { method: 'post' })).toBe(true);
    // Each of these acts before or during the first attempt: the state must exist from the start.
    expect(startsLate(createBackoff({ deadline: 1000 }), { method: 'GET' })).toBe(false);
    expect(startsLate(createBackoff({ shouldRetry: () => undefined }), { method: 'GET' })).toBe(false);
    expect(startsLate(createBackoff({ circuitBreaker: new CircuitBreaker() }), { method: 'GET' })).toBe(
      false,
    );
    expect(startsLate(createBackoff({ metrics: new BackoffMetrics() }), { method: 'GET' })).toBe(false);
    // A per-request override decides for itself.
    expect(startsLate(policy.extend({ deadline: 1000 }), { method: 'GET' })).toBe(false);
    expect(startsLate(policy.extend({ retries: 1 }), { method: 'GET' })).toBe(true);
  });

  it('firstSuccess: the verdict a state gives a first response below 400, the budget credited, one shared result', () => {
    const budget = new RetryBudget();
    const policy = createBackoff({ budget });
    const result = firstSuccess(policy, 200);
    expect(result).toEqual({ attempts: 1, totalDelay: 0, reason: 'success', serverDelay: undefined });
    expect(budget.snapshot().successes).toBe(1);
    // The very result a state gives such a call.
    const state = createBackoff({ budget: false }).start({ method: 'GET' });
    state.next({ type: 'response', status: 200 });
    expect(result).toEqual(state.result());
    // Shared by every such call, so frozen.
    expect(firstSuccess(policy, 304)).toBe(result);
    expect(Object.isFrozen(result)).toBe(true);
    // Anything else is decided by a state: nothing credited.
    for (const status of [400, 409, 429, 503, Number.NaN, undefined, 'x']) {
      expect(firstSuccess(policy, status)).toBeUndefined();
    }
    expect(firstSuccess(createBackoff({ statusCodes: [200, 503] }), 200)).toBeUndefined();
    expect(budget.snapshot().successes).toBe(2);
  });
});

describe('issue 17: a request parked in its retry wait holds nothing of the failed attempt', () => {
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
