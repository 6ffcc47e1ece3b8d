import { VirtualClock } from '@backoff/test-utils';
import {
  BackoffMetrics,
  type BackoffOptions,
  type BackoffResult,
  CircuitBreaker,
  createBackoff,
  Hedge,
  type HedgeOptions,
  Pacer,
  RetryBudget,
} from 'backoff-core';
import { type Client, classifyError, runCall, type Settled } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';
import { ResponseTimes, settlesRace } from '../src/features/hedge.js';

type Answer = { status: number; copy: number };

/** One copy sent by the fake client: its signal, and how the test answers it. */
interface SentCopy {
  readonly signal: AbortSignal | undefined;
  readonly headers: Record<string, string>;
  answer(status: number): void;
  fail(error: unknown): void;
}

/**
 * A client whose every send is answered by the test; a copy rejects with its signal's reason when aborted, as
 * fetch and axios do.
 */
function fakeClient(headers: Record<string, string> = {}, caller?: AbortSignal) {
  const sent: SentCopy[] = [];
  const discarded: Settled<Answer>[] = [];
  const attempts: Client<Answer> = {
    next: () => ({ headers }),
    send(_attempt, signal) {
      const copy = sent.length + 1;
      return new Promise<Answer>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        sent.push({
          signal,
          headers: { ...headers },
          answer: (status) => resolve({ status, copy }),
          fail: reject,
        });
      });
    },
    outcome: (settled) =>
      settled.ok
        ? { type: 'response', status: settled.value.status }
        : {
            type: 'error',
            kind: caller?.aborted ? 'abort' : classifyError(settled.error),
            error: settled.error,
          },
    signal: () => caller,
    discard: (settled) => void discarded.push(settled),
    finish(settled, result) {
      if (settled.ok) return { ...settled.value, result } as Answer;
      throw Object.assign(new Error('failed'), { cause: settled.error, result });
    },
  };
  return { sent, discarded, attempts };
}

/** Lets every promise callback run (virtual time does not move). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The result a call's answer carries (the fake client's `finish` puts it there). */
const resultOf = async (answer: Promise<unknown>) =>
  ((await answer) as Answer & { result: BackoffResult }).result;

function setup(options: BackoffOptions = {}, request: { method?: string; replayable?: boolean } = {}) {
  const clock = new VirtualClock();
  clock.auto = false;
  const policy = createBackoff({
    hedge: new Hedge({ delay: 50 }),
    random: () => 0,
    baseDelay: 100,
    now: clock.now,
    timers: clock.timers,
    ...options,
  });
  return { clock, policy, request };
}

const GET = { method: 'GET', url: 'https://api.test/items' };
const networkError = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });

