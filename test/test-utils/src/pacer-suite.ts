import { BackoffMetrics, type BackoffOptions, CircuitBreaker, Pacer } from 'backoff-core';
import { describe, expect, it } from 'vitest';
import type { BackoffClientDriver, Settled, SuiteRequest } from './behaviour-suite.js';
import { API, API_2, ScriptedApi } from './scripted-api.js';
import { serveTests } from './serve-tests.js';
import { StallingPacerStore } from './stalling-store.js';
import { VirtualClock } from './virtual-clock.js';

/** A draft-8 answer of a 1-per-second quota, spent for `t` more seconds. */
const SPENT = (status: number, t = 2) => ({
  status,
  headers: { RateLimit: `"default";r=0;t=${t}`, 'RateLimit-Policy': '"default";q=1;w=1' },
});

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The `PacerDeadlineError` a call failed with: the error itself, or its `cause` (axios wraps it). */
function deadlineError(settled: Settled): InstanceType<typeof Pacer.DeadlineError> | undefined {
  if (settled.ok) return undefined;
  const { error } = settled;
  if (error instanceof Pacer.DeadlineError) return error;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause instanceof Pacer.DeadlineError ? cause : undefined;
}

/** What a client can tell the pacer. */
export interface PacerSuiteOptions {
  /**
   * The client reports the URL that answered after a redirect (fetch's `Response.url`, axios's http adapter):
   * the redirect case runs. axios's fetch adapter keeps no such URL.
   */
  readonly answeredUrl?: boolean;
}

/**
 * The pacer through one client: sends held while the server's quota is spent (counted on the server side), none
 * while quota is left, a retry behind the same gate, the deadline and `maxRetryAfter`, an abort and an open
 * circuit during a hold, slots given back by aborted holds, a quota the user states, a redirect, one pacer
 * shared by two clients, `onHold` and the metrics. Time is a virtual clock the tests move by hand.
 */
