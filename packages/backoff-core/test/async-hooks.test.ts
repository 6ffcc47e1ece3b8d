import { VirtualClock } from '@backoff/test-utils';
import { type BackoffOptions, createBackoff } from 'backoff-core';
import { type Decision, decide, type Outcome, Stopped, startCall } from 'backoff-core/adapter';
import { describe, expect, it, vi } from 'vitest';
import { run } from './support/calls.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const REQUEST = { method: 'GET', url: 'https://api.test/items' };

function setup(options: BackoffOptions = {}) {
  const clock = new VirtualClock(NOW);
  const policy = createBackoff({
    random: () => 0.5,
    budget: false,
    timers: clock.timers,
    now: clock.now,
    ...options,
  });
  return { clock, policy, state: startCall(policy, REQUEST) };
}

const unavailable = (response: unknown = { body: 'busy' }): Outcome => ({
  type: 'response',
  status: 503,
  headers: { 'content-type': 'text/plain' },
  response,
});

const OK: Outcome = { type: 'response', status: 200 };

/** The `Stopped` a decision rejected with: why the call ended, and the error its caller gets. */
async function stoppedBy(decision: Decision | Promise<Decision>): Promise<Stopped> {
  const error = await Promise.resolve(decision).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof Stopped)) throw new Error(`Expected a Stopped, got ${String(error)}`);
  return error;
}

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
    expect(decide(setup().state, unavailable())).toMatchObject({ retry: true, delay: 500 });
    const sync = decide(setup({ shouldRetry: () => false }).state, unavailable());
    expect(sync).not.toBeInstanceOf(Promise);
    expect(sync).toMatchObject({ retry: false, reason: 'should-retry' });
  });

  it('an async shouldRetry is awaited: true, false and undefined keep their meaning', async () => {
    for (const [answer, expected] of [
      [false, { retry: false, reason: 'should-retry' }],
      [undefined, { retry: true, reason: 'status' }],
    ] as const) {
      const pending = decide(setup({ shouldRetry: async () => answer }).state, unavailable());
      expect(pending).toBeInstanceOf(Promise);
      expect(await pending).toMatchObject(expected);
    }
    const notFound: Outcome = { type: 'response', status: 404, headers: {} };
    expect(await decide(setup({ shouldRetry: async () => true }).state, notFound)).toMatchObject({
      retry: true,
      reason: 'should-retry',
    });
  });

  it("gets the client's own response object and the headers, so a condition can read the body", async () => {
    const clientResponse = { data: { code: 'try-later' } };
    const shouldRetry = vi.fn(async ({ response }: { response: unknown }) => {
      return (response as typeof clientResponse).data.code === 'try-later';
    });
    const decision = await decide(setup({ shouldRetry }).state, unavailable(clientResponse));
    expect(decision).toMatchObject({ retry: true });
    expect(shouldRetry.mock.calls[0]?.[0]).toMatchObject({
      status: 503,
      response: clientResponse,
      headers: { 'content-type': 'text/plain' },
    });
  });

  it('a rejection ends the decision with that error', async () => {
    const boom = new Error('condition failed');
    const { state } = setup({ shouldRetry: () => Promise.reject(boom) });
    const stopped = await stoppedBy(decide(state, unavailable()));
    expect(stopped).toMatchObject({ reason: 'callback-error' });
    expect(stopped.error).toBe(boom);
    expect(state.result()).toMatchObject({ attempts: 1, reason: 'callback-error' });
  });

  it('an abort while it runs rejects at once with the reason; the call stops as aborted', async () => {
    const answer = deferred<boolean>();
    const { state } = setup({ shouldRetry: () => answer.promise });
    const controller = new AbortController();
    const pending = decide(state, unavailable(), controller.signal) as Promise<Decision>;
    const reason = new Error('user left');
    controller.abort(reason);
    const stopped = await stoppedBy(pending);
    expect(stopped).toMatchObject({ reason: 'aborted' });
    expect(stopped.error).toBe(reason);
    expect(state.result()).toMatchObject({ attempts: 1, reason: 'aborted' });
    // Its later rejection is handled: no unhandled rejection (vitest would fail the run).
    answer.reject(new Error('too late'));
    await Promise.resolve();
  });
});

describe('onRetry may return a Promise, awaited before the wait starts', () => {
  it('the wait starts only once it resolves', async () => {
    const hook = deferred<void>();
    const { clock, policy } = setup({ onRetry: () => hook.promise });
    const call = run(policy, [unavailable(), OK], REQUEST);
    await new Promise((resolve) => setImmediate(resolve));
    expect(clock.waits).toEqual([]);
    hook.resolve();
    const { result } = await call;
    expect(clock.waits).toEqual([500]);
    expect(result?.totalDelay).toBe(500);
  });

  it('a rejection ends the call with that error and sets no timer', async () => {
    const boom = new Error('token refresh failed');
    const { clock, policy } = setup({ onRetry: async () => Promise.reject(boom) });
    const { error, result } = await run(policy, [unavailable(), OK], REQUEST);
    expect(error).toBe(boom);
    expect(result?.reason).toBe('callback-error');
    expect(clock.waits).toEqual([]);
  });

  it('an abort while it runs rejects at once, sets no timer, and its late rejection is handled', async () => {
    const hook = deferred<void>();
    const { clock, policy } = setup({ onRetry: () => hook.promise });
    const controller = new AbortController();
    const call = run(policy, [unavailable(), OK], REQUEST, controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const { error, result } = await call;
    expect(error).toBe(controller.signal.reason);
    expect(clock.waits).toEqual([]);
    expect(result).toMatchObject({ reason: 'aborted', totalDelay: 0 });
    hook.reject(new Error('too late'));
    await Promise.resolve();
  });
});

describe('an abort during a wait reports reason aborted', () => {
  it('result().reason is aborted, not the reason of the retry that was waiting', async () => {
    const { clock, policy } = setup();
    clock.auto = false;
    const controller = new AbortController();
    const throttled: Outcome = { type: 'response', status: 429, headers: { 'retry-after': '2' } };
    const call = run(policy, [throttled, OK], REQUEST, controller.signal);
    await clock.nextWait();
    clock.advance(100);
    controller.abort();
    const { error, result } = await call;
    expect(error).toBe(controller.signal.reason);
    expect(result).toStrictEqual({
      attempts: 1,
      totalDelay: 100,
      reason: 'aborted',
      serverDelay: 2000,
      hedges: 0,
      hedgeWon: false,
    });
  });
});
