import { API, ScriptedApi } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLIENTS, KY_1_13 } from './support/clients.ts';
import { kyErrorKind } from './support/driver.ts';
import { virtualBackoff } from './support/virtual-backoff.ts';

// kyBackoff rides ky's own retry loop, and what ky does that is not retry policy stays as ky does it.
// Each test is named for what it proves, and runs on every ky line where the feature exists.

const responseOf = (args: unknown[]) =>
  (args.length === 1 ? (args[0] as { response: Response }).response : args[2]) as Response;

/** A `Response` subclass with an own property, as a custom `fetch` may return. */
class TaggedResponse extends Response {
  readonly tag = 'from-custom-fetch';
}

describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  'transparent to ky: %s',
  (_name, client) => {
    const server = new ScriptedApi();
    beforeAll(() => server.listen());
    afterEach(() => {
      server.reset();
      vi.useRealTimers();
    });
    afterAll(() => server.close());

    /** ky 1.13 has no `ky.retry()`: the items about forced retries and hook-made statuses need it. */
    const hasRetryMarker = typeof (client.ky as { retry?: unknown }).retry === 'function';
    const itWithMarker = hasRetryMarker ? it : it.skip;

    const virtual = virtualBackoff();
    const { wrap } = virtual;

    it('the caller gets the Response that fetch returned (its subclass and own properties stay), carrying the result', async () => {
      server.script('/items', [503, 200]);
      const custom = async (input: Request) => {
        const response = await fetch(input);
        const tagged = new TaggedResponse(response.body, response);
        Object.defineProperty(tagged, 'fromFetch', { value: true });
        return tagged;
      };
      // An afterResponse hook of the caller's own: ky hands it a clone, and still returns fetch's response.
      const api = wrap(client.ky.create({ fetch: custom, hooks: { afterResponse: [() => undefined] } }));
      const response = await api(`${API}/items`);
      expect(response).toBeInstanceOf(TaggedResponse);
      expect((response as Response & { fromFetch?: boolean }).fromFetch).toBe(true);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'success' });
    });

    it('a success costs no copy of the response when the instance has no afterResponse hook of its own', async () => {
      server.script('/items', [200]);
      let clones = 0;
      const counting = async (input: Request) => {
        const response = await fetch(input);
        const clone = response.clone.bind(response);
        return Object.assign(response, {
          clone: () => {
            clones++;
            return clone();
          },
        });
      };
      const response = await wrap(client.ky.create({ fetch: counting }))(`${API}/items`);
      expect(await response.text()).not.toBe('');
      expect(getBackoffResult(response)).toMatchObject({ attempts: 1, reason: 'success' });
      // ky hands each afterResponse hook a clone of the response: kyBackoff adds none.
      expect(clones).toBe(0);
    });

    it('a Response made by a beforeRequest or beforeRetry hook is not sent, and is thrown as ky throws it', async () => {
      const route = server.script('/synthetic', [200]);
      const synthetic = () => new Response('made by a hook', { status: 503 });
      const api = wrap(client.ky);
      const error = await api(`${API}/synthetic`, { hooks: { beforeRequest: [synthetic] } }).catch(
        (caught: unknown) => caught,
      );
      expect(kyErrorKind(client, error)).toBe('http');
      expect((error as { response: Response }).response.status).toBe(503);
      // Nothing reached the server: ky 2 never retries a hook's response; ky 1 re-runs the hook, which answers again.
      expect(route.hits).toHaveLength(0);
      if (client.major === 2) {
        expect(virtual.clock.waits).toEqual([]);
        const down = server.script('/down', [503, 200]);
        const fromRetry = await api(`${API}/down`, { hooks: { beforeRetry: [synthetic] } }).catch(
          (caught: unknown) => caught,
        );
        expect(kyErrorKind(client, fromRetry)).toBe('http');
        expect(down.hits).toHaveLength(1);
      }
    });

    it("a retried status is ky's HTTPError: beforeRetry gets it with its response (and ky 2's data, through parseJson)", async () => {
      server.script('/items', [
        { status: 503, body: '{"busy":true}', headers: { 'content-type': 'application/json' } },
        200,
      ]);
      const seen: unknown[] = [];
      const parsed: string[] = [];
      const api = wrap(
        client.ky.create({
          parseJson: (text: string) => {
            parsed.push(text);
            return JSON.parse(text) as unknown;
          },
          hooks: { beforeRetry: [({ error }: { error: unknown }) => void seen.push(error)] },
        }),
      );
      expect((await api(`${API}/items`)).status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeInstanceOf(client.HTTPError);
      expect((seen[0] as { response: Response }).response.status).toBe(503);
      if (client.major === 2) {
        expect((seen[0] as { data: unknown }).data).toEqual({ busy: true });
        expect(parsed).toEqual(['{"busy":true}']);
      }
    });

    it('afterResponse hooks given per request see every attempt, failed ones too', async () => {
      server.script('/items', [503, 200]);
      const statuses: number[] = [];
      const api = wrap(client.ky);
      const perRequest = (...args: unknown[]) => void statuses.push(responseOf(args).status);
      await api(`${API}/items`, { hooks: { afterResponse: [perRequest] } });
      expect(statuses).toEqual([503, 200]);
    });

    it('a response that a later afterResponse hook turns into a retryable status is retried', async () => {
      const route = server.script('/items', [200]);
      let turned = false;
      const flaky = (...args: unknown[]) => {
        if (turned) return undefined;
        turned = true;
        void responseOf(args);
        return new Response('overloaded', { status: 503 });
      };
      const response = await wrap(client.ky)(`${API}/items`, { hooks: { afterResponse: [flaky] } });
      expect(response.status).toBe(200);
      expect(route.hits).toHaveLength(2);
      expect(virtual.clock.waits).toEqual([500]);
    });

    itWithMarker(
      'retries forced with ky.retry() on every attempt are bounded by `retries`, not endless',
      async () => {
        const route = server.script('/forever', [200]);
        const api = wrap(
          client.ky.create({ hooks: { afterResponse: [() => client.ky.retry({ delay: 0 })] } }),
          {
            retries: 2,
          },
        );
        await api(`${API}/forever`).catch(() => undefined);
        // A forced retry counts toward `retries`, as ky's own count toward its `limit`: 1 + 2 requests.
        expect(route.hits).toHaveLength(3);
      },
    );

    it('stringifyJson gets the caller’s own `json` object (kyBackoff adds no init hook)', async () => {
      server.script('/orders', [200]);
      const body = { item: 42 };
      const received: unknown[] = [];
      const api = wrap(
        client.ky.create({
          stringifyJson: (value: unknown) => {
            received.push(value);
            return JSON.stringify(value);
          },
        }),
      );
      await api(`${API}/orders`, { method: 'put', json: body });
      expect(received).toHaveLength(1);
      expect(received[0]).toBe(body);
    });

    it("ky's `retry` option: 0 sends once, a number or { limit } is `retries`, a field that is not ky's throws naming it", async () => {
      const once = server.script('/once', [503, 200]);
      const error = await wrap(client.ky.create({ retry: 0 }))(`${API}/once`).catch((e: unknown) => e);
      expect(kyErrorKind(client, error)).toBe('http');
      expect(once.hits).toHaveLength(1);

      const twice = server.script('/twice', [503]);
      await wrap(client.ky.create({ retry: 1 }))(`${API}/twice`).catch(() => undefined);
      expect(twice.hits).toHaveLength(2);
      const limited = server.script('/limited', [503]);
      await wrap(client.ky.create({ retry: { limit: 2 } }))(`${API}/limited`).catch(() => undefined);
      expect(limited.hits).toHaveLength(3);
      // kyBackoff's own `retries` wins over ky's.
      const own = server.script('/own', [503]);
      await wrap(client.ky.create({ retry: 0 }), { retries: 1 })(`${API}/own`).catch(() => undefined);
      expect(own.hits).toHaveLength(2);
      // Per request too.
      const perRequest = server.script('/per-request', [503, 200]);
      await wrap(client.ky)(`${API}/per-request`, { retry: 0 }).catch(() => undefined);
      expect(perRequest.hits).toHaveLength(1);

      // A request's own retry object with a field that is not ky's rejects the call, naming it; nothing is sent.
      const fields = server.script('/fields', [503, 200]);
      await expect(wrap(client.ky)(`${API}/fields`, { retry: { limit: 1, tries: 2 } })).rejects.toThrow(
        /got `retry\.tries`: kyBackoff gives nothing else a meaning/,
      );
      expect(fields.hits).toHaveLength(0);

      expect(() => wrap(client.ky.create({ retry: { limit: 2, factor: 2, retries: 1 } }))).toThrow(
        new TypeError(
          "Expected ky's `retry` to hold ky's fields only (limit, methods, statusCodes, afterStatusCodes, backoffLimit, maxRetryAfter, retryOnTimeout, delay, jitter, shouldRetry), got `retry.factor`, `retry.retries`: kyBackoff gives nothing else a meaning. Give backoff-core's options to kyBackoff or as `backoff`.",
        ),
      );
    });

    itWithMarker(
      'after a forced ky.retry(), the next network error is decided and retried; attempts match the server',
      async () => {
        const route = server.script('/job', [
          { status: 200, body: 'pending' },
          'network-error',
          { status: 200, body: 'done' },
        ]);
        const force = async (...args: unknown[]) =>
          (await responseOf(args).clone().text()) === 'pending' ? client.ky.retry({ delay: 0 }) : undefined;
        const response = await wrap(client.ky.create({ hooks: { afterResponse: [force] } }))(`${API}/job`);
        expect(await response.text()).toBe('done');
        expect(route.hits).toHaveLength(3);
        expect(virtual.clock.waits).toEqual([1000]);
        expect(getBackoffResult(response)).toMatchObject({ attempts: 3, reason: 'success' });
      },
    );

    // Items 9 and 10 need a real socket silent past ky's `timeout`: they are in timeouts.test.ts.

    itWithMarker(
      'ky’s method check lets a custom method through: with an Idempotency-Key it is retried',
      async () => {
        const route = server.script('/lock', [503, 200]);
        const api = wrap(client.ky);
        const response = await api(`${API}/lock`, {
          method: 'LOCK',
          headers: { 'Idempotency-Key': '"k1"' },
        });
        expect(response.status).toBe(200);
        expect(route.hits).toHaveLength(2);
        // The method is added for that call only: the instance's list is unchanged for the next one.
        const next = server.script('/next', [503, 200]);
        expect((await api(`${API}/next`)).status).toBe(200);
        expect(next.hits).toHaveLength(2);
      },
    );

    // Found by ky's own suite ("does not throw for opaque responses", "timeout bounds a never-ending successful
    // response body"): ky clones each response for kyBackoff's afterResponse hook, and that clone must not replace it.
    it("a request's own fetch: the caller gets the Response it returned, own properties and all", async () => {
      server.script('/own-response', [503, 200]);
      const own = async (input: Request) => {
        const response = await fetch(input);
        Object.defineProperty(response, 'fromOwnFetch', { value: true });
        return response;
      };
      const response = await wrap(client.ky)(`${API}/own-response`, { fetch: own });
      expect(response.status).toBe(200);
      expect((response as Response & { fromOwnFetch?: boolean }).fromOwnFetch).toBe(true);
    });

    // Found by ky's own suite ("init hook runs only once even with retries"): a request's own `fetch` replaces
    // kyBackoff's for that call, so a new attempt must be known from ky's beforeRetry too.
    it("a request's own fetch: each failed attempt is decided once, and retries stop at the limit", async () => {
      const route = server.script('/own-fetch', [500]);
      let fetches = 0;
      const own = async (input: Request) => {
        fetches++;
        return fetch(input);
      };
      const api = wrap(client.ky, { retries: 2 });
      const settled = await api(`${API}/own-fetch`, { fetch: own }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(kyErrorKind(client, settled)).toBe('http');
      expect(fetches).toBe(3);
      expect(route.hits).toHaveLength(3);
      expect(virtual.clock.waits).toEqual([500, 1000]);
      expect(getBackoffResult(settled)).toMatchObject({ attempts: 3, reason: 'retries-exhausted' });
    });
  },
);
