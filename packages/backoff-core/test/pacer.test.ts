import { VirtualClock } from '@backoff/test-utils';
import { type BackoffOptions, createBackoff, Pacer } from 'backoff-core';
import { type Call, type Outcome, startCall } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';
import { hold, next, run } from './support/calls.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const A = 'https://a.example';
const B = 'https://b.example';

/**
 * A pacer and one policy on a virtual clock (random 0.5, no retries: a call is one send). `send` starts a call
 * and asks for its hold (reserving its slot), as a client does right before it sends; `answer` tells the call
 * how its send was answered.
 */
function setup(pacerOptions: Pacer.Options = {}, options: BackoffOptions = {}) {
  const clock = new VirtualClock(NOW);
  clock.auto = false;
  const pacer = new Pacer(pacerOptions);
  const policyOf = (more: BackoffOptions = {}) =>
    createBackoff({
      pacer,
      now: clock.now,
      timers: clock.timers,
      random: () => 0.5,
      retries: 0,
      budget: false,
      ...options,
      ...more,
    });
  const policy = policyOf();
  const start = (url = `${A}/x`, on = policy) => startCall(on, { url });
  /** A call that holds before its send as the runner holds it, and is answered 200 once sent. */
  const ready = (signal?: AbortSignal, on = policy) =>
    run(on, [{ type: 'response', status: 200, headers: {} }], { url: `${A}/x` }, signal);
  return {
    clock,
    pacer,
    policyOf,
    start,
    /** A call's send: its hold in ms (0: none). */
    send: (url = `${A}/x`, on = policy) => {
      const call = start(url, on);
      return { call, delay: hold(call)?.delay ?? 0 };
    },
    ready,
    answer: (call: Call, status: number, headers: Record<string, string> = {}, url?: string) => {
      const outcome: Outcome =
        url === undefined
          ? { type: 'response', status, headers }
          : { type: 'response', status, headers, url };
      next(call, outcome);
    },
  };
}

/** The hold of each of `n` sends in a row, in ms (0: none). */
const holds = (send: () => { delay: number }, n: number) => Array.from({ length: n }, () => send().delay);

describe('Pacer: quota left slows nothing', () => {
  it("express-rate-limit's 99 of 100 left (100 per 900 s) holds none of the next 50 sends", () => {
    const { send, answer } = setup();
    const { call } = send();
    answer(call, 200, { RateLimit: 'limit=100, remaining=99, reset=900', 'RateLimit-Policy': '100;w=900' });
    expect(holds(() => send(), 50)).toEqual(Array(50).fill(0));
  });

  it('1,000 a day with 999 left holds nothing', () => {
    const { send, answer } = setup();
    const { call } = send();
    answer(call, 200, { RateLimit: '"day";r=999;t=86400', 'RateLimit-Policy': '"day";q=1000;w=86400' });
    expect(holds(() => send(), 20)).toEqual(Array(20).fill(0));
  });

  it("the server's count is spent by the sends since: with 3 left, the 4th send waits for the reset", () => {
    const { send, answer } = setup();
    const { call } = send();
    answer(call, 200, { RateLimit: 'limit=10, remaining=3, reset=2', 'RateLimit-Policy': '10;w=2' });
    // Then spaced at the stated rate (200 ms, plus its 5 % margin and spread) from the reset on.
    expect(holds(() => send(), 6)).toEqual([0, 0, 0, 2005, 2215, 2425]);
  });

  it("the sends made after the one answered are not in the server's count", () => {
    const { send, answer } = setup();
    answer(send().call, 200, { RateLimit: '"q";r=10;t=5', 'RateLimit-Policy': '"q";q=20;w=5' });
    const [x] = [send(), send(), send()];
    // The server counted X (and other clients' sends): 2 left, but Y and Z left after X and spend them.
    answer(x?.call as Call, 200, { RateLimit: '"q";r=2;t=5', 'RateLimit-Policy': '"q";q=20;w=5' });
    expect(send().delay).toBe(5006);
  });
});