export function describePacerClient(driver: BackoffClientDriver, suite: PacerSuiteOptions = {}): void {
  describe(`pacer suite: ${driver.name}`, () => {
    const api = new ScriptedApi([API, API_2]);
    let clock: VirtualClock;
    serveTests(api, () => clock);

    const client = (pacer: Pacer<Pacer.Store>, options: BackoffOptions = {}, base = API) =>
      driver.create(base, { random: () => 0.5, timers: clock.timers, now: clock.now, pacer, ...options });
    const fresh = () => {
      clock = new VirtualClock();
      clock.auto = false;
    };
    const GET = (id: string, extra: Partial<SuiteRequest> = {}): SuiteRequest => ({
      method: 'GET',
      path: '/quota',
      headers: { 'x-id': id },
      ...extra,
    });
    /** Lets the clients' I/O run until `done` (moving no virtual time). */
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 500 && !done(); i++) await macrotask();
      expect(done()).toBe(true);
    };
    /** Settles `calls`, moving virtual time by `step` ms whenever nothing else can run. */
    const run = async <T>(calls: Promise<T>[], step = 100): Promise<T[]> => {
      let left = calls.length;
      for (const call of calls) call.finally(() => left--).catch(() => {});
      for (let i = 0; i < 2000 && left > 0; i++) {
        for (let j = 0; j < 10 && left > 0; j++) await macrotask();
        if (left > 0) clock.advance(step);
      }
      return Promise.all(calls);
    };

    it('holds sends while the quota is spent: the server sees them only after the reset, each one attempt', async () => {
      fresh();
      const route = api.script('/quota', [SPENT(200), 200]);
      const holds: unknown[] = [];
      const metrics = new BackoffMetrics();
      const c = client(new Pacer(), { onHold: (event) => holds.push(event), metrics });
      const [first] = await run([c.send(GET('A'))]);
      expect(first?.result).toMatchObject({ attempts: 1, reason: 'success' });
      const second = c.send(GET('B'));
      // Held 2 s (the reset) plus its spread within the 1-per-second slot: nothing sent meanwhile.
      expect(await clock.nextWait()).toBe(2025);
      clock.advance(2024);
      for (let i = 0; i < 20; i++) await macrotask();
      expect(route.hits).toHaveLength(1);
      const [settled] = await run([second], 1);
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(settled?.result).toMatchObject({ attempts: 1, totalDelay: 0, held: 2025, reason: 'success' });
      expect(route.hits.map((hit) => hit.headers.get('x-id'))).toEqual(['A', 'B']);
      expect(holds).toEqual([
        { delay: 2025, reason: 'rate-limit', key: API, method: 'GET', url: `${API}/quota`, attempt: 1 },
      ]);
      expect(metrics.snapshot()).toMatchObject({
        calls: 2,
        attempts: 2,
        retries: 0,
        holds: 1,
        heldTime: 2025,
      });
    });

    it('a retry of a throttled request waits behind the same gate as the sends queued before it', async () => {
      fresh();
      const route = api.script('/quota', [SPENT(429, 1), 200]);
      const c = client(new Pacer());
      const a = c.send(GET('A'));
      // A's 429 is learned: its retry waits the server's second plus half its 1.5 s window (random 0.5).
      expect(await clock.nextWait()).toBe(1750);
      const queued = [c.send(GET('B')), c.send(GET('C'))];
      await until(() => clock.pendingCount === 3);
      const settled = await run([a, ...queued]);
      expect(settled.every((s) => s.ok)).toBe(true);
      expect(route.hits.map((hit) => hit.headers.get('x-id'))).toEqual(['A', 'B', 'C', 'A']);
      expect(settled[0]?.result).toMatchObject({ attempts: 2, totalDelay: 1750 });
    });

    it('a hold that would pass the deadline fails at once, with the reason, and sends nothing', async () => {
      fresh();
      const route = api.script('/quota', [SPENT(200, 5), 200]);
      const c = client(new Pacer(), { deadline: 3000 });
      await run([c.send(GET('A'))]);
      const settled = await c.send(GET('B'));
      expect(settled.ok).toBe(false);
      const error = deadlineError(settled);
      expect(error).toMatchObject({ code: 'ERR_PACER_DEADLINE', reason: 'deadline', key: API, delay: 5000 });
      expect(error?.message).toMatch(/held by the pacer past the deadline/i);
      expect(settled.result).toMatchObject({ attempts: 0, reason: 'deadline' });
      expect(route.hits).toHaveLength(1);
    });

    it('a shared store still unanswered at the deadline ends the call there with a timeout, nothing sent; the hold it grants later is given back', async () => {
      fresh();
      const route = api.script('/quota', [SPENT(200), 200]);
      let stall = 0;
      const store = new StallingPacerStore({ timers: clock.timers, stall: () => stall });
      const pacer = new Pacer({ store });
      await run([client(pacer).send(GET('A'))]);
      // The store now answers 5 s late; B's deadline is 2 s, and its reservation is a hold within it.
      stall = 5000;
      let settled: Settled | undefined;
      void client(pacer, { deadline: 2000 })
        .send(GET('B'))
        .then((done) => {
          settled = done;
        });
      await until(() => store.granted.length === 1);
      clock.advance(2000);
      await until(() => settled !== undefined);
      expect(settled?.ok).toBe(false);
      if (settled !== undefined && !settled.ok) expect(settled.error).toMatchObject({ name: 'TimeoutError' });
      expect(settled?.result).toMatchObject({ attempts: 0, reason: 'deadline' });
      expect(store.granted).toHaveLength(1);
      expect(store.released).toEqual([]);
      clock.advance(3000);
      await until(() => store.released.length === 1);
      expect(store.released).toEqual(store.granted);
      expect(route.hits).toHaveLength(1);
    });

    it("an abort during a hold rejects at once with the client's own abort error and sends nothing", async () => {
      fresh();
      const route = api.script('/quota', [SPENT(200), 200]);
      const c = client(new Pacer());
      await run([c.send(GET('A'))]);
      const controller = new AbortController();
      const pending = c.send(GET('B', { signal: controller.signal }));
      expect(await clock.nextWait()).toBe(2025);
      controller.abort();
      const settled = await pending;
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
      expect(clock.pendingCount).toBe(0);
      expect(settled.result).toMatchObject({ attempts: 0, reason: 'aborted' });
      expect(route.hits).toHaveLength(1);
    });

    it('an open circuit still fails fast: a call refused by the breaker is never held', async () => {
      fresh();
      const route = api.script('/quota', [{ ...SPENT(503), status: 503 }]);
      const holds: unknown[] = [];
      const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
      const c = client(new Pacer(), { circuitBreaker: breaker, retries: 0, onHold: (e) => holds.push(e) });
      await run([c.send(GET('A'))]);
      const settled = await c.send(GET('B'));
      expect(settled.result).toMatchObject({ attempts: 0, reason: 'circuit-open' });
      expect(holds).toEqual([]);
      expect(route.hits).toHaveLength(1);
    });

    it('one pacer shared by two clients: what one learns holds the other', async () => {
      fresh();
      const route = api.script('/quota', [SPENT(200), 200]);
      const pacer = new Pacer();
      await run([client(pacer).send(GET('A'))]);
      const other = client(pacer).send(GET('B'));
      expect(await clock.nextWait()).toBe(2025);
      const [settled] = await run([other]);
      expect(settled?.result).toMatchObject({ attempts: 1, held: 2025 });
      expect(route.hits).toHaveLength(2);
    });

    it('quota left slows nothing: with 99 of 100 left (100 per 900 s), ten calls reach the server at once', async () => {
      fresh();
      const route = api.limiter('/limited', { limit: 100, windowMs: 900_000, now: clock.now });
      const c = client(new Pacer());
      await run([c.send(GET('first', { path: '/limited' }))]);
      const calls = Array.from({ length: 10 }, (_, i) => c.send(GET(`${i}`, { path: '/limited' })));
      await until(() => route.hits.length === 11);
      expect(clock.pendingCount).toBe(0);
      const settled = await Promise.all(calls);
      expect(settled.every((call) => call.ok && call.result?.held === undefined)).toBe(true);
    });

    it("the server's count is spent by the sends since: the rest wait for the reset, and none is refused", async () => {
      fresh();
      const route = api.limiter('/limited', { limit: 3, windowMs: 1000, now: clock.now });
      const c = client(new Pacer());
      await run([c.send(GET('first', { path: '/limited' }))]);
      const calls = Array.from({ length: 5 }, (_, i) => c.send(GET(`${i}`, { path: '/limited' })));
      // 2 left: two go at once, three wait for the reset (1 s), then one per 333 ms slot.
      await until(() => route.hits.length === 3 && clock.pendingCount === 3);
      const settled = await run(calls, 1);
      expect(settled.map((call) => call.ok)).toEqual([true, true, true, true, true]);
      expect(settled.map((call) => call.result?.held)).toEqual([undefined, undefined, 1008, 1358, 1708]);
      expect(route.hits).toHaveLength(6);
    });

    it('a hold longer than maxRetryAfter fails at once with the reason, and sends nothing', async () => {
      fresh();
      const TEN_YEARS = {
        'RateLimit-Limit': '10',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '315360000',
      };
      const route = api.script('/quota', [{ status: 200, headers: TEN_YEARS }]);
      const c = client(new Pacer());
      await run([c.send(GET('A'))]);
      const settled = await c.send(GET('B'));
      const error = deadlineError(settled);
      expect(error).toMatchObject({
        code: 'ERR_PACER_DEADLINE',
        reason: 'retry-after-too-long',
        key: API,
        delay: 315_360_000_000,
      });
      expect(error?.message).toMatch(/held by the pacer longer than maxRetryAfter/i);
      expect(settled.result).toMatchObject({ attempts: 0, reason: 'retry-after-too-long' });
      expect(route.hits).toHaveLength(1);
    });

    it('calls aborted during their hold give their slots back: the next call goes at the first one', async () => {
      fresh();
      const route = api.script('/quota', [SPENT(200), 200]);
      const c = client(new Pacer());
      await run([c.send(GET('A'))]);
      const controller = new AbortController();
      const aborted = Array.from({ length: 5 }, (_, i) =>
        c.send(GET(`held-${i}`, { signal: controller.signal })),
      );
      await until(() => clock.pendingCount === 5);
      controller.abort();
      await Promise.all(aborted);
      expect(clock.pendingCount).toBe(0);
      const next = c.send(GET('B'));
      // The first slot (the reset, 2 s), not the sixth (7.25 s).
      expect(await clock.nextWait()).toBe(2025);
      const [settled] = await run([next], 25);
      expect(settled?.result).toMatchObject({ attempts: 1, held: 2025 });
      expect(route.hits.map((hit) => hit.headers.get('x-id'))).toEqual(['A', 'B']);
    });

    it("a 429's Retry-After holds the next call with the reason 'rate-limit'", async () => {
      fresh();
      const route = api.script('/quota', [{ status: 429, headers: { 'Retry-After': '1' } }, 200]);
      const holds: unknown[] = [];
      const c = client(new Pacer(), { retries: 0, onHold: (event) => holds.push(event) });
      await run([c.send(GET('A'))]);
      const [settled] = await run([c.send(GET('B'))]);
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(holds).toMatchObject([{ delay: 1000, reason: 'rate-limit', key: API }]);
      expect(route.hits).toHaveLength(2);
    });

    it('a quota the user states paces the first burst, before any answer: one send per slot reaches the server', async () => {
      fresh();
      const route = api.script('/quota', [200]);
      const c = client(new Pacer({ quota: { limit: 2, window: 1000 } }));
      const calls = ['A', 'B', 'C'].map((id) => c.send(GET(id)));
      await until(() => route.hits.length === 1 && clock.pendingCount === 2);
      // Slots of 500 ms, 5 % longer, each send spread within its slot's margin (random 0.5: 12 ms).
      clock.advance(536);
      for (let i = 0; i < 20; i++) await macrotask();
      expect(route.hits).toHaveLength(1);
      const settled = await run(calls, 1);
      expect(settled.map((call) => call.result?.held)).toEqual([undefined, 537, 1062]);
      expect(route.hits.map((hit) => hit.headers.get('x-id'))).toEqual(['A', 'B', 'C']);
    });

    it.skipIf(!suite.answeredUrl)(
      "after a redirect from A to B, B's 429 paces B: sends straight to B wait, sends to A go",
      async () => {
        fresh();
        api.script('/moved', [{ status: 307, headers: { Location: `${API_2}/quota` } }]);
        const elsewhere = api.script('/other', [200]);
        const b = api.script('/quota', [{ status: 429, headers: { 'Retry-After': '5' } }, 200], API_2);
        const pacer = new Pacer();
        await run([client(pacer, { retries: 0 }).send(GET('via-A', { path: '/moved' }))]);
        expect(b.hits).toHaveLength(1);
        const toA = client(pacer).send(GET('A', { path: '/other' }));
        await until(() => elsewhere.hits.length === 1);
        expect((await toA).result?.held).toBeUndefined();
        const toB = client(pacer, {}, API_2).send(GET('B'));
        expect(await clock.nextWait()).toBe(5000);
        const [settled] = await run([toB]);
        expect(settled).toMatchObject({ ok: true, status: 200 });
        expect(settled?.result).toMatchObject({ attempts: 1, held: 5000 });
        expect(b.hits).toHaveLength(2);
      },
    );

    it.skipIf(!suite.answeredUrl)(
      "a redirected call's retry, redirected again, waits in B's queue behind the sends straight to B",
      async () => {
        fresh();
        const moved = { status: 307, headers: { Location: `${API_2}/quota` } };
        api.script('/moved', [moved, moved]);
        const b = api.script('/quota', [SPENT(429), 200], API_2);
        const pacer = new Pacer();
        const viaA = client(pacer, { retries: 1 }).send(GET('via-A', { path: '/moved' }));
        await until(() => b.hits.length === 1 && clock.pendingCount === 1);
        // B is spent for 2 s, then allows one a second: three sends straight to B take its slots at 2, 3 and 4 s.
        const toB = ['B1', 'B2', 'B3'].map((id) => client(pacer, {}, API_2).send(GET(id)));
        await until(() => clock.pendingCount === 4);
        const [first, ...others] = await run([viaA, ...toB], 25);
        expect(others.map((call) => call?.result?.held)).toEqual([2025, 3075, 4125]);
        // The retry (sent to A, answered by B), due at 3.5 s, waited for B's next slot (5.2 s), not for A's (none).
        expect(first?.result).toMatchObject({ attempts: 2, totalDelay: 3500, held: 1675 });
        expect(b.hits.map((hit) => hit.headers.get('x-id'))).toEqual(['via-A', 'B1', 'B2', 'B3', 'via-A']);
      },
    );
  });
}
