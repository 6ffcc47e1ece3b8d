import { getBackoffResult, withBackoff } from 'backoff-core';
import { down, flaky, slow, virtualTime } from 'backoff-core/testing';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { arrivals, EXACT, server } from './support.ts';

const URL = 'http://api.test/items';
afterEach(() => vi.useRealTimers());

// A Retry-After of 30 s (retry 1), then two failures the backoff waits out (retries 2 and 3: 2 s, then 4 s), then
// the answer.
const SCRIPT = [{ status: 503, headers: { 'Retry-After': '30' } }, 503, 503, 200] as const;
const WAITED = [0, 30_000, 32_000, 36_000];

describe('virtualTime on its own clock (no fake timers)', () => {
  it('a call with three retries and a 30 s Retry-After settles at once, each request at its exact virtual time', async () => {
    const time = virtualTime();
    const api = flaky(URL, SCRIPT);
    server.use(api);
    const response = await time.run(withBackoff(fetch, { ...time.options, ...EXACT })(URL));
    expect(response.status).toBe(200);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 4, totalDelay: 36_000 });
    expect(arrivals(api.requests)).toEqual(WAITED);
    expect(time.elapsed).toBe(36_000);
    time.restore();
  });

  it('moves by itself: a plain `await` of the call needs no `run`', async () => {
    const time = virtualTime();
    const api = flaky(URL, SCRIPT);
    server.use(api);
    const response = await withBackoff(fetch, { ...time.options, ...EXACT })(URL);
    expect(response.status).toBe(200);
    expect(arrivals(api.requests)).toEqual(WAITED);
    time.restore();
  });

  it('fires timers in due order, not in the order they were set', async () => {
    const time = virtualTime();
    // The attempt's timeout (1 s) is set before the server's 500 ms answer: the answer still comes first.
    const api = slow(URL, { ms: 500 });
    server.use(api);
    const response = await time.run(withBackoff(fetch, { ...time.options, attemptTimeout: 1000 })(URL));
    expect(response.status).toBe(200);
    expect(getBackoffResult(response)?.attempts).toBe(1);
    expect(time.elapsed).toBe(500);
    time.restore();
  });

  it('an answer slower than the attempt timeout loses: the handler records the abort', async () => {
    const time = virtualTime();
    const api = slow(URL, { ms: 5000, everyNth: 1 });
    server.use(api);
    const call = withBackoff(fetch, {
      ...time.options,
      ...EXACT,
      attemptTimeout: 1000,
      retries: 1,
      baseDelay: 100,
    });
    await expect(time.run(call(URL))).rejects.toThrow('attemptTimeout (1000 ms)');
    expect(arrivals(api.requests)).toEqual([0, 1100]);
    expect(api.requests.map((r) => r.answer)).toEqual(['network-error', 'network-error']);
    expect(time.elapsed).toBe(2100);
    time.restore();
  });

  it('the same seed gives the same jitter; another seed another', async () => {
    const waits = async (seed: number) => {
      const time = virtualTime({ seed });
      const api = flaky(URL, [503, 503, 503, 200]);
      server.use(api);
      await time.run(withBackoff(fetch, time.options)(URL));
      time.restore();
      return arrivals(api.requests);
    };
    const first = await waits(7);
    expect(await waits(7)).toEqual(first);
    expect(await waits(8)).not.toEqual(first);
  });

  it('the handlers read the clock of the latest virtualTime until it is restored', async () => {
    const time = virtualTime({ start: Date.UTC(2030, 0, 1) });
    const api = flaky(URL, [200]);
    server.use(api);
    await fetch(URL);
    expect(api.requests[0]?.at).toBe(Date.UTC(2030, 0, 1));
    time.restore();
    await fetch(URL);
    expect(api.requests[1]?.at).toBeGreaterThan(Date.UTC(2020, 0, 1));
    expect(api.requests[1]?.at).toBeLessThan(Date.UTC(2030, 0, 1));
  });
});