describe("Pacer: no hold is longer than the caller's maxRetryAfter", () => {
  const TEN_YEARS = { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '315360000' };

  it('a reset ten years away fails the next call at once, sending nothing, with the reason retry-after-too-long', async () => {
    const { send, start, ready, answer } = setup();
    answer(send().call, 200, TEN_YEARS);
    const call = start();
    let error: unknown;
    try {
      hold(call);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(Pacer.DeadlineError);
    expect(error).toMatchObject({
      code: 'ERR_PACER_DEADLINE',
      reason: 'retry-after-too-long',
      key: A,
      delay: 315_360_000_000,
      maxRetryAfter: 60_000,
    });
    expect((error as Error).message).toBe(
      `Held by the pacer longer than maxRetryAfter: ${A}'s rate limit allows the next send in 315360000000 ms, more than maxRetryAfter (60000 ms). Nothing was sent; raise maxRetryAfter to wait that long.`,
    );
    // On the runner, such a call ends with that reason, nothing sent.
    const ran = await ready();
    expect(ran.sent).toBe(0);
    expect(ran.result).toMatchObject({ attempts: 0, reason: 'retry-after-too-long' });
  });

  it('one send per maxRetryAfter still asks the server again, so that a wrong reset is not honoured for ever', () => {
    const { send, answer, clock } = setup();
    answer(send().call, 200, TEN_YEARS);
    clock.advance(59_999);
    expect(() => send()).toThrow(Pacer.DeadlineError);
    clock.advance(1);
    const probe = send();
    expect(probe.delay).toBe(0);
    // Until the probe is answered (and a maxRetryAfter after that), the others are refused.
    expect(() => send()).toThrow(Pacer.DeadlineError);
    answer(probe.call, 200, { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '60' });
    expect(holds(() => send(), 3)).toEqual([0, 0, 0]);
  });

  it('a spent daily quota refuses at once instead of holding for 36 minutes', () => {
    const { send, answer } = setup();
    answer(send().call, 200, { RateLimit: '"day";r=0;t=86400', 'RateLimit-Policy': '"day";q=1;w=86400' });
    expect(() => send()).toThrow(/longer than maxRetryAfter/);
  });

  it('the spread never pushes a hold past maxRetryAfter', () => {
    const { send, answer } = setup();
    answer(send().call, 200, { RateLimit: '"h";r=0;t=59', 'RateLimit-Policy': '"h";q=1;w=3600' });
    expect(send().delay).toBe(60_000);
  });

  it('a shared pacer holds each policy by its own maxRetryAfter, not by the one that learnt', () => {
    const { send, answer, policyOf } = setup();
    const short = policyOf({ maxRetryAfter: 5000 });
    const long = policyOf({ maxRetryAfter: 60_000 });
    answer(send(`${A}/x`, short).call, 429, {
      RateLimit: '"p";r=0;t=30',
      'RateLimit-Policy': '"p";q=10;w=1',
    });
    // 30 s plus the spread within its 100 ms slot.
    expect(send(`${A}/x`, long).delay).toBe(30_002);
    expect(() => send(`${A}/x`, short)).toThrow(/maxRetryAfter \(5000 ms\)/);
  });

  /** The message and fields of the error a call's send fails with. */
  const refusedWith = (send: () => unknown) => {
    try {
      send();
    } catch (error) {
      return error as InstanceType<typeof Pacer.DeadlineError>;
    }
    throw new Error('The send was not refused.');
  };
  const HUGE = `1${'0'.repeat(400)}`;

  it('a reset too large to represent: PacerDeadlineError reports the cap it passed, maxRetryAfter, and says so', () => {
    const { send, answer } = setup();
    answer(send().call, 429, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': HUGE });
    const error = refusedWith(() => send());
    expect(error).toMatchObject({ reason: 'retry-after-too-long', delay: 60_000, maxRetryAfter: 60_000 });
    expect(error.message).toBe(
      `Held by the pacer longer than maxRetryAfter: ${A}'s rate limit allows no send within maxRetryAfter (60000 ms; its reset is too large to represent, delay is capped at maxRetryAfter). Nothing was sent.`,
    );
  });

  it('a reset too large to represent under a deadline: the cap is what was left of it', () => {
    const { send, answer } = setup({}, { deadline: 3000 });
    answer(send().call, 429, { 'Retry-After': HUGE });
    const error = refusedWith(() => send());
    expect(error).toMatchObject({ reason: 'deadline', delay: 3000, left: 3000 });
    expect(error.message).toBe(
      `Held by the pacer past the deadline: ${A}'s rate limit allows no send before it (its reset is too large to represent; delay is capped at the 3000 ms that were left).`,
    );
  });

  it('PacerDeadlineError never reports an infinite hold: a window too large to represent is capped too', () => {
    const { send, answer } = setup({}, { deadline: 3000 });
    answer(send().call, 200, { RateLimit: '"p";r=0;t=1', 'RateLimit-Policy': `"p";q=1;w=${HUGE}` });
    expect(send().delay).toBe(2500);
    expect(refusedWith(() => send())).toMatchObject({ reason: 'deadline', delay: 3000 });
  });
});

describe('Pacer: an aborted hold gives its slot back', () => {
  const SPENT_2_PER_S = { RateLimit: '"p";r=0;t=1', 'RateLimit-Policy': '"p";q=2;w=1' };

  it('after 20 held calls are aborted, the next call is told about 1 s, not 11 s', async () => {
    const { send, ready, answer, clock } = setup();
    answer(send().call, 200, SPENT_2_PER_S);
    const controller = new AbortController();
    const held = Array.from({ length: 20 }, () => ready(controller.signal));
    await new Promise((resolve) => setImmediate(resolve));
    expect(clock.waits).toEqual(Array.from({ length: 20 }, (_, i) => 1000 + i * 525 + 12));
    controller.abort();
    await Promise.allSettled(held);
    expect(clock.pendingCount).toBe(0);
    expect(send().delay).toBe(1012);
    expect(send().delay).toBe(1537);
  });

  it('10 calls a second, each giving up after 1.5 s, against 2 a second: every slot is used, not just the first two', async () => {
    const { send, ready, answer, clock } = setup();
    answer(send().call, 200, SPENT_2_PER_S);
    const flush = () => new Promise((resolve) => setImmediate(resolve));
    let sent = 0;
    let gaveUp = 0;
    for (let at = 0; at < 6000; at += 100) {
      const controller = new AbortController();
      clock.timers.setTimeout(() => controller.abort(), 1500);
      void ready(controller.signal).then((ran) => {
        if (ran.sent > 0) sent++;
        else gaveUp++;
      });
      await flush();
      clock.advance(100);
      await flush();
    }
    // One send per 525 ms slot from the reset (1 s) on: 1000, 1525, ... 5725.
    expect(sent).toBe(10);
    clock.advance(1500);
    await flush();
    expect(sent + gaveUp).toBe(60);
  });

  it('a hold that ran its course keeps its slot', async () => {
    const { send, ready, answer, clock } = setup();
    answer(send().call, 200, SPENT_2_PER_S);
    const held = ready();
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(1012);
    expect((await held).sent).toBe(1);
    expect(send().delay).toBe(525);
  });
});

describe('Pacer: what it learns and how it reports a hold', () => {
  it("a 429's Retry-After holds with the reason 'rate-limit': the slot is the server's reset", () => {
    const { send, answer, start } = setup();
    answer(send().call, 429, { 'Retry-After': '2' });
    expect(hold(start())).toMatchObject({ delay: 2000, reason: 'rate-limit', key: A });
  });

  it("a 503's Retry-After holds with the reason 'rate-limit' too", () => {
    const { send, answer, start } = setup();
    answer(send().call, 503, { 'Retry-After': '3' });
    expect(hold(start())).toMatchObject({ delay: 3000, reason: 'rate-limit' });
  });

  it("without headers, the slowdown after 429s holds with the reason 'throttled'", () => {
    const { send, answer, start, clock } = setup();
    answer(send().call, 429);
    clock.advance(5);
    expect(hold(start())).toBeUndefined();
    expect(hold(start())).toMatchObject({ reason: 'throttled' });
  });

  it('a 200 with RateLimit-Remaining 0 and a reset but no limit holds until the reset', () => {
    const { send, answer } = setup();
    answer(send().call, 200, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3' });
    expect(send().delay).toBe(3000);
  });

  it('the X-RateLimit-Remaining 0 and X-RateLimit-Reset pair alone holds until the reset', () => {
    const { send, answer } = setup();
    const reset = String(NOW / 1000 + 4);
    answer(send().call, 200, { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset });
    expect(send().delay).toBe(4000);
  });

  it('an idle key forgets its state', () => {
    const { send, answer, pacer } = setup();
    answer(send().call, 429, { 'Retry-After': '1' });
    expect(pacer.nextSend(A, NOW)).toBe(1000);
    expect(pacer.nextSend(A, NOW + 61_001)).toBe(0);
  });
});

describe('Pacer: redirects', () => {
  it("after a redirect from A to B, B's 429 paces B, not A", () => {
    const { send, answer, pacer } = setup();
    answer(send(`${A}/x`).call, 429, { 'Retry-After': '5' }, `${B}/y`);
    expect(pacer.nextSend(B, NOW)).toBe(5000);
    expect(pacer.nextSend(A, NOW)).toBe(0);
    expect(send(`${B}/z`).delay).toBe(5000);
    expect(send(`${A}/x`).delay).toBe(0);
  });

  it("a redirected call's retry waits as learnt for the URL that answered, in its queue", () => {
    const { start, send, pacer, policyOf, clock } = setup();
    // A redirects to B; B is spent for 2 s, then allows one a second.
    const call = start(`${A}/x`, policyOf({ retries: 1 }));
    expect(hold(call)).toBeUndefined();
    const decision = next(call, {
      type: 'response',
      status: 429,
      headers: { RateLimit: '"p";r=0;t=2', 'RateLimit-Policy': '"p";q=1;w=1' },
      url: `${B}/y`,
    });
    expect(decision).toMatchObject({ retry: true });
    expect(pacer.nextSend(B, NOW)).toBe(2000);
    // A send straight to B takes the first slot, at the reset (plus its spread, a quarter of its margin).
    expect(send(`${B}/z`).delay).toBe(2025);
    // The retry goes to A again, and on to B: it waits for the next slot there, not for A's (none).
    clock.advance(2000);
    expect(hold(call)).toMatchObject({ key: B, delay: 1050 + 25 });
  });

  it('a custom key is asked again with the URL that answered, with the same method and headers', () => {
    const seen: unknown[] = [];
    const key = (request: { method: string; url: string | undefined; headers: unknown }) => {
      seen.push({ ...request });
      return `token:${new URL(request.url ?? '').host}`;
    };
    const { policyOf, answer, pacer } = setup({ key });
    const call = startCall(policyOf(), { url: `${A}/x`, method: 'POST', headers: { authorization: 't' } });
    answer(call, 429, { 'Retry-After': '5' }, `${B}/y`);
    expect(seen).toEqual([
      { method: 'POST', url: `${A}/x`, headers: { authorization: 't' } },
      { method: 'POST', url: `${B}/y`, headers: { authorization: 't' } },
    ]);
    expect(pacer.nextSend('token:b.example', NOW)).toBe(5000);
  });

  it('an answer from the URL asked learns into its key as before', () => {
    const { send, answer, pacer } = setup();
    answer(send(`${A}/x`).call, 429, { 'Retry-After': '5' }, `${A}/x`);
    expect(pacer.nextSend(A, NOW)).toBe(5000);
  });
});

describe('Pacer: keys stay bounded', () => {
  it('at 1,000 keys, a key that is holding sends is kept while keys that hold nothing can go', () => {
    const { send, answer, pacer, clock } = setup();
    answer(send(`${A}/x`).call, 429, { 'Retry-After': '30' });
    for (let i = 0; i < 1000; i++) answer(send(`https://host-${i}.example/x`).call, 200);
    clock.advance(1000);
    expect(pacer.nextSend(A, clock.now())).toBe(29_000);
    expect(send(`${A}/x`).delay).toBe(29_000);
  });
});

describe('Pacer: a quota the user states', () => {
  it('the first burst before any answer goes at the stated rate', () => {
    const { send } = setup({ quota: { limit: 5, window: 1000 } }, { random: () => 0 });
    expect(holds(() => send(), 6)).toEqual([0, 210, 420, 630, 840, 1050]);
    // Per key: another origin has a pace of its own.
    expect(holds(() => send(`${B}/x`), 2)).toEqual([0, 210]);
  });

  it("a later answer with another quota corrects it: the server's rate replaces the stated one", () => {
    const { send, answer } = setup({ quota: { limit: 5, window: 1000 } }, { random: () => 0 });
    const { call } = send();
    expect(send().delay).toBe(210);
    answer(call, 200, { RateLimit: '"p";r=0;t=1', 'RateLimit-Policy': '"p";q=10;w=1' });
    expect(holds(() => send(), 3)).toEqual([1000, 1105, 1210]);
  });

  it('a stated quota slower than maxRetryAfter refuses the sends it would hold longer, and no send asks past it', () => {
    const { send, clock } = setup({ quota: { limit: 1, window: 3_600_000 } });
    expect(send().delay).toBe(0);
    expect(() => send()).toThrow(/longer than maxRetryAfter/);
    clock.advance(61_000);
    expect(() => send()).toThrow(/longer than maxRetryAfter/);
    clock.advance(3_780_000 - 61_000 - 60_000);
    expect(send().delay).toBe(60_000);
  });

  it('quota the server reports left lets sends go at once', () => {
    const { send, answer } = setup({ quota: { limit: 1, window: 1000 } });
    const { call } = send();
    answer(call, 200, { RateLimit: '"p";r=50;t=60', 'RateLimit-Policy': '"p";q=100;w=60' });
    expect(holds(() => send(), 10)).toEqual(Array(10).fill(0));
  });

  it('a stated quota is checked, naming the option, what it got and the fix', () => {
    expect(() => new Pacer({ quota: { limit: 0, window: 1000 } })).toThrow(
      'Expected `pacer.quota.limit` to be an integer from 1 to 1000000000, got 0.',
    );
    expect(() => new Pacer({ quota: { limit: 2.5, window: 1000 } })).toThrow(RangeError);
    expect(() => new Pacer({ quota: { limit: 10 } as never })).toThrow(
      'Expected `pacer.quota.window` to be given: a quota is { limit, window }.',
    );
    expect(() => new Pacer({ quota: { limit: 10, window: 0 } })).toThrow(/`pacer.quota.window`.*got 0/);
    expect(() => new Pacer({ quota: 10 as never })).toThrow(
      'Expected `pacer.quota` to be { limit, window }: requests per window in ms, e.g. { limit: 10, window: 1000 }, got 10.',
    );
    expect(() => new Pacer({ quota: { limit: 10, window: 1000, burst: 5 } as never })).toThrow(
      'Unknown Pacer quota option `pacer.quota.burst`.',
    );
  });
});

describe('Pacer: the store option', () => {
  it('two pacers on one store pace as one: what one learns holds the sends of the other', () => {
    const store = new Pacer.MemoryStore();
    const one = setup({ store });
    const other = setup({ store });
    one.answer(one.send().call, 200, { RateLimit: '"p";r=0;t=2', 'RateLimit-Policy': '"p";q=10;w=1' });
    expect(other.send().delay).toBe(2002);
    expect(one.send().delay).toBe(2107);
    expect(other.pacer.nextSend(A, NOW)).toBe(2210);
  });

  it('a store of its own is asked for every reservation, release and answer, with the policy limits', async () => {
    const calls: string[] = [];
    const inner = new Pacer.MemoryStore();
    const store: Pacer.Store = {
      reserve: (key, now, within, random, limits) => {
        calls.push(`reserve ${key} ${now - NOW} ${within} ${limits.maxRetryAfter}`);
        return inner.reserve(key, now, within, random, limits);
      },
      release: (key, hold, now) => {
        calls.push(`release ${key} ${hold.slot - NOW} ${now - NOW}`);
        inner.release(key, hold, now);
      },
      learn: (key, answer, now, limits) => {
        calls.push(`learn ${key} ${answer.status} ${answer.ticket} ${limits.maxRetryAfter}`);
        inner.learn(key, answer, now, limits);
      },
      read: (key, now) => inner.read(key, now),
    };
    const { send, ready, answer } = setup({ store }, { maxRetryAfter: 30_000 });
    answer(send().call, 429, { 'Retry-After': '1' });
    const controller = new AbortController();
    const held = ready(controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await held).sent).toBe(0);
    expect(calls).toEqual([
      `reserve ${A} 0 Infinity 30000`,
      `learn ${A} 429 0 30000`,
      `reserve ${A} 0 Infinity 30000`,
      `release ${A} 1000 0`,
    ]);
  });
});

describe('Pacer options', () => {
  it('rejects a pacer that is not one, and options that are wrong, naming them', () => {
    expect(() => createBackoff({ pacer: {} as never })).toThrow(
      'Expected `pacer` to be false or a `new Pacer()`, got an object.',
    );
    expect(() => new Pacer({ key: 'origin' as never })).toThrow(/`pacer.key`/);
    expect(() => new Pacer({ qouta: {} } as never)).toThrow(
      'Unknown Pacer option `pacer.qouta`: did you mean `quota`?',
    );
    expect(() => new Pacer({ store: {} as never })).toThrow(
      'Expected `pacer.store` to be a Pacer store (with reserve, release, learn, read), got an object.',
    );
    expect(() => new Pacer(5 as never)).toThrow('Expected the Pacer options to be an object, got 5.');
  });

  it('a pacer on a key never throttled holds no send', () => {
    const paced = startCall(createBackoff({ pacer: new Pacer() }), { url: 'https://api.example/x' });
    expect(hold(paced)).toBeUndefined();
  });
});
