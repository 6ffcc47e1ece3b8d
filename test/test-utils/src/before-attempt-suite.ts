import { type AttemptContext, type BackoffOptions, DEFAULT_STATUS_CODES } from 'backoff-core';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import type { BackoffClientDriver } from './behaviour-suite.js';
import { API, type Hit, ScriptedApi } from './scripted-api.js';
import { serveTests } from './serve-tests.js';
import { VirtualClock } from './virtual-clock.js';

/** How old a signature the signed route still takes, in ms of the test's clock. */
const FRESH_FOR = 500;

/**
 * `beforeAttempt` on every client: it shapes each attempt's headers (the first one too), on that attempt alone;
 * it may be async, under the deadline and the caller's abort; a throw ends the call with its error; and the
 * idempotency rules hold on what is finally sent. Counted on the server.
 */
export function describeBeforeAttemptClient(driver: BackoffClientDriver): void {
  describe(`beforeAttempt shapes every attempt: ${driver.name}`, () => {
    const api = new ScriptedApi();
    let clock = new VirtualClock();
    serveTests(api, () => clock);

    const client = (options: BackoffOptions = {}) => {
      clock = new VirtualClock();
      return driver.create(API, { random: () => 0.5, timers: clock.timers, now: clock.now, ...options });
    };

    /**
     * A route that answers its first request 503 with `Retry-After: 1`, then refuses (401) an `x-signed-at` older
     * than FRESH_FOR ms by the test's clock, and takes a fresh one (200).
     */
    const signedRoute = () => {
      const hits: Hit[] = [];
      api.server.use(
        http.all(`${API}/signed`, ({ request }) => {
          hits.push({ method: request.method, url: request.url, headers: request.headers, body: '' });
          if (hits.length === 1)
            return new HttpResponse('busy', { status: 503, headers: { 'Retry-After': '1' } });
          const signedAt = Number(request.headers.get('x-signed-at'));
          return clock.now() - signedAt > FRESH_FOR
            ? new HttpResponse('stale signature', { status: 401 })
            : new HttpResponse('ok', { status: 200 });
        }),
      );
      return hits;
    };

    it('a signature made again before the retry is fresh after a Retry-After wait: 200', async () => {
      const hits = signedRoute();
      const settled = await client({
        beforeAttempt: ({ headers }) => headers.set('x-signed-at', String(clock.now())),
      }).send({ method: 'GET', path: '/signed' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(hits).toHaveLength(2);
      // The first attempt was signed by the hook too, and the retry went after the server's second.
      expect(hits.map((hit) => hit.headers.has('x-signed-at'))).toEqual([true, true]);
      expect(clock.waits[0]).toBeGreaterThanOrEqual(1000);
      expect(settled.result).toMatchObject({ attempts: 2, reason: 'success' });
    });

    it('without the hook the signature made once is stale by the retry: 401', async () => {
      const hits = signedRoute();
      const c = client();
      const settled = await c.send({
        method: 'GET',
        path: '/signed',
        headers: { 'x-signed-at': String(clock.now()) },
      });
      expect(settled.status).toBe(401);
      expect(settled.ok).toBe(!driver.rejectsOnHttpError);
      expect(hits).toHaveLength(2);
    });

    it('a header set for one attempt stays on that attempt; the caller’s headers go on every one', async () => {
      const route = api.script('/items', [503, 503, 200]);
      const seen: Omit<AttemptContext, 'headers' | 'signal'>[] = [];
      const settled = await client({
        beforeAttempt: ({ headers, signal, ...context }) => {
          seen.push(context);
          if (context.retry === 1) headers.set('x-once', 'yes');
          expect(headers.get('x-caller')).toBe('kept');
        },
      }).send({ method: 'GET', path: '/items', headers: { 'x-caller': 'kept' } });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits.map((hit) => hit.headers.get('x-once'))).toEqual([null, 'yes', null]);
      expect(route.hits.map((hit) => hit.headers.get('x-caller'))).toEqual(['kept', 'kept', 'kept']);
      expect(seen.map(({ attempt, retry, copy }) => [attempt, retry, copy])).toEqual([
        [1, 0, 1],
        [2, 1, 1],
        [3, 2, 1],
      ]);
      expect(seen[0]?.previous).toBeUndefined();
      expect(seen[1]?.previous).toMatchObject({ status: 503 });
      expect(seen[1]).toMatchObject({ method: 'GET', url: `${API}/items` });
    });

    it('a header the hook deletes is not sent, on that attempt only', async () => {
      const route = api.script('/items', [503, 503, 200]);
      await client({
        beforeAttempt: ({ headers, retry }) => {
          if (retry === 1) headers.delete('X-Caller');
          else expect(headers.get('x-caller')).toBe('kept');
        },
      }).send({ method: 'GET', path: '/items', headers: { 'x-caller': 'kept' } });
      expect(route.hits.map((hit) => hit.headers.get('x-caller'))).toEqual(['kept', null, 'kept']);
    });

    it('an async hook is awaited before the send, and its time counts against the deadline', async () => {
      const route = api.script('/items', [503, 200]);
      const token = (ms: number) =>
        new Promise<string>((resolve) => clock.timers.setTimeout(() => resolve(`t${ms}`), ms));
      const settled = await client({
        beforeAttempt: async ({ headers, retry }) =>
          headers.set('authorization', `Bearer ${await token(100 + retry)}`),
      }).send({ method: 'GET', path: '/items' });
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(route.hits.map((hit) => hit.headers.get('authorization'))).toEqual([
        'Bearer t100',
        'Bearer t101',
      ]);

      // A hook that outlasts the deadline: the retry is not sent.
      const late = api.script('/late', [503, 200]);
      const ended = await client({
        deadline: 2000,
        beforeAttempt: async ({ retry }) => {
          if (retry > 0) await token(5000);
        },
      }).send({ method: 'GET', path: '/late' });
      // The 503 was let go before the wait: the call ends with a TimeoutError that says where the time went.
      expect(ended.ok).toBe(false);
      if (!ended.ok) expect(ended.error).toMatchObject({ name: 'TimeoutError' });
      expect(late.hits).toHaveLength(1);
      expect(ended.result).toMatchObject({ attempts: 1, reason: 'deadline' });
    });

    /**
     * A route that takes only the server's current token (`Bearer t1`, then `Bearer t2` once `rotate()`d) and
     * answers 401 to any other, and a token store as the README's recipe has one: `current()` the token held,
     * `refresh()` a new one from the server (counted).
     */
    const tokenRoute = () => {
      const seen: (string | null)[] = [];
      let valid = 1;
      let held = 1;
      const store = {
        refreshes: 0,
        current: async () => `t${held}`,
        refresh: async () => {
          store.refreshes++;
          held = valid;
          return `t${held}`;
        },
      };
      api.server.use(
        http.all(`${API}/private`, ({ request }) => {
          const authorization = request.headers.get('authorization');
          seen.push(authorization);
          return authorization === `Bearer t${valid}`
            ? new HttpResponse('ok', { status: 200 })
            : new HttpResponse('expired', { status: 401 });
        }),
      );
      return { seen, store, rotate: () => void valid++ };
    };

    it('the README recipe: after a 401 the hook refreshes the token once, and the retry goes at once with it', async () => {
      const { seen, store, rotate } = tokenRoute();
      // As the core README's "refresh a token after a 401" writes it.
      const c = client({
        statusCodes: [...DEFAULT_STATUS_CODES, 401],
        delay: ({ status, computed }) => (status === 401 ? 0 : computed),
        beforeAttempt: async ({ previous, headers }) => {
          const token = previous?.status === 401 ? await store.refresh() : await store.current();
          headers.set('Authorization', `Bearer ${token}`);
        },
      });
      const call = () => c.send({ method: 'GET', path: '/private' });
      // The token held is good: one request, no refresh.
      expect(await call()).toMatchObject({ ok: true, status: 200, result: { attempts: 1 } });
      rotate();
      // The server no longer takes it: 401, one refresh, the retry with the new token, no wait.
      expect(await call()).toMatchObject({
        ok: true,
        status: 200,
        result: { attempts: 2, totalDelay: 0, reason: 'success' },
      });
      expect(await call()).toMatchObject({ ok: true, status: 200, result: { attempts: 1 } });
      expect(seen).toEqual(['Bearer t1', 'Bearer t1', 'Bearer t2', 'Bearer t2']);
      expect(store.refreshes).toBe(1);
    });

    it('a 401 is not retried unless statusCodes lists it: the hook never sees it', async () => {
      const { seen, store, rotate } = tokenRoute();
      rotate();
      const settled = await client({
        beforeAttempt: async ({ previous, headers }) => {
          const token = previous?.status === 401 ? await store.refresh() : await store.current();
          headers.set('Authorization', `Bearer ${token}`);
        },
      }).send({ method: 'GET', path: '/private' });
      expect(settled.status).toBe(401);
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'not-retryable-status' });
      expect(seen).toEqual(['Bearer t1']);
      expect(store.refreshes).toBe(0);
    });

    it('a hook still pending at the deadline ends the call at the deadline: its signal aborts, nothing more is sent', async () => {
      const route = api.script('/hung', [503, 200]);
      let hookSignal: AbortSignal | undefined;
      let answerLate: ((failure: Error) => void) | undefined;
      const c = client({
        deadline: 3000,
        beforeAttempt: ({ retry, signal }) => {
          if (retry === 0) return undefined;
          hookSignal = signal;
          // A token service that hangs: this answers only after the call is over.
          return new Promise((_resolve, reject) => {
            answerLate = reject;
          });
        },
      });
      const started = clock.now();
      const settled = await c.send({ method: 'GET', path: '/hung' });
      expect(clock.now() - started).toBe(3000);
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(settled.error).toMatchObject({ name: 'TimeoutError' });
      expect(hookSignal?.aborted).toBe(true);
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'deadline', totalDelay: 500 });
      // The hook's late failure is nobody's unhandled rejection, and sends nothing.
      answerLate?.(new Error('token service came back'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(route.hits).toHaveLength(1);
    });

    it('a hook that throws ends the call with its error: nothing more is sent', async () => {
      const route = api.script('/items', [503, 200]);
      const failure = new Error('no token');
      const settled = await client({
        beforeAttempt: ({ retry }) => {
          if (retry === 1) throw failure;
        },
      }).send({ method: 'GET', path: '/items' });
      expect(settled).toMatchObject({ ok: false, error: failure });
      expect(route.hits).toHaveLength(1);
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'callback-error' });

      // Before the first attempt: nothing at all is sent.
      const first = api.script('/first', [200]);
      const rejected = await client({ beforeAttempt: () => Promise.reject(failure) }).send({
        method: 'GET',
        path: '/first',
      });
      expect(rejected).toMatchObject({ ok: false, error: failure });
      expect(first.hits).toHaveLength(0);
      expect(rejected.result).toMatchObject({ attempts: 0, reason: 'callback-error' });
    });

    it('a hook that rejects with no Error ends the call with a TypeError naming it, the previous error as cause', async () => {
      const route = api.script('/items', ['network-error', 200]);
      const settled = await client({
        beforeAttempt: ({ retry }) => (retry === 1 ? Promise.reject('no token') : undefined),
      }).send({ method: 'GET', path: '/items' });
      expect(settled.ok).toBe(false);
      if (!settled.ok) {
        expect(settled.error).toBeInstanceOf(TypeError);
        expect((settled.error as Error).message).toBe(
          '`beforeAttempt` threw or rejected with "no token", not an Error.',
        );
        expect((settled.error as Error).cause).toBeDefined();
      }
      expect(route.hits).toHaveLength(1);
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'callback-error' });
    });

    it('an abort while the hook runs ends the call at once, with no further send', async () => {
      const route = api.script('/items', [503, 200]);
      const controller = new AbortController();
      let hookSignal: AbortSignal | undefined;
      const settled = await client({
        beforeAttempt: ({ retry, signal }) => {
          if (retry === 0) return undefined;
          hookSignal = signal;
          queueMicrotask(() => controller.abort());
          // Never settles: the abort alone ends the call.
          return new Promise(() => {});
        },
      }).send({ method: 'GET', path: '/items', signal: controller.signal });
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
      expect(route.hits).toHaveLength(1);
      expect(hookSignal?.aborted).toBe(true);
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'aborted' });
    });

    it('a hook that removes the Idempotency-Key of a keyed POST: the POST is not sent again, and the error says why', async () => {
      const route = api.script('/orders', [503, 200]);
      const settled = await client({
        beforeAttempt: ({ headers, retry }) => {
          if (retry > 0) headers.delete('idempotency-key');
        },
      }).send({
        method: 'POST',
        path: '/orders',
        headers: { 'Idempotency-Key': '"order-1"' },
        json: { item: 1 },
      });
      expect(route.hits).toHaveLength(1);
      expect(route.hits[0]?.headers.get('idempotency-key')).toBe('"order-1"');
      expect(settled.ok).toBe(false);
      if (!settled.ok) {
        expect(settled.error).toBeInstanceOf(TypeError);
        expect(String((settled.error as Error).message)).toMatch(
          /lost its `Idempotency-Key` header .* not sent again|sent again only with the same key/,
        );
      }
      expect(settled.result).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    });
  });
}
