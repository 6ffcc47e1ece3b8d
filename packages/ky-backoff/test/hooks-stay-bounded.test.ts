import { API, ScriptedApi, VirtualClock } from '@backoff/test-utils';
import { getBackoffResult, Hedge, kyBackoff } from 'ky-backoff';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLIENTS, KY_1_13, type KyClient, type LooseKy } from './support/clients.ts';
import { SocketServer } from './support/socket-server.ts';
import { virtualBackoff } from './support/virtual-backoff.ts';

// What a caller's hooks do to a call never makes kyBackoff send more than its limits allow, nor send a request
// without a key twice. Counts are the server's.

const requestOf = (args: unknown[]) =>
  (args.length === 1 ? (args[0] as { request: Request }).request : args[0]) as Request;
const hasMarker = (client: KyClient) => typeof (client.ky as { retry?: unknown }).retry === 'function';

describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  'hooks stay within the limits: %s',
  (_name, client) => {
    const server = new ScriptedApi();
    beforeAll(() => server.listen());
    afterEach(() => {
      server.reset();
      vi.useRealTimers();
    });
    afterAll(() => server.close());
    const backoff = virtualBackoff();
    const { wrap } = backoff;
    const clock = () => backoff.clock;
    const itWithMarker = hasMarker(client) ? it : it.skip;
    const itOnKy2 = client.major === 2 ? it : it.skip;

    for (const where of ['on the instance', 'per request'] as const) {
      itWithMarker(
        `a hook that forces ky.retry() on every 200 (${where}) sends retries + 1 requests, then fails as ky fails`,
        async () => {
          const route = server.script('/ok', [200]);
          const force = () => client.ky.retry();
          const hooks = { afterResponse: [force] };
          const api = wrap(where === 'on the instance' ? client.ky.create({ hooks }) : client.ky);
          const error = await api(`${API}/ok`, where === 'per request' ? { hooks } : {}).catch(
            (caught: unknown) => caught,
          );
          // The default `retries` (3): 4 requests, never more, and ky's own error for a forced retry past its limit.
          expect(route.hits).toHaveLength(4);
          expect((error as Error).name).toBe('ForceRetryError');
          expect(getBackoffResult(error)).toMatchObject({ attempts: 4, reason: 'retries-exhausted' });
        },
      );
    }

    itWithMarker(
      'a hook that forces ky.retry() on every 503 saying Retry-After: 0, spread 0, no budget: serverRetries + 1 requests, never a loop',
      async () => {
        const now = { status: 503, headers: { 'Retry-After': '0' } };
        const route = server.script('/now', [...Array.from({ length: 300 }, () => now), 200]);
        const force = () => client.ky.retry();
        const api = wrap(client.ky.create({ hooks: { afterResponse: [force] } }), {
          retryAfterSpread: 0,
          budget: false,
        });
        const error = await api(`${API}/now`).catch((caught: unknown) => caught);
        // A forced retry of an answer that asked for a wait is a server-asked retry: the default cap of 10 holds.
        expect(route.hits).toHaveLength(11);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 11, reason: 'server-retries-exhausted' });
      },
    );

    itWithMarker(
      'a hook that forces ky.retry() while onRetry stays pending: the deadline ends the call, nothing more is sent',
      async () => {
        const route = server.script('/items', [503, 200]);
        const force = () => client.ky.retry();
        const api = wrap(client.ky.create({ hooks: { afterResponse: [force] } }), {
          deadline: 4000,
          onRetry: () => new Promise<never>(() => {}),
        });
        const started = clock().now();
        const error = await api(`${API}/items`).catch((caught: unknown) => caught);
        expect(clock().now() - started).toBe(4000);
        expect(route.hits).toHaveLength(1);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'deadline' });
      },
    );

    itWithMarker(
      'a hook that forces ky.retry() on a keyless POST sends it once: a forced retry is still a retry',
      async () => {
        const route = server.script('/orders', [201]);
        const api = wrap(client.ky.create({ hooks: { afterResponse: [() => client.ky.retry()] } }));
        const error = await api(`${API}/orders`, { method: 'post', json: { n: 1 } }).catch(
          (caught: unknown) => caught,
        );
        expect(route.hits).toHaveLength(1);
        expect((error as Error).name).toBe('ForceRetryError');
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
      },
    );

    /** An afterResponse hook that forces one retry with the request `make` builds from the one ky sent. */
    const replacing = (make: (request: Request) => Request) => {
      let forced = false;
      return (...args: unknown[]) => {
        if (forced) return undefined;
        forced = true;
        return client.ky.retry({ request: make(requestOf(args)) });
      };
    };
    const withKey = (request: Request) => {
      const headers = new Headers(request.headers);
      headers.set('Idempotency-Key', '"k-1"');
      return new Request(request, { headers });
    };
    const sent = (hits: readonly { method: string; headers: Headers }[]) =>
      hits.map((hit) => `${hit.method} ${hit.headers.get('idempotency-key') ?? 'keyless'}`);

    itWithMarker(
      'ky.retry({ request }) after a keyless POST is judged by the request ky sends: a PUT goes, and its 503 is retried',
      async () => {
        const route = server.script('/orders', [200, 503, 201]);
        const hook = replacing((request) => new Request(request, { method: 'PUT' }));
        const response = (await wrap(client.ky)(`${API}/orders`, {
          method: 'post',
          json: { n: 1 },
          hooks: { afterResponse: [hook] },
        })) as Response;
        expect(response.status).toBe(201);
        expect(sent(route.hits)).toEqual(['POST keyless', 'PUT keyless', 'PUT keyless']);
        expect(getBackoffResult(response)).toMatchObject({ attempts: 3, reason: 'success' });
      },
    );

    itWithMarker(
      'ky.retry({ request }) with an Idempotency-Key after a keyless POST goes, and its 503 is retried with that key',
      async () => {
        const route = server.script('/orders', [200, 503, 201]);
        const response = (await wrap(client.ky)(`${API}/orders`, {
          method: 'post',
          json: { n: 1 },
          hooks: { afterResponse: [replacing(withKey)] },
        })) as Response;
        expect(response.status).toBe(201);
        expect(sent(route.hits)).toEqual(['POST keyless', 'POST "k-1"', 'POST "k-1"']);
        expect(getBackoffResult(response)).toMatchObject({ attempts: 3, reason: 'success' });
      },
    );

    for (const method of ['post', 'get'] as const) {
      itWithMarker(
        `ky.retry({ request }) with a keyless POST after a ${method.toUpperCase()} stays refused: nothing more is sent`,
        async () => {
          const route = server.script('/orders', [200, 201]);
          const hook = replacing((request) => new Request(request.url, { method: 'POST', body: '{"n":1}' }));
          const error = await wrap(client.ky)(`${API}/orders`, {
            method,
            hooks: { afterResponse: [hook] },
          }).catch((caught: unknown) => caught);
          expect(sent(route.hits)).toEqual([`${method.toUpperCase()} keyless`]);
          expect((error as Error).name).toBe('ForceRetryError');
          expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
        },
      );
    }

    it('a later hook that strips the key, with throwHttpErrors: false per request: the 503 is not retried', async () => {
      const route = server.script('/orders', [503, 201]);
      const later = (...args: unknown[]) => void requestOf(args).headers.delete('idempotency-key');
      const api = wrap(client.ky, { idempotencyKey: 'auto' });
      const response = (await api(`${API}/orders`, {
        method: 'post',
        json: { n: 1 },
        throwHttpErrors: false,
        hooks: { beforeRequest: [later] },
      })) as Response;
      expect(response.status).toBe(503);
      expect(route.hits).toHaveLength(1);
    });

    itOnKy2("an init hook reads ky's `retry` as the caller set it, not kyBackoff's", async () => {
      server.script('/items', [200]);
      const seen: unknown[] = [];
      const init = (options: { retry?: { methods?: string[] } }) => void seen.push(options.retry?.methods);
      const api = wrap(client.ky.create({ retry: { methods: ['get'] }, hooks: { init: [init] } }));
      await api(`${API}/items`);
      expect(seen).toEqual([['get']]);
    });

    /** An init hook that adds a field to ky's `retry` in place, as a ky user writes it. */
    const teapots = (options: { retry?: unknown }) =>
      void Object.assign(options.retry as object, { statusCodes: [418] });

    for (const where of ['on the instance', 'per request'] as const) {
      itOnKy2(
        `an init hook (${where}) that adds \`retry.statusCodes\` in place gets an object, and the call retries as it says`,
        async () => {
          const teapot = server.script('/teapot', [418, 200]);
          const down = server.script('/down', [503, 200]);
          const hooks = { init: [teapots] };
          const api = wrap(where === 'on the instance' ? client.ky.create({ hooks }) : client.ky);
          const own = where === 'per request' ? { hooks } : {};
          const response = (await api(`${API}/teapot`, own)) as Response;
          expect(response.status).toBe(200);
          expect(teapot.hits).toHaveLength(2);
          // As in ky, the call's `statusCodes` are now [418] alone: its 503 is not retried.
          const error = await api(`${API}/down`, own).catch((caught: unknown) => caught);
          expect(down.hits).toHaveLength(1);
          expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'not-retryable-status' });
        },
      );
    }

    itOnKy2(
      'an init hook that adds `retry.statusCodes` in place never opens the method gate: a keyless POST is sent once',
      async () => {
        const route = server.script('/orders', [418, 201]);
        const api = wrap(client.ky.create({ hooks: { init: [teapots] } }));
        const error = await api(`${API}/orders`, { method: 'post', json: { n: 1 } }).catch(
          (caught: unknown) => caught,
        );
        expect(route.hits).toHaveLength(1);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
      },
    );

    itOnKy2(
      'an init hook that narrows `retry.methods` never opens the method gate: a keyless POST is sent once',
      async () => {
        const route = server.script('/orders', [503, 201]);
        const narrow = (options: { retry?: { methods?: string[] } }) => {
          if (options.retry?.methods)
            options.retry.methods = options.retry.methods.filter((m) => m !== 'put');
        };
        const instance = client.ky.create({
          retry: { methods: ['get', 'put', 'delete'] },
          hooks: { init: [narrow] },
        });
        const error = await wrap(instance)(`${API}/orders`, { method: 'post', json: { n: 1 } }).catch(
          (caught: unknown) => caught,
        );
        expect(route.hits).toHaveLength(1);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
      },
    );

    itOnKy2(
      'an init hook that replaces `retry` keeps every field it set: methods and limit both hold',
      async () => {
        const route = server.script('/orders', [503]);
        const replace = (options: { retry?: unknown }) => {
          options.retry = { methods: ['post'], limit: 2 };
        };
        const api = wrap(client.ky.create({ hooks: { init: [replace] } }), { budget: false });
        const error = await api(`${API}/orders`, { method: 'post', json: { n: 1 } }).catch(
          (caught: unknown) => caught,
        );
        // The caller's own hook listed POST as one ky retries (its meaning in ky), with a limit of 2.
        expect(route.hits).toHaveLength(3);
        expect(getBackoffResult(error)).toMatchObject({ attempts: 3, reason: 'retries-exhausted' });
      },
    );

    it("ky's own `retry.shouldRetry` is asked only where ky asks it: within `limit`, and never about a method ky does not retry", async () => {
      server.script('/items', [503]);
      server.script('/orders', [503]);
      const asked: number[] = [];
      const shouldRetry = ({ retryCount }: { retryCount: number }) => {
        asked.push(retryCount);
        return undefined;
      };
      const api = wrap(client.ky.create({ retry: { limit: 2, shouldRetry } }));
      await api(`${API}/items`).catch(() => undefined);
      // Two retries within the limit of 2: asked about the first two failures, not the third.
      expect(asked).toEqual([1, 2]);
      asked.length = 0;
      await api(`${API}/orders`, { method: 'post', json: { n: 1 } }).catch(() => undefined);
      expect(asked).toEqual([]);
    });
  },
);