describe('a hedged attempt: the first answer wins', () => {
  it('sends a copy after the delay; the first success wins, the loser is aborted and its late answer dropped', async () => {
    const { clock, policy } = setup();
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    expect(client.sent).toHaveLength(1);
    clock.advance(49);
    await settle();
    expect(client.sent).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(client.sent).toHaveLength(2);
    client.sent[1]?.answer(200);
    const answer = (await done) as Answer & { result: BackoffResult };
    expect(answer).toMatchObject({ status: 200, copy: 2 });
    expect(answer.result).toMatchObject({ attempts: 1, hedges: 1, hedgeWon: true, reason: 'success' });
    expect(client.sent[0]?.signal?.aborted).toBe(true);
    expect(client.sent[1]?.signal?.aborted).toBe(false);
    // The loser's late answer: discarded, never reported.
    await settle();
    expect(client.discarded).toEqual([{ ok: false, error: client.sent[0]?.signal?.reason }]);
    expect(clock.pendingCount).toBe(0);
  });

  it('the first copy answering before the delay sends no hedge and leaves no timer', async () => {
    const { clock, policy } = setup();
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    client.sent[0]?.answer(200);
    const answer = (await done) as Answer & { result: BackoffResult };
    expect(answer.result).toMatchObject({ hedges: 0, hedgeWon: false });
    expect(clock.pendingCount).toBe(0);
    clock.advance(1000);
    expect(client.sent).toHaveLength(1);
  });

  it('a retryable failure of one copy waits for the copy still in flight', async () => {
    const { clock, policy } = setup();
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    clock.advance(50);
    await settle();
    client.sent[0]?.answer(503);
    await settle();
    expect(client.sent[1]?.signal?.aborted).toBe(false);
    expect(client.discarded).toEqual([{ ok: true, value: { status: 503, copy: 1 } }]);
    client.sent[1]?.answer(200);
    const answer = (await done) as Answer & { result: BackoffResult };
    expect(answer).toMatchObject({ status: 200, copy: 2 });
    expect(answer.result).toMatchObject({ attempts: 1, hedges: 1, hedgeWon: true });
  });

  it('a final failure (404) wins at once and aborts the other copy', async () => {
    const { clock, policy } = setup();
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    clock.advance(50);
    await settle();
    client.sent[1]?.answer(404);
    const answer = (await done) as Answer & { result: BackoffResult };
    expect(answer).toMatchObject({ status: 404, copy: 2 });
    expect(answer.result).toMatchObject({ reason: 'not-retryable-status', hedgeWon: true });
    expect(client.sent[0]?.signal?.aborted).toBe(true);
  });

  it('when every copy failed, the last failure is the attempt and the normal retry follows', async () => {
    const { clock, policy } = setup({ retries: 1 });
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    clock.advance(50);
    await settle();
    client.sent[0]?.answer(503);
    await settle();
    client.sent[1]?.fail(networkError());
    await settle();
    // The retry's wait (random 0: a 0 ms wait under full jitter), then attempt 2 and its own hedge.
    clock.advance(0);
    await settle();
    expect(client.sent).toHaveLength(3);
    client.sent[2]?.answer(200);
    const answer = (await done) as Answer & { result: BackoffResult };
    expect(answer.result).toMatchObject({ attempts: 2, hedges: 1, hedgeWon: false, reason: 'success' });
  });

  it('sends up to `max` hedges, each `delay` after the previous copy', async () => {
    const { clock, policy } = setup({ hedge: new Hedge({ delay: 20, max: 2 }) });
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    for (const expected of [1, 2, 3, 3]) {
      await settle();
      expect(client.sent).toHaveLength(expected);
      clock.advance(20);
    }
    client.sent[2]?.answer(200);
    const answer = (await done) as Answer & { result: BackoffResult };
    expect(answer.result).toMatchObject({ hedges: 2, hedgeWon: true });
    expect(client.sent.map((copy) => copy.signal?.aborted)).toEqual([true, true, false]);
  });

  it('the race verdict: a retryable failure settles only when no other copy is in flight', () => {
    expect(settlesRace(false, 1)).toBe(true);
    expect(settlesRace(true, 1)).toBe(false);
    expect(settlesRace(true, 0)).toBe(true);
  });
});

