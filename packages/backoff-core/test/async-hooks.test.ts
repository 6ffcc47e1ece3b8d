import { VirtualClock } from '@backoff/test-utils';
import { type BackoffOptions, createBackoff, RetryBudget } from 'backoff-core';
import type { Decision, Outcome } from 'backoff-core/adapter';
import { describe, expect, it, vi } from 'vitest';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);

function setup(options: BackoffOptions = {}) {
  const clock = new VirtualClock(NOW);
  const policy = createBackoff({
    random: () => 0.5,
    budget: false,
    timers: clock.timers,
    now: clock.now,
    ...options,
  });
  return { clock, state: policy.start({ method: 'GET', url: 'https://api.test/items' }) };
}

const unavailable = (response: unknown = { body: 'busy' }): Outcome => ({
  type: 'response',
  status: 503,
  headers: { 'content-type': 'text/plain' },
  response,
});

/** A promise with its resolve/reject handles. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('shouldRetry may return a Promise and sees the client response', () => {
  it('decide() returns a Decision at once when there is no shouldRetry, or when it answers synchronously', () => {
    expect(setup().state.decide(unavailable())).toMatchObject({ retry: true, delay: 500 });
    const sync = setup({ shouldRetry: () => false }).state.decide(unavailable());
    expect(sync).not.toBeInstanceOf(Promise);
    expect(sync).toMatchObject({ retry: false, reason: 'should-retry' });
  });

  it('an async shouldRetry is awaited: true, false and undefined keep their meaning', async () => {
    for (const [answer, expected] of [
      [false, { retry: false, reason: 'should-retry' }],
      [undefined, { retry: true, reason: 'status' }],
    ] as const) {
      const pending = setup({ shouldRetry: async () => answer }).state.decide(unavailable());
      expect(pending).toBeInstanceOf(Promise);
      expect(await pending).toMatchObject(expected);
    }
    const notFound: Outcome = { type: 'response', status: 404, headers: {} };
    expect(await setup({ shouldRetry: async () => true }).state.decide(notFound)).toMatchObject({
      retry: true,
      reason: 'should-retry',
    });
  });

  it("gets the client's own response object and the headers, so a condition can read the body", async () => {
    const clientResponse = { data: { code: 'try-later' } };
    const shouldRetry = vi.fn(async ({ response }: { response: unknown }) => {
      return (response as typeof clientResponse).data.code === 'try-later';
    });
    const decision = await setup({ shouldRetry }).state.decide(unavailable(clientResponse));
    expect(decision).toMatchObject({ retry: true });
    expect(shouldRetry.mock.calls[0]?.[0]).toMatchObject({
      status: 503,
      response: clientResponse,
      headers: { 'content-type': 'text/plain' },
    });
  });

  it('a rejection ends the decision with that error', async () => {
    const boom = new Error('condition failed');
    await expect(setup({ shouldRetry: () => Promise.reject(boom) }).state.decide(unavailable())).rejects.toBe(
      boom,
    );
  });

  it('an abort while it runs rejects at once with the reason; the call stops as aborted', async () => {
    const answer = deferred<boolean>();
    const { state } = setup({ shouldRetry: () => answer.promise });
    const controller = new AbortController();
    const pending = state.decide(unavailable(), controller.signal) as Promise<Decision>;
    const reason = new Error('user left');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(state.result()).toMatchObject({ attempts: 1, reason: 'aborted' });
    // Its later rejection is handled: no unhandled rejection (vitest would fail the run).
    answer.reject(new Error('too late'));
    await Promise.resolve();
  });

  it('next() stays synchronous: a Promise from shouldRetry is a TypeError naming decide(), never unhandled', async () => {
    const { state } = setup({ shouldRetry: () => Promise.reject(new Error('never seen')) });
    expect(() => state.next(unavailable())).toThrow(
      new TypeError('`shouldRetry` returned a Promise: use `decide()`, not `next()`.'),
    );
    await Promise.resolve();
  });

  it('next() with a Promise from shouldRetry spends nothing: no budget taken, no retry recorded', async () => {
    const budget = new RetryBudget({ reserve: 1 });
    const state = createBackoff({ budget, shouldRetry: async () => true }).start();
    expect(() => state.next(unavailable())).toThrow(TypeError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(budget.snapshot()).toMatchObject({ tokens: 1, acquired: 0 });
  });
});

describe('onRetry may return a Promise, awaited before the wait starts', () => {
  it('the wait starts only once it resolves', async () => {
    const hook = deferred<void>();
    const { clock, state } = setup({ onRetry: () => hook.promise });
    const decision = state.next(unavailable());
    if (!decision.retry) throw new Error('expected a retry');
    const waiting = state.wait(decision);
    await new Promise((resolve) => setImmediate(resolve));
    expect(clock.waits).toEqual([]);
    hook.resolve();
    await waiting;
    expect(clock.waits).toEqual([500]);
    expect(state.totalDelay).toBe(500);
  });

  it('a rejection ends the call with that error and sets no timer', async () => {
    const boom = new Error('token refresh failed');
    const { clock, state } = setup({ onRetry: async () => Promise.reject(boom) });
    const decision = state.next(unavailable());
    if (!decision.retry) throw new Error('expected a retry');
    await expect(state.wait(decision)).rejects.toBe(boom);
    expect(clock.waits).toEqual([]);
  });

  it('an abort while it runs rejects at once, sets no timer, and its late rejection is handled', async () => {
    const hook = deferred<void>();
    const { clock, state } = setup({ onRetry: () => hook.promise });
    const decision = state.next(unavailable());
    if (!decision.retry) throw new Error('expected a retry');
    const controller = new AbortController();
    const waiting = state.wait(decision, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBe(controller.signal.reason);
    expect(clock.waits).toEqual([]);
    expect(state.result()).toMatchObject({ reason: 'aborted', totalDelay: 0 });
    hook.reject(new Error('too late'));
    await Promise.resolve();
  });
});

describe('an abort during a wait reports reason aborted', () => {
  it('result().reason is aborted, not the reason of the retry that was waiting', async () => {
    const { clock, state } = setup();
    clock.auto = false;
    const decision = state.next({ type: 'response', status: 429, headers: { 'retry-after': '2' } });
    if (!decision.retry) throw new Error('expected a retry');
    const controller = new AbortController();
    const waiting = state.wait(decision, controller.signal);
    clock.advance(100);
    controller.abort();
    await expect(waiting).rejects.toBe(controller.signal.reason);
    expect(state.result()).toStrictEqual({
      attempts: 1,
      totalDelay: 100,
      reason: 'aborted',
      serverDelay: 2000,
      hedges: 0,
      hedgeWon: false,
    });
  });
});