// On real sockets (MSW answers at once, and here the server must stay silent).
describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  'hooks stay within the limits, on a silent server: %s',
  (_name, client) => {
    for (const [label, strip] of [
      ['deletes', (headers: Headers) => headers.delete('idempotency-key')],
      ["sets '' in", (headers: Headers) => headers.set('idempotency-key', '')],
    ] as const) {
      it(`a later beforeRequest hook that ${label} the generated key makes the POST keyless: not hedged`, async () => {
        const slow = await SocketServer.start(['hang']);
        try {
          const clock = new VirtualClock();
          clock.auto = false;
          const later = (...args: unknown[]) => void strip(requestOf(args).headers);
          const api = kyBackoff(client.ky.create({ timeout: false }), {
            idempotencyKey: 'auto',
            hedge: new Hedge({ delay: 10 }),
            timers: clock.timers,
            now: clock.now,
          }) as LooseKy;
          const controller = new AbortController();
          const pending = api(`${slow.url}/orders`, {
            method: 'post',
            json: { n: 1 },
            signal: controller.signal,
            hooks: { beforeRequest: [later] },
          }).catch((caught: unknown) => caught);
          await slow.received(1);
          // A hedge would be due now; a keyless request gets none.
          clock.advance(10);
          await new Promise((resolve) => setTimeout(resolve, 20));
          expect(slow.hits).toHaveLength(1);
          expect(slow.hits[0]?.headers['idempotency-key'] ?? '').toBe('');
          controller.abort();
          await pending;
        } finally {
          await slow.close();
        }
      });
    }
  },
);

