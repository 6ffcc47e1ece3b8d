import type { BackoffOptions, BackoffResult, CircuitOpenError, RetryEvent } from 'backoff-core';
import { describe, expect, it } from 'vitest';
import { FakeNetwork } from './fake-network.js';
import { API, ScriptedApi } from './scripted-api.js';
import { serveTests } from './serve-tests.js';
import { VirtualClock } from './virtual-clock.js';

/** One request, in the suite's neutral terms; each driver translates it to its client. */
export interface SuiteRequest {
  readonly method: string;
  /** Path below the API's base URL, e.g. '/items'. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as a JSON body. */
  readonly json?: unknown;
  readonly signal?: AbortSignal;
  /** The per-request override (`config.backoff` in axios, the ky request option, ...). */
  readonly backoff?: BackoffOptions | false;
}

/** How a call ended, without throwing: what the caller got, and the backoff result attached to it. */
export type Settled =
  | { readonly ok: true; readonly status: number; readonly result: BackoffResult | undefined }
  | {
      readonly ok: false;
      readonly error: unknown;
      readonly status: number | undefined;
      readonly result: BackoffResult | undefined;
    };

/** The kinds of final error a caller can see; the driver says which one an error is, by the client's own types. */
export type ErrorKindSeen = 'http' | 'network' | 'abort' | 'timeout' | 'other';

/** A client with backoff, wrapped for the suite. */
export interface BackoffClientDriver {
  /** Shown in test names, e.g. 'axios (fetch adapter)'. */
  readonly name: string;
  /** Whether a final non-2xx response rejects (axios, ky) rather than resolves (fetch). */
  readonly rejectsOnHttpError: boolean;
  /** A client with retries against `baseUrl`; `options` are the adapter's options, passed as they are. */
  create(baseUrl: string, options: BackoffOptions): { send(request: SuiteRequest): Promise<Settled> };
  /** Classifies a final error by the client's own error types (`instanceof` / the client's guards). */
  errorKind(error: unknown): ErrorKindSeen;
  /**
   * Reads the body of the client's own response object as `shouldRetry` gets it (a fetch `Response` is read
   * through a clone, so the caller's stays unread), and throws if it is not that client's response type.
   */
  readBody(response: unknown): Promise<string>;
  /**
   * The core's `CircuitOpenError` a call failed with, where the client puts it (axios: the `cause` of an
   * AxiosError with the code 'ERR_CIRCUIT_OPEN'). Without it, the error itself must be one.
   */
  circuitOpen?(error: unknown): CircuitOpenError | undefined;
  /**
   * The client rejects a call whose signal is already aborted before the retry layer sees the call (axios checks
   * it ahead of any adapter): its own error then carries no backoff result.
   */
  readonly rejectsAbortedBeforeAdapter?: boolean;
}

/**
 * The behaviour every client with backoff must show, against MSW-simulated servers with server-side
 * counters. Waits run on a virtual clock and `random` is fixed at 0.5, so every delay is asserted exactly.
 */