describe('every limit still holds for a hedge', () => {
  it('each hedge takes a budget token; an empty budget sends none', async () => {
    const budget = new RetryBudget({ reserve: 1 });
    const { clock, policy } = setup({ budget });
    for (const hedges of [1, 0]) {
      const client = fakeClient();
      const done = runCall(policy, GET, client.attempts);
      await settle();
      clock.advance(50);
      await settle();
      expect(client.sent).toHaveLength(1 + hedges);
      client.sent[0]?.answer(200);
      expect((await resultOf(done)).hedges).toBe(hedges);
    }
    expect(budget.snapshot()).toMatchObject({ acquired: 1, refused: 1 });
  });

  it('an open circuit sends no hedge', async () => {
    const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
    const { clock, policy } = setup({ circuitBreaker: breaker, retries: 0 });
    const client = fakeClient();
    const first = runCall(policy, GET, client.attempts);
    const second = runCall(policy, GET, client.attempts);
    await settle();
    // The first call fails: the circuit opens while the second call's first copy is still out.
    client.sent[0]?.answer(503);
    await expect(first).resolves.toMatchObject({ status: 503 });
    expect(breaker.state('https://api.test', clock.now())).toBe('open');
    clock.advance(50);
    await settle();
    expect(client.sent).toHaveLength(2);
    client.sent[1]?.answer(200);
    expect((await resultOf(second)).hedges).toBe(0);
  });

  it('the pacer gates hedges: a hedge it would hold is not sent, and takes no budget token', async () => {
    const budget = new RetryBudget();
    const { clock, policy } = setup({ pacer: new Pacer(), budget, retries: 0 });
    const client = fakeClient();
    // The server's quota: one request per second, spent.
    const quota = { ratelimit: '"default";r=0;t=1', 'ratelimit-policy': '"default";q=1;w=1' };
    client.attempts.outcome = (settled) =>
      settled.ok
        ? { type: 'response', status: settled.value.status, headers: new Headers(quota) }
        : { type: 'error', kind: classifyError(settled.error), error: settled.error };
    const first = runCall(policy, GET, client.attempts);
    await settle();
    client.sent[0]?.answer(200);
    await first;
    const acquired = budget.snapshot().acquired;
    const second = runCall(policy, GET, client.attempts);
    // Held until the quota resets, then sent; its hedge would have to wait for the next second's slot.
    clock.advance(1200);
    await settle();
    expect(client.sent).toHaveLength(2);
    clock.advance(50);
    await settle();
    expect(client.sent).toHaveLength(2);
    client.sent[1]?.answer(200);
    expect(await resultOf(second)).toMatchObject({ hedges: 0 });
    expect(budget.snapshot().acquired).toBe(acquired);
  });

  it('no hedge after the deadline', async () => {
    const { clock, policy } = setup({ deadline: 40 });
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    clock.advance(50);
    await settle();
    expect(client.sent).toHaveLength(1);
    client.sent[0]?.answer(200);
    expect((await resultOf(done)).hedges).toBe(0);
  });

  it("the caller's abort ends every copy and sends no further one", async () => {
    const caller = new AbortController();
    const { clock, policy } = setup({ hedge: new Hedge({ delay: 50, max: 2 }) });
    const client = fakeClient({}, caller.signal);
    const done = runCall(policy, GET, client.attempts);
    await settle();
    clock.advance(50);
    await settle();
    caller.abort(new DOMException('stop', 'AbortError'));
    await expect(done).rejects.toMatchObject({ result: { reason: 'aborted', attempts: 1, hedges: 1 } });
    expect(client.sent.every((copy) => copy.signal?.aborted)).toBe(true);
    clock.advance(100);
    await settle();
    expect(client.sent).toHaveLength(2);
    expect(clock.pendingCount).toBe(0);
  });

  it('onHedge hears each hedge; when it throws, the call ends with its error and every copy is aborted', async () => {
    const events: unknown[] = [];
    const { clock, policy } = setup({ onHedge: (event) => void events.push(event) });
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    clock.advance(50);
    await settle();
    client.sent[1]?.answer(200);
    await done;
    expect(events).toEqual([{ copy: 2, delay: 50, method: 'GET', url: GET.url, attempt: 1 }]);

    const broken = policy.extend({
      onHedge: () => {
        throw new Error('hook failed');
      },
    });
    const other = fakeClient();
    const failed = runCall(broken, GET, other.attempts);
    await settle();
    clock.advance(50);
    await expect(failed).rejects.toMatchObject({
      cause: { message: 'hook failed' },
      result: { reason: 'callback-error', hedges: 0 },
    });
    expect(other.sent).toHaveLength(1);
    expect(other.sent[0]?.signal?.aborted).toBe(true);
  });

  it("a copy the client cannot make (its attempt's copy() throws) ends the call with that error, the first copy aborted", async () => {
    const { clock, policy } = setup();
    const client = fakeClient();
    const broken = new Error('cannot copy this request');
    const attempts: Client<Answer> = {
      ...client.attempts,
      next: () => ({
        headers: {},
        copy: () => {
          throw broken;
        },
      }),
    };
    const done = runCall(policy, GET, attempts);
    await settle();
    clock.advance(50);
    await expect(done).rejects.toBe(broken);
    expect(client.sent).toHaveLength(1);
    expect(client.sent[0]?.signal?.aborted).toBe(true);
    expect(clock.pendingCount).toBe(0);
  });

  it('an onHedge that returns a Promise is awaited before its copy goes; a rejection ends the call, handled', async () => {
    let release: (() => void) | undefined;
    const { clock, policy } = setup({
      onHedge: () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    });
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    clock.advance(50);
    await settle();
    // The copy waits for onHedge.
    expect(client.sent).toHaveLength(1);
    release?.();
    await settle();
    expect(client.sent).toHaveLength(2);
    client.sent[1]?.answer(200);
    expect(await resultOf(done)).toMatchObject({ hedges: 1, hedgeWon: true });

    const failure = new Error('onHedge rejected');
    const broken = policy.extend({ onHedge: () => Promise.reject(failure) });
    const other = fakeClient();
    const failed = runCall(broken, GET, other.attempts);
    await settle();
    clock.advance(50);
    await expect(failed).rejects.toMatchObject({
      cause: failure,
      result: { reason: 'callback-error', hedges: 0 },
    });
    expect(other.sent).toHaveLength(1);
    expect(other.sent[0]?.signal?.aborted).toBe(true);
  });
});