// A request's own `fetch` and ky's own timeout: kyBackoff adds nothing to what goes on the wire.
describe.each(CLIENTS.filter((client) => client.major === 2).map((client) => [client.name, client] as const))(
  'nothing of kyBackoff on the wire: %s',
  (_name, client) => {
    let server: SocketServer | undefined;
    afterEach(async () => {
      vi.useRealTimers();
      await server?.close();
      server = undefined;
    });

    const run = async (api: LooseKy, send: (url: string) => Promise<unknown>) => {
      server = await SocketServer.start(['hang', 200]);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const pending = send(`${server.url}/slow`).catch((error: unknown) => error);
      await server.received(1);
      await vi.advanceTimersByTimeAsync(1000);
      await vi.advanceTimersByTimeAsync(1000);
      vi.useRealTimers();
      await pending;
      void api;
      return server.hits.map((hit) => Object.keys(hit.headers).sort());
    };

    for (const way of ['a per-request fetch', '.extend({ fetch }) after kyBackoff'] as const) {
      it(`with ${way}, a retry after ky's own timeout goes out with the headers of the first attempt`, async () => {
        const own = (input: Request, init?: RequestInit) => globalThis.fetch(input, init);
        const base = kyBackoff(client.ky.create({ timeout: 1000 }), { random: () => 0.5 }) as LooseKy;
        const api = way === 'a per-request fetch' ? base : base.extend({ fetch: own });
        const headers = await run(api, (url) =>
          way === 'a per-request fetch' ? api(url, { fetch: own }) : api(url),
        );
        expect(headers).toHaveLength(2);
        expect(headers[1]).toEqual(headers[0]);
        expect(headers.flat().filter((name) => name.startsWith('x-ky-backoff'))).toEqual([]);
      });
    }
  },
);
