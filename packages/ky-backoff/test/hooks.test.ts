import { API, ScriptedApi } from '@backoff/test-utils';
import { getBackoffResult, type RetryEvent } from 'backoff-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS, type KyClient, type LooseKy, prefixOption } from './support/clients.ts';
import { kyErrorKind } from './support/driver.ts';
import { virtualBackoff } from './support/virtual-backoff.ts';

// ky 2 hands every hook one state object; ky 1 passes afterResponse and beforeError their arguments one by one.
const responseOf = (args: unknown[]) =>
  (args.length === 1 ? (args[0] as { response: Response }).response : args[2]) as Response;
const errorOf = (args: unknown[]) =>
  (args.length === 1 ? (args[0] as { error: Error }).error : args[0]) as Error;

describe.each(CLIENTS.map((client) => [client.name, client] as const))(
  'ky hooks and options: %s',
  (_name, client) => {
    const server = new ScriptedApi();
    beforeAll(() => server.listen());
    afterEach(() => server.reset());
    afterAll(() => server.close());

    const virtual = virtualBackoff();
    const { wrap } = virtual;

    /** An instance with one of each hook, logging what ky calls and when (the waits done so far). */
    const logged = (target: KyClient) => {
      const log: string[] = [];
      const instance = target.ky.create({
        headers: { 'x-app': 'demo' },
        hooks: {
          ...(target.major === 2 ? { init: [() => log.push('init')] } : {}),
          beforeRequest: [() => void log.push('beforeRequest')],
          afterResponse: [(...args: unknown[]) => void log.push(`afterResponse ${responseOf(args).status}`)],
          beforeRetry: [
            ({ retryCount }: { retryCount: number }) =>
              void log.push(`beforeRetry ${retryCount}, waited ${virtual.clock.waits}`),
          ],
          beforeError: [
            (...args: unknown[]) => {
              log.push('beforeError');
              return errorOf(args);
            },
          ],
        },
      });
      return { log, instance };
    };

    it("the instance's own hooks and options still apply, in ky's order, with the wait before beforeRetry", async () => {
      const route = server.script('/items', [503, 200]);
      const { log, instance } = logged(client);
      const api = wrap(instance);
      const perRequest = (...args: unknown[]) =>
        void log.push(`per-request afterResponse ${responseOf(args).status}`);
      const response = await api(`${API}/items`, { hooks: { afterResponse: [perRequest] } });
      expect(response.status).toBe(200);
      expect(route.hits.map((hit) => hit.headers.get('x-app'))).toEqual(['demo', 'demo']);
      // ky 1 runs beforeRequest before every attempt (and beforeError for each HTTPError), ky 2 once. Hooks
      // given per request see every attempt: kyBackoff adds no afterResponse hook of its own.
      expect(log).toEqual(
        client.major === 2
          ? [
              'init',
              'beforeRequest',
              'afterResponse 503',
              'per-request afterResponse 503',
              'beforeRetry 1, waited 500',
              'afterResponse 200',
              'per-request afterResponse 200',
            ]
          : [
              'beforeRequest',
              'afterResponse 503',
              'per-request afterResponse 503',
              'beforeError',
              'beforeRetry 1, waited 500',
              'beforeRequest',
              'afterResponse 200',
              'per-request afterResponse 200',
            ],
      );
    });

    it("beforeRetry sees ky's own HTTPError for a retried status, and the attempt's own error otherwise", async () => {
      server.script('/mixed', [503, 'network-error', 200]);
      const seen: unknown[] = [];
      const api = wrap(
        client.ky.create({
          hooks: { beforeRetry: [({ error }: { error: unknown }) => void seen.push(error)] },
        }),
      );
      await api(`${API}/mixed`);
      expect(seen).toHaveLength(2);
      expect(kyErrorKind(client, seen[0])).toBe('http');
      expect(kyErrorKind(client, seen[1])).toBe('network');
    });

    it('beforeError runs as ky runs it: ky 2 once, for the final error; ky 1 for each failed status', async () => {
      server.script('/down', [503]);
      const { log, instance } = logged(client);
      const error = await wrap(instance, { retries: 1 })(`${API}/down`).catch((e: unknown) => e);
      expect(kyErrorKind(client, error)).toBe('http');
      expect(log.filter((entry) => entry === 'beforeError')).toHaveLength(client.major === 2 ? 1 : 2);
      expect(log.filter((entry) => entry.startsWith('afterResponse'))).toEqual([
        'afterResponse 503',
        'afterResponse 503',
      ]);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 2, reason: 'retries-exhausted' });
    });

    it("`ky.stop` from the caller's beforeRetry ends the call after the wait, with nothing more sent", async () => {
      const route = server.script('/items', [503, 200]);
      const api = wrap(client.ky.create({ hooks: { beforeRetry: [() => client.ky.stop] } }));
      const result = await api(`${API}/items`);
      // ky's own contract for `stop`: the call resolves with no response.
      expect(result).toBeUndefined();
      expect(route.hits).toHaveLength(1);
      expect(virtual.clock.waits).toEqual([500]);
    });

    it('a beforeRetry hook that throws ends the call with that error, nothing more sent', async () => {
      const route = server.script('/items', [503, 200]);
      const refused = new Error('no retry today');
      const api = wrap(
        client.ky.create({
          hooks: {
            beforeRetry: [
              () => {
                throw refused;
              },
            ],
          },
        }),
      );
      await expect(api(`${API}/items`)).rejects.toBe(refused);
      expect(route.hits).toHaveLength(1);
    });

    it("a retry forced by the caller's own afterResponse hook still happens, and surfaces no ForceRetryError", async () => {
      const route = server.script('/job', [
        { status: 200, body: 'pending' },
        { status: 200, body: 'done' },
      ]);
      const api = wrap(
        client.ky.create({
          hooks: {
            afterResponse: [
              async (...args: unknown[]) =>
                (await responseOf(args).text()) === 'pending' ? client.ky.retry({ delay: 0 }) : undefined,
            ],
          },
        }),
      );
      const response = await api(`${API}/job`);
      expect(await response.text()).toBe('done');
      expect(route.hits).toHaveLength(2);
      // Not the core's retry: no backoff wait, and no onRetry.
      expect(virtual.clock.waits).toEqual([]);
    });

    it('a beforeRequest hook that returns a new Request: added after kyBackoff, retries hold on both majors', async () => {
      const route = server.script('/signed', [503, 200]);
      const sign = (...args: unknown[]) => {
        const request = (args.length === 1 ? (args[0] as { request: Request }).request : args[0]) as Request;
        return new Request(request, {
          headers: { ...Object.fromEntries(request.headers), 'x-signed': 'yes' },
        });
      };
      const api = wrap(client.ky, { idempotencyKey: 'auto' }).extend({ hooks: { beforeRequest: [sign] } });
      const response = await api(`${API}/signed`, { method: 'post', json: { n: 1 } });
      expect(response.status).toBe(200);
      const keys = route.hits.map((hit) => hit.headers.get('idempotency-key'));
      expect(route.hits.map((hit) => hit.headers.get('x-signed'))).toEqual(['yes', 'yes']);
      expect(keys[0]).toBeTruthy();
      expect(keys[1]).toBe(keys[0]);
    });

    it(
      client.major === 2
        ? 'an instance hook returning a new Request before kyBackoff: ky 2 still runs the later hooks'
        : 'ky 1: an instance hook returning a new Request skips the hooks after it, kyBackoff’s too: no retries',
      async () => {
        const route = server.script('/signed', [503, 200]);
        const sign = (...args: unknown[]) =>
          new Request((args.length === 1 ? (args[0] as { request: Request }).request : args[0]) as Request);
        const api = wrap(client.ky.create({ hooks: { beforeRequest: [sign] } }));
        await api(`${API}/signed`).catch(() => undefined);
        expect(route.hits).toHaveLength(client.major === 2 ? 2 : 1);
      },
    );

    it('a retry forced with `ky.retry()` is counted: the result says the attempts the server saw', async () => {
      const route = server.script('/job', [
        { status: 200, body: 'pending' },
        { status: 503, body: 'pending' },
        { status: 200, body: 'done' },
      ]);
      const force = async (...args: unknown[]) =>
        (await responseOf(args).text()) === 'pending' ? client.ky.retry({ delay: 0 }) : undefined;
      const response = await wrap(client.ky.create({ hooks: { afterResponse: [force] } }))(`${API}/job`);
      expect(await response.text()).toBe('done');
      expect(route.hits).toHaveLength(3);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 3, reason: 'success' });
    });

    it('retries forced with `ky.retry()` stay within `retries`: `retries: 2` sends at most 3 requests', async () => {
      const route = server.script('/job', [{ status: 200, body: 'pending' }]);
      const force = () => client.ky.retry({ delay: 0 });
      const api = wrap(client.ky.create({ hooks: { afterResponse: [force] } }), { retries: 2 });
      const error = await api(`${API}/job`).catch((caught: unknown) => caught);
      // As ky ends a forced retry past its own limit: with its ForceRetryError.
      expect((error as Error).name).toBe('ForceRetryError');
      expect(route.hits).toHaveLength(3);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 3, reason: 'retries-exhausted' });
    });

    it('with `backoff: false` a retry the caller forces with `ky.retry()` still works', async () => {
      const route = server.script('/job', [
        { status: 200, body: 'pending' },
        { status: 200, body: 'done' },
      ]);
      const force = async (...args: unknown[]) =>
        (await responseOf(args).text()) === 'pending' ? client.ky.retry({ delay: 0 }) : undefined;
      const api = wrap(client.ky.create({ hooks: { afterResponse: [force] } }));
      const response = await api(`${API}/job`, { backoff: false });
      expect(await response.text()).toBe('done');
      expect(route.hits).toHaveLength(2);
    });

    it('`throwHttpErrors` as a function: retries happen either way; the final response resolves or rejects as it says', async () => {
      const api = wrap(client.ky.create({ throwHttpErrors: (status: number) => status !== 503 }));
      const soft = server.script('/soft', [503]);
      const response = await api(`${API}/soft`, { backoff: { retries: 1 } });
      expect(response.status).toBe(503);
      expect(soft.hits).toHaveLength(2);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'retries-exhausted' });

      const hard = server.script('/hard', [500]);
      const error = await api(`${API}/hard`, { backoff: { retries: 1 } }).catch((e: unknown) => e);
      expect(kyErrorKind(client, error)).toBe('http');
      expect(hard.hits).toHaveLength(2);
    });

    it.skipIf(typeof (client.ky as { retry?: unknown }).retry !== 'function')(
      "with afterResponse hooks of the instance's own and `throwHttpErrors: false`, a 503 is retried after them",
      async () => {
        const route = server.script('/soft', [503, 200]);
        const seen: number[] = [];
        const instance = client.ky.create({
          throwHttpErrors: false,
          hooks: { afterResponse: [(...args: unknown[]) => void seen.push(responseOf(args).status)] },
        });
        const response = await wrap(instance)(`${API}/soft`);
        expect(response.status).toBe(200);
        expect(route.hits).toHaveLength(2);
        expect(seen).toEqual([503, 200]);
        expect(virtual.clock.waits).toEqual([500]); // the core waited (half the first cap), not ky
        expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'success' });
      },
    );

    // ky never retries a status it does not throw for; here `throwHttpErrors` says only how the last one comes back.
    for (const [where, send] of [
      [
        'per request',
        (api: LooseKy, url: string, options: Record<string, unknown>) =>
          api(url, { throwHttpErrors: false, ...options }),
      ],
      [
        'in .extend()',
        (api: LooseKy, url: string, options: Record<string, unknown>) =>
          api.extend({ throwHttpErrors: false })(url, options),
      ],
      [
        'per request, as a function',
        (api: LooseKy, url: string, options: Record<string, unknown>) =>
          api(url, { throwHttpErrors: (status: number) => status !== 503, ...options }),
      ],
    ] as const) {
      it(`\`throwHttpErrors: false\` ${where} still retries a failed status, and resolves with the last response`, async () => {
        const route = server.script('/soft', [503, 503, 200]);
        const response = (await send(wrap(client.ky), `${API}/soft`, {})) as Response;
        expect(response.status).toBe(200);
        expect(route.hits).toHaveLength(3);
        expect(getBackoffResult(response)).toMatchObject({ attempts: 3, reason: 'success' });
        const down = server.script('/down', [503]);
        const last = (await send(wrap(client.ky), `${API}/down`, { backoff: { retries: 1 } })) as Response;
        expect(last.status).toBe(503);
        expect(down.hits).toHaveLength(2);
        expect(getBackoffResult(last)).toMatchObject({ attempts: 2, reason: 'retries-exhausted' });
      });
    }

    it.skipIf(client.major === 1)(
      '`throwHttpErrors` set by an init hook: a 503 is retried either way, and the last one resolves or rejects as it says',
      async () => {
        const soft = server.script('/soft', [503]);
        const off = (options: { throwHttpErrors?: boolean }) => {
          options.throwHttpErrors = false;
        };
        const response = (await wrap(client.ky)(`${API}/soft`, {
          hooks: { init: [off] },
          backoff: { retries: 1 },
        })) as Response;
        expect(response.status).toBe(503);
        expect(soft.hits).toHaveLength(2);
        expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'retries-exhausted' });

        const hard = server.script('/hard', [503]);
        const on = (options: { throwHttpErrors?: boolean }) => {
          options.throwHttpErrors = true;
        };
        const instance = client.ky.create({ throwHttpErrors: false, hooks: { init: [on] } });
        const error = await wrap(instance)(`${API}/hard`, { backoff: { retries: 1 } }).catch(
          (e: unknown) => e,
        );
        expect(kyErrorKind(client, error)).toBe('http');
        expect(hard.hits).toHaveLength(2);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 2, reason: 'retries-exhausted' });
      },
    );

    it(`${client.major === 2 ? '`prefix`' : '`prefixUrl`'}: the resolved URL is what the core sees and reports`, async () => {
      const route = server.script('/v1/items', [503, 200]);
      const events: RetryEvent[] = [];
      const api = wrap(client.ky.create(prefixOption(client, `${API}/v1`)), {
        onRetry: (event) => events.push(event),
      });
      const response = await api('items');
      expect(response.status).toBe(200);
      expect(route.hits).toHaveLength(2);
      expect(events.map((event) => event.url)).toEqual([`${API}/v1/items`]);
    });

    it("ky's own `retry` option: a field that is not ky's is rejected at kyBackoff(), naming it", () => {
      const instance = client.ky.create({ retry: { limit: 5, statusCodes: [418], maxRetries: 3 } });
      expect(() => wrap(instance, { retries: 1 })).toThrow(/got `retry\.maxRetries`: kyBackoff gives/);
      expect(() => wrap(client.ky.create({ retry: 'often' }))).toThrow(TypeError);
    });

    it('the instance given is left as it was', async () => {
      const base = client.ky.create({ retry: 0 });
      wrap(base);
      const route = server.script('/items', [503, 200]);
      expect(kyErrorKind(client, await base(`${API}/items`).catch((e: unknown) => e))).toBe('http');
      expect(route.hits).toHaveLength(1);
    });

    it('`.json()` and the other body shortcuts work through retries', async () => {
      server.script('/data', [
        503,
        { status: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } },
      ]);
      expect(await wrap(client.ky)(`${API}/data`).json()).toEqual({ ok: true });
    });

    it('a bad per-request `backoff` rejects the call (it does not throw synchronously) and sends nothing', async () => {
      const route = server.script('/items', [200]);
      const api = wrap(client.ky);
      let call: Promise<unknown> | undefined;
      expect(() => {
        call = api(`${API}/items`, { backoff: { retries: -1 } });
      }).not.toThrow();
      await expect(call).rejects.toThrow(
        new RangeError('Expected `retries` to be an integer from 0 to 100, got -1.'),
      );
      await expect(api(`${API}/items`, { backoff: { retriez: 1 } })).rejects.toThrow(
        new TypeError('Unknown backoff option `retriez`: did you mean `retries`?'),
      );
      await expect(api(`${API}/items`, { backoff: 'yes' })).rejects.toThrow(TypeError);
      expect(route.hits).toHaveLength(0);
    });

    it('`.extend()` on the returned instance keeps the retries and shares the budget; `backoff` there sets defaults', async () => {
      const api = wrap(client.ky, { budget: { reserve: 1, ratio: 0 } });
      const derived = api.extend({ backoff: { jitter: 'none' } });
      const route = server.script('/down', [503]);
      await derived(`${API}/down`).catch(() => undefined);
      // The reserve of one retry is spent by the derived instance: the parent has none left.
      expect(virtual.clock.waits).toEqual([1000]);
      await api(`${API}/down`).catch(() => undefined);
      expect(route.hits).toHaveLength(3);
    });

    it('`backoff` from `.extend()` and from the request are merged by ky, the request winning', async () => {
      const derived = wrap(client.ky).extend({ backoff: { jitter: 'none', baseDelay: 200 } });
      const route = server.script('/down', [503]);
      await derived(`${API}/down`, { backoff: { retries: 1, baseDelay: 100 } }).catch(() => undefined);
      expect(route.hits).toHaveLength(2);
      expect(virtual.clock.waits).toEqual([100]);
    });

    it('ky 1 trap: an unparseable or huge Retry-After is ignored (ky 1 alone would wait about 24.8 days)', async () => {
      const api = wrap(client.ky);
      for (const value of ['soon', '1e10', '-5']) {
        server.script('/limited', [{ status: 429, headers: { 'Retry-After': value } }, 200]);
        const response = await api(`${API}/limited`);
        expect(response.status).toBe(200);
        // The core's throttling backoff for a 429 without a usable timing header: 500 + 0.5 x 500 ms.
        expect(virtual.clock.waits).toEqual([750]);
        virtual.clock.waits.length = 0;
      }
    });
  },
);