describe("virtualTime on vitest's fake timers", () => {
  it('moves them: the call keeps the global timers and the waits are the same', async () => {
    vi.useFakeTimers();
    const time = virtualTime({ fakeTimers: vi });
    const api = flaky(URL, SCRIPT);
    server.use(api);
    const response = await time.run(withBackoff(fetch, EXACT)(URL));
    expect(response.status).toBe(200);
    expect(arrivals(api.requests)).toEqual(WAITED);
    expect(time.elapsed).toBe(36_000);
    time.restore();
  });

  it('a server down for a minute with Retry-After: 30 is waited out', async () => {
    vi.useFakeTimers();
    const time = virtualTime({ fakeTimers: vi });
    const api = down(URL, { forMs: 60_000, retryAfter: 30 });
    server.use(api);
    const response = await time.run(withBackoff(fetch, EXACT)(URL));
    expect(response.status).toBe(200);
    expect(arrivals(api.requests)).toEqual([0, 30_000, 60_000]);
    expect(api.requests.map((r) => r.answer)).toEqual([503, 503, 200]);
  });

  it('fails at once when the fake timers took the microtask queues, saying how to keep them', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'queueMicrotask'] });
    expect(() => virtualTime({ fakeTimers: vi })).toThrow(
      "the fake timers replaced queueMicrotask, on which MSW and the HTTP client run: keep them real, `jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] })`",
    );
  });
});

describe('a call that never settles fails fast, naming what it waits on', () => {
  it('a wait on the real timers: the message says to give the client the kit’s', async () => {
    const time = virtualTime({ stuckAfter: 200 });
    server.use(flaky(URL, [503, 200]));
    // The client was not given `time.options`: its 1 s wait is on timers the kit cannot move (these stand for the
    // machine's, which a unit test may not start).
    const foreign = { setTimeout: () => undefined, clearTimeout: () => {} };
    const controller = new AbortController();
    const call = withBackoff(fetch, { baseDelay: 1000, jitter: 'none', timers: foreign })(URL, {
      signal: controller.signal,
    });
    await expect(time.run(call)).rejects.toThrow(
      "backoff-core/testing: the call has not settled and nothing moved for 200 ms of real time, at +0 ms of virtual time: no timer of the kit's clock is pending (0 fired). No handler of the kit holds a request (the last answered: GET http://api.test/items at flaky() → 503). It may wait on a real timer (give the client the kit's: `{ ...time.options }`, or fake the timers and pass `fakeTimers`)",
    );
    controller.abort();
    await expect(call).rejects.toThrow('aborted');
    time.restore();
  });

  it('a server that never answers: no timer is pending', async () => {
    vi.useFakeTimers();
    const time = virtualTime({ fakeTimers: vi, stuckAfter: 200 });
    let release = () => {};
    server.use(
      http.get(
        URL,
        () => new Promise<Response>((resolve) => (release = () => resolve(HttpResponse.text('late')))),
      ),
    );
    const call = withBackoff(fetch)(URL);
    await expect(time.run(call)).rejects.toThrow(
      'nothing moved for 200 ms of real time, at +0 ms of virtual time: no fake timer is pending (getTimerCount() is 0). No handler of the kit holds a request. It may wait on a server that never answers',
    );
    release();
    expect((await call).status).toBe(200);
  });

  it('a wait longer than `limit` fails, naming the wait and when it is due', async () => {
    const time = virtualTime();
    server.use(down(URL, { forMs: 3 * 3_600_000, retryAfter: 7200 }));
    const call = withBackoff(fetch, { ...time.options, ...EXACT, maxRetryAfter: Number.POSITIVE_INFINITY })(
      URL,
    );
    await expect(time.run(call)).rejects.toThrow(
      'backoff-core/testing: the call still waits past `limit` (3600 s of virtual time): its next timer, a wait of 7200 s set at +0 ms, is due at +7200 s. If that wait is meant, raise `limit`',
    );
    time.restore();
  });
});

describe('virtualTime options', () => {
  it('names a bad option and what it got', () => {
    expect(() => virtualTime({ limit: 0 })).toThrow('Expected `limit` to be a number from 1 to');
    expect(() => virtualTime({ seed: 1.5 })).toThrow(
      'Expected `seed` to be an integer from 0 to 4294967295, got 1.5.',
    );
    expect(() => virtualTime({ fakeTimers: {} as never })).toThrow(
      "Expected `fakeTimers` to be the test framework's fake-timer controls: `vi` (vitest) or `jest`",
    );
    expect(() => virtualTime({ fakeTmers: vi } as never)).toThrow(
      'Unknown virtualTime option `fakeTmers`: did you mean `fakeTimers`?',
    );
  });
});