export function describeBackoffClient(driver: BackoffClientDriver): void {
  describe(`behaviour suite: ${driver.name}`, () => {
    const api = new ScriptedApi();
    let clock: VirtualClock;

    serveTests(api, () => clock);

    const client = (options: BackoffOptions = {}) => {
      clock = new VirtualClock();
      return driver.create(API, { random: () => 0.5, timers: clock.timers, now: clock.now, ...options });
    };
    const expectHttpFailure = (settled: Settled, status: number) => {
      if (driver.rejectsOnHttpError) {
        expect(settled.ok).toBe(false);
        if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('http');
      } else {
        expect(settled.ok).toBe(true);
      }
      expect(settled.status).toBe(status);
    };

    it('503, 503, 200 succeeds on the third attempt with full-jitter waits of 500 and 1000 ms', async () => {
      const route = api.script('/items', [503, 503, 200]);
      const settled = await client().send({ method: 'GET', path: '/items' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(3);
      expect(clock.waits).toEqual([500, 1000]);
      expect(settled.result).toMatchObject({ attempts: 3, totalDelay: 1500 });
    });

    it('equal and none jitter give their exact delays', async () => {
      api.script('/items', [500, 502, 504, 200]);
      await client({ jitter: 'equal' }).send({ method: 'GET', path: '/items' });
      expect(clock.waits).toEqual([750, 1500, 3000]);
      api.script('/other', [503, 503, 200]);
      await client({ jitter: 'none', baseDelay: 100, factor: 3 }).send({ method: 'GET', path: '/other' });
      expect(clock.waits).toEqual([100, 300]);
    });

    it('429 with Retry-After in seconds waits the server delay plus a spread above it, never less', async () => {
      const route = api.script('/limited', [{ status: 429, headers: { 'Retry-After': '2' } }, 200]);
      const settled = await client().send({ method: 'GET', path: '/limited' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(2);
      // 2000 ms floor + 0.5 x a window of 3000 ms (1.5 x the delay).
      expect(clock.waits).toEqual([3500]);
    });

    it('429 with an HTTP-date Retry-After waits until that date', async () => {
      const c = client();
      const date = new Date(clock.now() + 3000).toUTCString();
      const route = api.script('/limited', [{ status: 429, headers: { 'Retry-After': date } }, 200]);
      const settled = await c.send({ method: 'GET', path: '/limited' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(2);
      // 3000 ms floor + 0.5 x a window of 3500 ms (1.5 x the delay, at most 3.5 s).
      expect(clock.waits).toEqual([4750]);
    });

    it('a Retry-After list joining seconds and a date (two header lines) waits for the later one', async () => {
      const c = client();
      const date = new Date(clock.now() + 5000).toUTCString();
      const route = api.script('/limited', [{ status: 503, headers: { 'Retry-After': `2, ${date}` } }, 200]);
      const settled = await c.send({ method: 'GET', path: '/limited' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(2);
      // 5000 ms floor + 0.5 x a window of 3500 ms (1.5 x the delay, at most 3.5 s).
      expect(clock.waits).toEqual([6750]);
    });

    it('a Retry-After above maxRetryAfter gives up at once and reports the server delay', async () => {
      const route = api.script('/limited', [{ status: 429, headers: { 'Retry-After': '120' } }, 200]);
      const settled = await client().send({ method: 'GET', path: '/limited' });
      expectHttpFailure(settled, 429);
      expect(route.hits).toHaveLength(1);
      expect(clock.waits).toEqual([]);
      expect(settled.result).toMatchObject({
        attempts: 1,
        reason: 'retry-after-too-long',
        serverDelay: 120_000,
      });
    });

    it('a server that keeps answering Retry-After: 0 is no loop: each repeat waits a floor that doubles, and serverRetries ends the call', async () => {
      const now = { status: 503, headers: { 'Retry-After': '0' } };
      // Enough "now"s to show a loop (a call that went round them all would end with the 200).
      const route = api.script('/now', [...Array.from({ length: 300 }, () => now), 200]);
      const settled = await client({ retryAfterSpread: 0, budget: false }).send({
        method: 'GET',
        path: '/now',
      });
      expectHttpFailure(settled, 503);
      expect(route.hits).toHaveLength(11);
      // The server's first "now" is taken at once (no timer); each repeat waits 100 ms, doubled each time.
      expect(clock.waits).toEqual([100, 200, 400, 800, 1600, 3200, 6400, 12_800, 25_600]);
      expect(settled.result).toMatchObject({
        attempts: 11,
        totalDelay: 51_100,
        reason: 'server-retries-exhausted',
        serverDelay: 0,
      });
      // serverRetries raises the cap; maxRetryAfter still ends the call once the floor passes it.
      const capped = api.script('/capped', [...Array.from({ length: 300 }, () => now), 200]);
      const short = await client({
        retryAfterSpread: 0,
        budget: false,
        serverRetries: 50,
        maxRetryAfter: 1000,
      }).send({
        method: 'GET',
        path: '/capped',
      });
      expect(capped.hits).toHaveLength(6);
      expect(short.result).toMatchObject({ attempts: 6, reason: 'retry-after-too-long', serverDelay: 0 });
    });

    it('a malformed Retry-After is ignored and the computed backoff is used', async () => {
      api.script('/limited', [{ status: 503, headers: { 'Retry-After': '1.5' } }, 200]);
      const settled = await client().send({ method: 'GET', path: '/limited' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(clock.waits).toEqual([500]);
    });

    it.each([400, 401, 403, 404, 422, 501])('%i is not retried', async (status) => {
      const route = api.script('/items', [status, 200]);
      const settled = await client().send({ method: 'GET', path: '/items' });
      expectHttpFailure(settled, status);
      expect(route.hits).toHaveLength(1);
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'not-retryable-status' });
    });

    it('after `retries` retries the last failure is returned', async () => {
      const route = api.script('/down', [503]);
      const settled = await client({ retries: 2 }).send({ method: 'GET', path: '/down' });
      expectHttpFailure(settled, 503);
      expect(route.hits).toHaveLength(3);
      expect(settled.result).toMatchObject({ attempts: 3, totalDelay: 1500, reason: 'retries-exhausted' });
    });

    it('a 2xx listed in `statusCodes` (a 202 polled until 200) is retried like any listed status', async () => {
      const route = api.script('/job', [202, 202, 200]);
      const settled = await client({ statusCodes: [202, 503] }).send({ method: 'GET', path: '/job' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(3);
      expect(clock.waits).toEqual([500, 1000]);
      expect(settled.result).toMatchObject({ attempts: 3, totalDelay: 1500, reason: 'success' });
    });

    it('a listed 2xx on every attempt ends as a response after `retries`, each retry taking one budget token', async () => {
      const job = api.script('/job', [202]);
      const c = client({ statusCodes: [202, 503], retries: 2, budget: { reserve: 2, ratio: 0 } });
      const settled = await c.send({ method: 'GET', path: '/job' });
      expect(settled).toMatchObject({ ok: true, status: 202 });
      expect(job.hits).toHaveLength(3);
      expect(settled.result).toMatchObject({ attempts: 3, totalDelay: 1500, reason: 'retries-exhausted' });
      // Both tokens went to retries that were sent: the next call has none left.
      const down = api.script('/down', [503]);
      const next = await c.send({ method: 'GET', path: '/down' });
      expect(down.hits).toHaveLength(1);
      expect(next.result).toMatchObject({ attempts: 1, reason: 'budget-exhausted' });
    });

    it('no wait is started that would end after the deadline', async () => {
      const route = api.script('/down', [503]);
      const settled = await client({ deadline: 1200 }).send({ method: 'GET', path: '/down' });
      expectHttpFailure(settled, 503);
      // 500 ms fits; the next 1000 ms would end at 1500 > 1200.
      expect(route.hits).toHaveLength(2);
      expect(clock.waits).toEqual([500]);
      expect(settled.result?.reason).toBe('deadline');
    });

    it('a network error on a GET is retried', async () => {
      const route = api.script('/flaky', ['network-error', 200]);
      const settled = await client().send({ method: 'GET', path: '/flaky' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(2);
    });

    it('a network failure on every attempt ends with the last one, carrying attempts and total wait', async () => {
      const route = api.script('/gone', ['network-error']);
      const settled = await client({ retries: 2 }).send({ method: 'GET', path: '/gone' });
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('network');
      expect(route.hits).toHaveLength(3);
      expect(settled.result).toMatchObject({ attempts: 3, totalDelay: 1500, reason: 'retries-exhausted' });
    });

    describe('delay: a wait of your own', () => {
      it('replaces the computed backoff (a linear delay), told the retry, the status and what the policy computed', async () => {
        const route = api.script('/linear', [503, 502, 200]);
        const seen: unknown[] = [];
        const settled = await client({
          delay: ({ retry, status, computed, serverDelay, method }) => {
            seen.push({ retry, status, computed, serverDelay, method });
            return retry * 100;
          },
        }).send({ method: 'GET', path: '/linear' });
        expect(settled).toMatchObject({ ok: true, status: 200 });
        expect(route.hits).toHaveLength(3);
        expect(clock.waits).toEqual([100, 200]);
        expect(seen).toEqual([
          { retry: 1, status: 503, computed: 500, serverDelay: undefined, method: 'GET' },
          { retry: 2, status: 502, computed: 1000, serverDelay: undefined, method: 'GET' },
        ]);
        expect(settled.result).toMatchObject({ attempts: 3, totalDelay: 300 });
      });

      it("keeps the server's Retry-After as a floor, and maxRetryAfter as the limit", async () => {
        api.script('/limited', [{ status: 429, headers: { 'Retry-After': '2' } }, 200]);
        const short = await client({ delay: () => 10 }).send({ method: 'GET', path: '/limited' });
        expect(short).toMatchObject({ ok: true, status: 200 });
        expect(clock.waits).toEqual([2000]);
        const asked: number[] = [];
        const route = api.script('/far', [{ status: 503, headers: { 'Retry-After': '120' } }, 200]);
        const far = await client({ delay: ({ retry }) => asked.push(retry) }).send({
          method: 'GET',
          path: '/far',
        });
        expect(route.hits).toHaveLength(1);
        expect(asked).toEqual([]);
        expect(far.result).toMatchObject({
          attempts: 1,
          reason: 'retry-after-too-long',
          serverDelay: 120_000,
        });
      });

      it('keeps the deadline and the budget', async () => {
        const late = api.script('/late', [503, 200]);
        const timed = await client({ delay: () => 5000, deadline: 1000 }).send({
          method: 'GET',
          path: '/late',
        });
        expect(late.hits).toHaveLength(1);
        expect(timed.result).toMatchObject({ attempts: 1, reason: 'deadline' });
        const spent = api.script('/spent', [503, 200]);
        const budgeted = await client({ delay: () => 1, budget: { reserve: 0, ratio: 0 } }).send({
          method: 'GET',
          path: '/spent',
        });
        expect(spent.hits).toHaveLength(1);
        expect(budgeted.result).toMatchObject({ attempts: 1, reason: 'budget-exhausted' });
      });

      it('an abort ends its wait at once', async () => {
        const route = api.script('/slow', [503, 200]);
        const c = client({ delay: () => 60_000 });
        clock.auto = false;
        const controller = new AbortController();
        const pending = c.send({ method: 'GET', path: '/slow', signal: controller.signal });
        expect(await clock.nextWait()).toBe(60_000);
        controller.abort();
        const settled = await pending;
        expect(settled.ok).toBe(false);
        if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
        expect(route.hits).toHaveLength(1);
        expect(settled.result).toMatchObject({ attempts: 1, reason: 'aborted' });
      });

      it('a wait that is no number of ms ends the call with a TypeError naming `delay`, nothing re-sent', async () => {
        const route = api.script('/bad', [503, 200]);
        const settled = await client({ delay: () => Number.NaN }).send({ method: 'GET', path: '/bad' });
        expect(settled.ok).toBe(false);
        if (!settled.ok) {
          expect(settled.error).toBeInstanceOf(TypeError);
          expect(String(settled.error)).toMatch(/`delay` to return a number of ms from 0 to \d+, got NaN/);
        }
        expect(route.hits).toHaveLength(1);
      });
    });

    it('every result the caller reads is frozen: first-try successes, keyed POSTs, deadlines, retries, failures', async () => {
      api.script('/plain', [200]);
      api.script('/keyed', [201]);
      api.script('/timed', [200]);
      api.script('/retried', [503, 200]);
      api.script('/failed', [404]);
      const keyed = { 'Idempotency-Key': '"order-1"' };
      const results = [
        await client().send({ method: 'GET', path: '/plain' }),
        await client().send({ method: 'POST', path: '/keyed', headers: keyed, json: { n: 1 } }),
        await client({ deadline: 10_000 }).send({ method: 'GET', path: '/timed' }),
        await client().send({ method: 'GET', path: '/retried' }),
        await client().send({ method: 'GET', path: '/failed' }),
      ].map((settled) => settled.result);
      expect(results.map((result) => result?.attempts)).toEqual([1, 1, 1, 2, 1]);
      for (const result of results) expect(Object.isFrozen(result)).toBe(true);
    });

    it('PUT and DELETE are retried without a key; PATCH is not', async () => {
      const put = api.script('/put', [503, 200]);
      expect(await client().send({ method: 'PUT', path: '/put', json: { n: 1 } })).toMatchObject({
        ok: true,
      });
      expect(put.hits.map((hit) => hit.method)).toEqual(['PUT', 'PUT']);
      const del = api.script('/delete', [503, 204]);
      expect(await client().send({ method: 'DELETE', path: '/delete' })).toMatchObject({
        ok: true,
        status: 204,
      });
      expect(del.hits).toHaveLength(2);
      const patch = api.script('/patch', [503, 200]);
      const settled = await client().send({ method: 'PATCH', path: '/patch', json: { n: 1 } });
      expectHttpFailure(settled, 503);
      expect(patch.hits).toHaveLength(1);
      expect(settled.result?.reason).toBe('method-not-idempotent');
    });

    it('413 is retried only with a server timing header', async () => {
      const timed = api.script('/big', [{ status: 413, headers: { 'Retry-After': '1' } }, 200]);
      expect(await client().send({ method: 'PUT', path: '/big', json: {} })).toMatchObject({ ok: true });
      expect(timed.hits).toHaveLength(2);
      expect(clock.waits).toEqual([1750]);
      const plain = api.script('/too-big', [413, 200]);
      const settled = await client().send({ method: 'PUT', path: '/too-big', json: {} });
      expectHttpFailure(settled, 413);
      expect(plain.hits).toHaveLength(1);
    });

    it('a POST without an Idempotency-Key is never retried, on a 503 or a network error', async () => {
      const route = api.script('/orders', [503, 200]);
      const settled = await client().send({ method: 'POST', path: '/orders', json: { n: 1 } });
      expectHttpFailure(settled, 503);
      expect(route.hits).toHaveLength(1);
      expect(settled.result?.reason).toBe('method-not-idempotent');

      const broken = api.script('/broken', ['network-error', 200]);
      const failed = await client().send({ method: 'POST', path: '/broken', json: { n: 1 } });
      expect(failed.ok).toBe(false);
      if (!failed.ok) expect(driver.errorKind(failed.error)).toBe('network');
      expect(broken.hits).toHaveLength(1);
    });

    it('a POST with an Idempotency-Key is retried with the same key and body', async () => {
      const route = api.script('/orders', [503, 'network-error', 201]);
      const settled = await client().send({
        method: 'POST',
        path: '/orders',
        headers: { 'idempotency-key': '"k-1"' },
        json: { n: 1 },
      });
      expect(settled).toMatchObject({ ok: true, status: 201 });
      expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual([
        '"k-1"',
        '"k-1"',
        '"k-1"',
      ]);
      expect(route.hits.map((hit) => hit.body)).toEqual(['{"n":1}', '{"n":1}', '{"n":1}']);
    });

    it("idempotencyKey 'auto' sends one key per logical request, the same on every attempt", async () => {
      const route = api.script('/orders', [503, 503, 201]);
      const c = client({ idempotencyKey: 'auto' });
      const settled = await c.send({ method: 'POST', path: '/orders', json: { n: 1 } });
      expect(settled).toMatchObject({ ok: true, status: 201 });
      const keys = route.hits.map((hit) => hit.headers.get('idempotency-key'));
      expect(keys).toHaveLength(3);
      expect(keys[0]).toMatch(/^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/);
      expect(new Set(keys).size).toBe(1);

      const second = api.script('/orders2', [201]);
      await c.send({ method: 'POST', path: '/orders2', json: { n: 2 } });
      expect(second.hits[0]?.headers.get('idempotency-key')).not.toBe(keys[0]);
    });

    it('a key that cannot travel (not visible ASCII) is a TypeError naming the problem, and nothing is sent', async () => {
      const route = api.script('/orders', [503, 201]);
      const generated = await client({ idempotencyKey: () => 'заказ-α' }).send({
        method: 'POST',
        path: '/orders',
        json: { n: 1 },
      });
      expect(generated).toMatchObject({ ok: false });
      if (!generated.ok) {
        expect(generated.error).toBeInstanceOf(TypeError);
        expect(String(generated.error)).toMatch(/`idempotencyKey`.*"з" \(U\+0437\) is not visible ASCII/);
      }
      const caller = await client().send({
        method: 'POST',
        path: '/orders',
        headers: { 'Idempotency-Key': 'café-1' },
        json: { n: 1 },
      });
      expect(caller).toMatchObject({ ok: false });
      if (!caller.ok) {
        expect(caller.error).toBeInstanceOf(TypeError);
        expect(String(caller.error)).toMatch(
          /`Idempotency-Key` header cannot be sent as it is, got "café-1"/,
        );
      }
      expect(route.hits).toHaveLength(0);
    });

    it('409 is retried only when the request carries a key', async () => {
      const keyed = api.script('/keyed', [409, 200]);
      const ok = await client().send({
        method: 'POST',
        path: '/keyed',
        headers: { 'Idempotency-Key': '"a"' },
      });
      expect(ok).toMatchObject({ ok: true, status: 200 });
      expect(keyed.hits).toHaveLength(2);
      const plain = api.script('/plain', [409, 200]);
      const settled = await client().send({ method: 'PUT', path: '/plain' });
      expectHttpFailure(settled, 409);
      expect(plain.hits).toHaveLength(1);
    });

    it('with default options nothing is added to the request', async () => {
      const route = api.script('/items', [503, 200]);
      await client({ idempotencyKey: 'auto' }).send({ method: 'GET', path: '/items' });
      await client().send({ method: 'POST', path: '/items', json: {} });
      for (const hit of route.hits) {
        expect(hit.headers.has('idempotency-key')).toBe(false);
        expect(hit.headers.has('x-retry-count')).toBe(false);
      }
    });

    it('per request: `backoff: false` turns retries off, an options object overrides', async () => {
      const off = api.script('/off', [503, 200]);
      const settled = await client().send({ method: 'GET', path: '/off', backoff: false });
      expectHttpFailure(settled, 503);
      expect(off.hits).toHaveLength(1);

      const once = api.script('/once', [503]);
      await client().send({ method: 'GET', path: '/once', backoff: { retries: 1, jitter: 'none' } });
      expect(once.hits).toHaveLength(2);
      expect(clock.waits).toEqual([1000]);
    });

    it('onRetry fires before every wait with the retry number, delay, reason and status', async () => {
      api.script('/items', [503, { status: 429, headers: { 'retry-after': '1' } }, 200]);
      const events: RetryEvent[] = [];
      await client({ onRetry: (event) => events.push(event) }).send({ method: 'GET', path: '/items' });
      expect(
        events.map(({ retry, delay, reason, status, method }) => ({ retry, delay, reason, status, method })),
      ).toEqual([
        { retry: 1, delay: 500, reason: 'status', status: 503, method: 'GET' },
        { retry: 2, delay: 1750, reason: 'status', status: 429, method: 'GET' },
      ]);
      expect(events[0]?.url).toContain('/items');
    });

    it('an abort during a wait rejects at once with the abort error, with no further attempt', async () => {
      const route = api.script('/slow', [503, 200]);
      const c = client();
      clock.auto = false;
      const controller = new AbortController();
      const pending = c.send({ method: 'GET', path: '/slow', signal: controller.signal });
      expect(await clock.nextWait()).toBe(500);
      controller.abort();
      const settled = await pending;
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
      expect(route.hits).toHaveLength(1);
      expect(clock.pendingCount).toBe(0);
      // The reason says why the call stopped: the abort, not the 503 it was waiting to retry.
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'aborted' });
    });

    it("an async shouldRetry reads the body of the client's own response", async () => {
      const route = api.script('/items', [
        { status: 503, body: 'busy, retry' },
        { status: 503, body: 'down for good' },
        200,
      ]);
      const bodies: string[] = [];
      const settled = await client({
        shouldRetry: async ({ response, status }) => {
          const body = await driver.readBody(response);
          bodies.push(`${status} ${body}`);
          return body.endsWith('retry');
        },
      }).send({ method: 'GET', path: '/items' });
      expectHttpFailure(settled, 503);
      expect(bodies).toEqual(['503 busy, retry', '503 down for good']);
      expect(route.hits).toHaveLength(2);
      expect(settled.result).toMatchObject({ attempts: 2, reason: 'should-retry' });
    });

    it("shouldRetry is asked about failures only: axios-retry's `status !== 200`, translated literally, sends a 201 once", async () => {
      // As a switcher writes `retryCondition: (e) => e.response?.status !== 200`: a 201 is no failure, so it is
      // never asked about it (as axios-retry, retry-axios and ky never ask about a success).
      const route = api.script('/created', [503, 201]);
      const asked: (number | undefined)[] = [];
      const settled = await client({
        shouldRetry: ({ status }) => {
          asked.push(status);
          return status !== 200;
        },
      }).send({ method: 'GET', path: '/created' });
      expect(settled).toMatchObject({ ok: true, status: 201 });
      expect(route.hits).toHaveLength(2);
      expect(asked).toEqual([503]);
      expect(settled.result).toMatchObject({ attempts: 2, totalDelay: 500, reason: 'success' });

      // A 2xx that `statusCodes` lists is a failure of the rules: it is asked about, and `false` ends the polling.
      const job = api.script('/job', [202, 200]);
      const polled: (number | undefined)[] = [];
      const done = await client({
        statusCodes: [202],
        shouldRetry: ({ status }) => {
          polled.push(status);
          return false;
        },
      }).send({ method: 'GET', path: '/job' });
      expect(done).toMatchObject({ ok: true, status: 202 });
      expect(job.hits).toHaveLength(1);
      expect(polled).toEqual([202]);
      expect(done.result).toMatchObject({ attempts: 1, reason: 'should-retry' });
    });

    it('an async onRetry is awaited before the wait starts; its rejection ends the call with its error', async () => {
      api.script('/items', [503, 503, 200]);
      const waitsWhenDone: number[] = [];
      const settled = await client({
        onRetry: async () => {
          await new Promise((resolve) => setImmediate(resolve));
          waitsWhenDone.push(clock.waits.length);
        },
      }).send({ method: 'GET', path: '/items' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      // Each onRetry finished before its own wait was started.
      expect(waitsWhenDone).toEqual([0, 1]);

      const route = api.script('/refresh', [503, 200]);
      const boom = new Error('token refresh failed');
      const failed = await client({ onRetry: () => Promise.reject(boom) }).send({
        method: 'GET',
        path: '/refresh',
      });
      expect(failed).toMatchObject({ ok: false, error: boom });
      expect(route.hits).toHaveLength(1);
      expect(clock.waits).toEqual([]);
    });

    it('an abort while an async shouldRetry runs rejects at once with the abort error', async () => {
      const route = api.script('/slow', [503, 200]);
      const controller = new AbortController();
      let release: (value: boolean) => void = () => {};
      const settled = await client({
        shouldRetry: () => {
          // Abort while the condition is still pending (a turn later); it answers only after the call has ended.
          setImmediate(() => controller.abort());
          return new Promise<boolean>((resolve) => {
            release = resolve;
          });
        },
      }).send({ method: 'GET', path: '/slow', signal: controller.signal });
      release(true);
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
      expect(route.hits).toHaveLength(1);
      expect(clock.waits).toEqual([]);
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'aborted' });
    });

    it('an already-aborted signal sends nothing', async () => {
      const route = api.script('/items', [200]);
      const settled = await client().send({ method: 'GET', path: '/items', signal: AbortSignal.abort() });
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
      expect(route.hits).toHaveLength(0);
    });

    it('30 parallel GETs against a limiter of 10 per 2 s all succeed with the default budget', async () => {
      const c = client();
      clock.auto = false;
      const route = api.limiter('/burst', { limit: 10, windowMs: 2000, now: clock.now });
      let settledCount = 0;
      const calls = Array.from({ length: 30 }, () =>
        c.send({ method: 'GET', path: '/burst' }).finally(() => settledCount++),
      );
      // Drive the clock one wave at a time: once every call has either ended or started its wait, move 3 s on.
      for (let step = 0; settledCount < 30; step++) {
        if (step > 100_000) throw new Error('the burst never settled');
        await new Promise((resolve) => setImmediate(resolve));
        if (settledCount + clock.pendingCount === 30 && clock.pendingCount > 0) clock.advance(3000);
      }
      const results = await Promise.all(calls);
      expect(results.filter((settled) => settled.ok && settled.status === 200)).toHaveLength(30);
      expect(results.map((settled) => settled.result?.reason)).toEqual(Array(30).fill('success'));
      // 30 first attempts, 20 retries after the first window, 10 after the second: every one waited as told,
      // 2 s + 0.5 x 3 s, and the 10 told twice 2 s + 0.5 x 6 s (the window doubles on a repeated ask).
      expect(route.hits).toHaveLength(60);
      expect(new Set(clock.waits)).toEqual(new Set([3500, 5000]));
    });

    // The server's explicit word (x-should-retry, Stripe-Should-Retry), read from the response the client gives.
    it.each([
      ['x-should-retry', 'false', 503, 1, 'should-retry-header'],
      ['Stripe-Should-Retry', 'false', 500, 1, 'should-retry-header'],
      ['x-should-retry', 'false', 429, 1, 'should-retry-header'],
      ['x-should-retry', 'true', 400, 2, 'success'],
      ['Stripe-Should-Retry', 'true', 409, 2, 'success'],
      ['X-Should-Retry', 'TRUE', 501, 2, 'success'],
      ['x-should-retry', 'maybe', 503, 2, 'success'],
      ['x-should-retry', 'maybe', 400, 1, 'not-retryable-status'],
    ] as const)(
      'the server says %s: %s on a %i: %i request(s), %s',
      async (header, value, status, hits, reason) => {
        const route = api.script('/hinted', [{ status, headers: { [header]: value } }, 200]);
        const events: RetryEvent[] = [];
        const settled = await client({ onRetry: (event) => events.push(event) }).send({
          method: 'PUT',
          path: '/hinted',
          json: { n: 1 },
        });
        expect(route.hits).toHaveLength(hits);
        expect(settled.result).toMatchObject({ attempts: hits, reason });
        if (hits === 1) expectHttpFailure(settled, status);
        else expect(settled).toMatchObject({ ok: true, status: 200 });
        if (value === 'true' || value === 'TRUE') {
          expect(events.map((event) => event.reason)).toEqual(['should-retry-header']);
        }
      },
    );

    it('x-should-retry: true does not lift the method gate, retries, maxRetryAfter or the budget', async () => {
      const yes = { 'x-should-retry': 'true' };
      const post = api.script('/post', [{ status: 400, headers: yes }, 200]);
      const keyless = await client().send({ method: 'POST', path: '/post', json: { n: 1 } });
      expectHttpFailure(keyless, 400);
      expect(post.hits).toHaveLength(1);
      expect(keyless.result?.reason).toBe('method-not-idempotent');

      const always = api.script('/always', [{ status: 400, headers: yes }]);
      const exhausted = await client({ retries: 2 }).send({ method: 'GET', path: '/always' });
      expectHttpFailure(exhausted, 400);
      expect(always.hits).toHaveLength(3);
      expect(exhausted.result?.reason).toBe('retries-exhausted');

      const later = api.script('/later', [{ status: 400, headers: { ...yes, 'Retry-After': '120' } }, 200]);
      const tooLong = await client().send({ method: 'GET', path: '/later' });
      expect(later.hits).toHaveLength(1);
      expect(tooLong.result).toMatchObject({ reason: 'retry-after-too-long', serverDelay: 120_000 });

      const budgeted = api.script('/budgeted', [{ status: 400, headers: yes }]);
      const c = client({ budget: { reserve: 1, ratio: 0 }, retries: 5 });
      const first = await c.send({ method: 'GET', path: '/budgeted' });
      expect(first.result).toMatchObject({ attempts: 2, reason: 'budget-exhausted' });
      expect(budgeted.hits).toHaveLength(2);

      const late = api.script('/deadline', [{ status: 400, headers: yes }]);
      const ended = await client({ deadline: 400 }).send({ method: 'GET', path: '/deadline' });
      expect(late.hits).toHaveLength(1);
      expect(ended.result?.reason).toBe('deadline');
    });

    it('shouldRetryHeaders: false ignores both headers, for the client or one request', async () => {
      const no = api.script('/no', [{ status: 503, headers: { 'x-should-retry': 'false' } }, 200]);
      expect(await client({ shouldRetryHeaders: false }).send({ method: 'GET', path: '/no' })).toMatchObject({
        ok: true,
        status: 200,
      });
      expect(no.hits).toHaveLength(2);

      const yes = api.script('/yes', [{ status: 400, headers: { 'Stripe-Should-Retry': 'true' } }, 200]);
      const settled = await client().send({
        method: 'GET',
        path: '/yes',
        backoff: { shouldRetryHeaders: false },
      });
      expectHttpFailure(settled, 400);
      expect(yes.hits).toHaveLength(1);
      expect(settled.result?.reason).toBe('not-retryable-status');
    });

    // An offline device (a fake network source: Node has none of its own) holds a network-error retry back.
    it('a network error while offline is retried only once the device is back online', async () => {
      const route = api.script('/offline', ['network-error', 200]);
      const network = new FakeNetwork(false);
      const events: RetryEvent[] = [];
      const c = client({ network, onRetry: (event) => events.push(event) });
      clock.auto = false;
      const pending = c.send({ method: 'GET', path: '/offline' });
      expect(await clock.nextWait()).toBe(500);
      clock.advance(500);
      // The computed delay is over; give the client every chance to send too early.
      for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(route.hits).toHaveLength(1);
      network.goOnline();
      const settled = await pending;
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits).toHaveLength(2);
      expect(events.map((event) => event.waitingForNetwork)).toEqual([true]);
      expect(network.listeners).toBe(0);
    });

    it("the deadline ends a wait for the network with the client's own network error", async () => {
      const route = api.script('/offline', ['network-error', 200]);
      const network = new FakeNetwork(false);
      const c = client({ network, deadline: 5000 });
      clock.auto = false;
      const pending = c.send({ method: 'GET', path: '/offline' });
      expect(await clock.nextWait()).toBe(500);
      clock.advance(500);
      // The rest of the deadline is the next timer: the wait for the network ends with it.
      expect(await clock.nextWait()).toBe(4500);
      clock.advance(4500);
      const settled = await pending;
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('network');
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'deadline', totalDelay: 5000 });
      expect(route.hits).toHaveLength(1);
      expect(network.listeners).toBe(0);
    });

    it('under an always-503 server the budget stops retries after its reserve', async () => {
      const route = api.script('/down', [503]);
      const c = client({ budget: { reserve: 2, ratio: 0.1 } });
      for (let i = 0; i < 5; i++) await c.send({ method: 'GET', path: '/down' });
      // 5 requests + the 2 retries of the reserve, then every request fails once with the budget empty.
      expect(route.hits).toHaveLength(7);
      const last = await c.send({ method: 'GET', path: '/down' });
      expect(last.result).toMatchObject({ attempts: 1, reason: 'budget-exhausted' });
    });
  });
}