describe('only what may be sent twice is hedged', () => {
  const slow = async (options: BackoffOptions, request: object, headers: Record<string, string> = {}) => {
    const { clock, policy } = setup(options);
    const client = fakeClient(headers);
    const done = runCall(policy, { ...GET, ...request }, client.attempts);
    await settle();
    clock.advance(50);
    await settle();
    const sent = client.sent.length;
    client.sent[0]?.answer(200);
    await done;
    return { sent, client };
  };

  it('a keyless POST is never hedged', async () => {
    expect((await slow({}, { method: 'POST' })).sent).toBe(1);
  });

  it('a one-shot body is never hedged', async () => {
    expect((await slow({}, { method: 'PUT', replayable: false })).sent).toBe(1);
  });

  it('a keyed POST is hedged, every copy with the same key', async () => {
    const headers = { 'Idempotency-Key': '"k-1"' };
    const { sent, client } = await slow({}, { method: 'POST', headers: new Headers(headers) }, headers);
    expect(sent).toBe(2);
    expect(client.sent.map((copy) => copy.headers['Idempotency-Key'])).toEqual(['"k-1"', '"k-1"']);
  });

  it('no timer and no signal for a call without hedge', async () => {
    const { clock, policy } = setup({ hedge: false });
    const client = fakeClient();
    const done = runCall(policy, GET, client.attempts);
    await settle();
    expect(clock.pendingCount).toBe(0);
    expect(client.sent[0]?.signal).toBeUndefined();
    client.sent[0]?.answer(200);
    await done;
  });
});

describe("hedge: { delay: 'auto' }", () => {
  it('learns the p95 of the last answers per origin, with a floor, once 20 are known', () => {
    const times = new ResponseTimes();
    for (let i = 1; i <= 19; i++) times.record('https://a.test', i);
    expect(times.delay('https://a.test')).toBeUndefined();
    times.record('https://a.test', 200);
    // 20 samples: the 19th smallest of 1..19, 200.
    expect(times.delay('https://a.test')).toBe(19);
    expect(times.delay('https://b.test')).toBeUndefined();
    for (let i = 0; i < 100; i++) times.record('https://b.test', 2);
    expect(times.delay('https://b.test')).toBe(10);
    // Only the last 100 count.
    for (let i = 0; i < 100; i++) times.record('https://a.test', 30);
    expect(times.delay('https://a.test')).toBe(30);
  });

  it('sends no hedge until it learned a delay, then hedges after it', async () => {
    const { clock, policy } = setup({ hedge: new Hedge({ delay: 'auto' }), budget: false });
    for (let i = 0; i < 20; i++) {
      const client = fakeClient();
      const done = runCall(policy, GET, client.attempts);
      await settle();
      clock.advance(30);
      await settle();
      expect(client.sent).toHaveLength(1);
      client.sent[0]?.answer(200);
      await done;
    }
    // Learned from a per-request extension as well: one policy's answers.
    const client = fakeClient();
    const done = runCall(policy.extend({ retries: 1 }), GET, client.attempts);
    await settle();
    clock.advance(29);
    await settle();
    expect(client.sent).toHaveLength(1);
    clock.advance(1);
    await settle();
    expect(client.sent).toHaveLength(2);
    client.sent[1]?.answer(200);
    expect((await resultOf(done)).hedgeWon).toBe(true);
  });
});

describe('hedges in the metrics', () => {
  it('BackoffMetrics counts hedges and hedge wins apart from attempts', async () => {
    const metrics = new BackoffMetrics();
    const { clock, policy } = setup({ metrics });
    for (const winner of [0, 1]) {
      const client = fakeClient();
      const done = runCall(policy, GET, client.attempts);
      await settle();
      clock.advance(50);
      await settle();
      client.sent[winner]?.answer(200);
      await done;
    }
    expect(metrics.snapshot()).toMatchObject({ calls: 2, attempts: 2, hedges: 2, hedgeWins: 1 });
  });
});

describe('the hedge option is validated', () => {
  it.each([
    [
      { hedge: true },
      /Expected `hedge` to be false or a `new Hedge\(\{ delay: ms \| 'auto', max\? \}\)`, got true/,
    ],
    [{ hedge: { delay: 50 } }, /Expected `hedge` to be false or a `new Hedge\(/],
    [{ onHedge: 'log' }, /Expected `onHedge` to be a function/],
  ])('%j throws a clear error', (options, message) => {
    expect(() => createBackoff(options as BackoffOptions)).toThrow(message);
  });

  it.each([
    [{}, /Expected `hedge.delay` to be a number of ms or 'auto', got undefined/],
    [{ delay: -1 }, /Expected `hedge.delay` to be a number from 0/],
    [{ delay: 'fast' }, /Expected `hedge.delay` to be a number, got "fast"/],
    [{ delay: 10, max: 0 }, /Expected `hedge.max` to be an integer from 1 to 10, got 0/],
    [{ delay: 10, copies: 2 }, /Unknown hedge option `hedge.copies`/],
  ])('new Hedge(%j) throws a clear error', (options, message) => {
    expect(() => new Hedge(options as HedgeOptions)).toThrow(message);
  });
});
