import { API, ScriptedApi, type Step } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS, KY_1_13, type KyClient, type LooseKy } from './support/clients.ts';
import { virtualBackoff } from './support/virtual-backoff.ts';

// Each of ky's own `retry` fields means under kyBackoff what it means to ky, mapped to backoff-core's option:
// on the instance given to kyBackoff, and per request (ky's per-call copy of `retry`). The server counts requests;
// the waits are read on a virtual clock (`random` is 0.5: full jitter waits half the computed delay).
const FIELDS = 'the fields of ky’s `retry` under kyBackoff: %s';
const ONCE = { status: 200, body: 'ok' } as const;

describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  FIELDS,
  (_name, client) => {
    const server = new ScriptedApi();
    beforeAll(() => server.listen());
    afterEach(() => {
      expect(virtual.clock.pendingCount).toBe(0);
      server.reset();
    });
    afterAll(() => server.close());
    const virtual = virtualBackoff();
    const base = { budget: false, baseDelay: 100 } as const;

    type Way = (retry: Record<string, unknown>, options?: Record<string, unknown>) => LooseKy;
    /** The same `retry` fields given two ways; `options` are kyBackoff's own. */
    const ways: Record<string, Way> = {
      'on the instance': (retry, options = {}) =>
        virtual.wrap(client.ky.create({ retry }), { ...base, ...options }),
      'per request': (retry, options = {}) => {
        const api = virtual.wrap(client.ky, { ...base, ...options });
        const send = (input: string, more: Record<string, unknown> = {}) => api(input, { retry, ...more });
        return Object.assign(send, api) as LooseKy;
      },
    };

    /** Sends to a scripted route; the server's hits, the waits made and the result. */
    const run = async (api: LooseKy, steps: Step[], more: Record<string, unknown> = {}) => {
      const route = server.script('/r', steps);
      const settled = await api(`${API}/r`, more).catch((error: unknown) => error);
      return { hits: route.hits.length, waits: virtual.clock.waits, result: getBackoffResult(settled) };
    };

    for (const [way, make] of Object.entries(ways)) {
      describe(way, () => {
        it('`limit` is `retries`: `{ limit: 1 }` sends twice', async () => {
          expect((await run(make({ limit: 1 }), [503])).hits).toBe(2);
        });

        it('`methods` is `methods` (lower-case in ky): a keyless POST listed is retried, a GET not listed is not', async () => {
          const post = await run(make({ methods: ['post'] }), [503, 200], { method: 'post' });
          expect(post.hits).toBe(2);
          const get = await run(make({ methods: ['post'] }), [503, 200]);
          expect(get.hits).toBe(1);
          expect(get.result?.reason).toBe('method-not-idempotent');
        });

        it('`statusCodes` is `statusCodes`: a 418 listed is retried, a 503 not listed is not', async () => {
          expect((await run(make({ statusCodes: [418] }), [418, ONCE])).hits).toBe(2);
          expect((await run(make({ statusCodes: [418] }), [503, ONCE])).hits).toBe(1);
        });

        it('`backoffLimit` is `maxDelay`: no wait is longer', async () => {
          const { waits } = await run(make({ backoffLimit: 150 }, { jitter: 'none' }), [503, 503, 503, ONCE]);
          expect(waits).toEqual([100, 150, 150]);
          // Below the default `baseDelay` it caps the first wait too, as ky's does.
          const low = make({ backoffLimit: 40 }, { baseDelay: undefined, jitter: 'none' });
          expect((await run(low, [503, 503, ONCE])).waits).toEqual([40, 40]);
        });

        it('`delay(attemptCount)` is the wait before each retry, counted from 1', async () => {
          const { waits, hits } = await run(make({ delay: (n: number) => n * 7 }), [503, 503, ONCE]);
          expect(hits).toBe(3);
          expect(waits).toEqual([7, 14]);
        });

        it('`delay` with `backoffLimit` is capped by it, as ky caps it', async () => {
          const retry = { delay: (n: number) => n * 100, backoffLimit: 150 };
          expect((await run(make(retry), [503, 503, ONCE])).waits).toEqual([100, 150]);
        });

        // Per request, where ky's fields win over kyBackoff's `jitter: 'none'` (on the instance, full is the default).
        it.runIf(way === 'per request')(
          '`jitter: true` is `jitter: "full"`: each wait uniform up to the computed one',
          async () => {
            // `random` is 0.5: half of 100 and of 200 ms.
            expect((await run(make({ jitter: true }, { jitter: 'none' }), [503, 503, ONCE])).waits).toEqual([
              50, 100,
            ]);
          },
        );

        it('`backoffLimit: Infinity` (ky accepts it) is no cap short of the longest timer, 2^31 - 1 ms', async () => {
          const retry = { backoffLimit: Number.POSITIVE_INFINITY, delay: (n: number) => 10 ** (n + 8) };
          const { hits, waits } = await run(make(retry), [503, 503, ONCE]);
          expect(hits).toBe(3);
          expect(waits).toEqual([1_000_000_000, 2_147_483_647]);
        });

        it('`maxRetryAfter: Infinity` (ky accepts it) honours a server delay of an hour, which 60 s would refuse', async () => {
          const hour = { status: 503, headers: { 'Retry-After': '3600' } };
          const { hits, waits } = await run(make({ maxRetryAfter: Number.POSITIVE_INFINITY }), [hour, ONCE]);
          expect(hits).toBe(2);
          expect(waits).toEqual([3_601_750]); // the server's hour, plus 0.5 x the 3.5 s window a fleet is spread over
          expect((await run(make({}), [hour, ONCE])).result).toMatchObject({
            reason: 'retry-after-too-long',
          });
        });

        it('every bad field is reported at once, each by ky’s name, and nothing is sent', async () => {
          const route = server.script('/r', [ONCE]);
          const send = async () =>
            make({ limit: 101, backoffLimit: -1, retries: 2, jitter: 'full' })(`${API}/r`);
          await expect(send()).rejects.toThrow(
            new TypeError(
              [
                "4 problems in ky's `retry`:",
                "- Expected ky's `retry` to hold ky's fields only (limit, methods, statusCodes, afterStatusCodes, backoffLimit, maxRetryAfter, retryOnTimeout, delay, jitter, shouldRetry), got `retry.retries`: kyBackoff gives nothing else a meaning. Give backoff-core's options to kyBackoff or as `backoff`.",
                '- Expected `retry.limit` to be an integer from 0 to 100, got 101.',
                '- Expected `retry.backoffLimit` to be a number of ms, at least 0 (`Infinity`: no cap short of the longest timer), got -1.',
                "- Expected `retry.jitter` to be a boolean or a function (ky's; backoff-core's `jitter: 'full'` goes to kyBackoff's options or `backoff`), got \"full\".",
              ].join('\n'),
            ),
          );
          expect(route.hits).toHaveLength(0);
        });

        it('`jitter: false` is `jitter: "none"` (the default is full jitter)', async () => {
          expect((await run(make({ jitter: false }), [503, 503, ONCE])).waits).toEqual([100, 200]);
        });

        it('`jitter` as a function shapes each computed delay', async () => {
          const quarter = (delay: number) => delay / 4;
          expect((await run(make({ jitter: quarter }), [503, 503, ONCE])).waits).toEqual([25, 50]);
          const both = { jitter: quarter, delay: (n: number) => n * 40 };
          expect((await run(make(both), [503, 503, ONCE])).waits).toEqual([10, 20]);
          // A result that is not a finite number of ms at least 0 is ignored, as ky ignores it.
          expect((await run(make({ jitter: () => Number.NaN }), [503, ONCE])).waits).toEqual([100]);
        });

        it('`maxRetryAfter`: a server delay above it is not waited for (ky would wait that long); below, it is', async () => {
          const slow = { status: 503, headers: { 'Retry-After': '5' } };
          const above = await run(make({ maxRetryAfter: 1000 }), [slow, ONCE]);
          expect(above.hits).toBe(1);
          expect(above.result).toMatchObject({ reason: 'retry-after-too-long', serverDelay: 5000 });
          const below = await run(make({ maxRetryAfter: 10_000 }), [slow, ONCE]);
          expect(below.hits).toBe(2);
          expect(below.waits).toEqual([6750]); // the server's 5 s, plus 0.5 x its 3.5 s window
        });

        it('`afterStatusCodes` is accepted and changes nothing: a timing header is read on every retried status', async () => {
          const paced = { status: 500, headers: { 'Retry-After': '2' } };
          const { hits, waits } = await run(make({ afterStatusCodes: [] }), [paced, ONCE]);
          expect(hits).toBe(2);
          expect(waits).toEqual([3500]); // the server's 2 s, plus 0.5 x its 3 s window
        });

        it('`shouldRetry` gets ky’s error and retryCount (1 for the first retry); true, false and undefined as in ky', async () => {
          const seen: [boolean, number][] = [];
          const shouldRetry = ({ error, retryCount }: { error: unknown; retryCount: number }) => {
            seen.push([error instanceof client.HTTPError, retryCount]);
            const status = (error as { response: Response }).response.status;
            return status === 418 ? true : status === 502 ? false : undefined;
          };
          const api = make({ shouldRetry });
          expect((await run(api, [418, 418, ONCE])).hits).toBe(3);
          expect(seen).toEqual([
            [true, 1],
            [true, 2],
          ]);
          expect((await run(api, [502, ONCE])).hits).toBe(1); // false: not retried, though listed
          expect((await run(api, [503, ONCE])).hits).toBe(2); // undefined: the rules decide
          const result = (await run(make({ shouldRetry: async () => false }), [503, ONCE])).result;
          expect(result).toMatchObject({ attempts: 1, reason: 'should-retry' });
        });

        it('`shouldRetry` is asked about a network error with ky’s own error', async () => {
          const errors: unknown[] = [];
          const api = make({ shouldRetry: ({ error }: { error: unknown }) => void errors.push(error) });
          expect((await run(api, ['network-error', ONCE])).hits).toBe(2);
          expect(errors).toHaveLength(1);
          if (client.NetworkError) expect(errors[0]).toBeInstanceOf(client.NetworkError);
          else expect(errors[0]).toBeInstanceOf(TypeError);
        });

        it('a field with no meaning under kyBackoff is rejected, naming it and saying why', async () => {
          const send = async () => make({ limit: 1, retries: 2 })(`${API}/r`);
          const route = server.script('/r', [ONCE]);
          await expect(send()).rejects.toThrow(
            /^Expected ky's `retry` to hold ky's fields only \(limit, methods, .*\), got `retry\.retries`: kyBackoff gives nothing else a meaning\./,
          );
          await expect(async () => make({ jitter: 'full' })(`${API}/r`)).rejects.toThrow(
            new TypeError(
              "Expected `retry.jitter` to be a boolean or a function (ky's; backoff-core's `jitter: 'full'` goes to kyBackoff's options or `backoff`), got \"full\".",
            ),
          );
          expect(route.hits).toHaveLength(0);
        });
      });
    }

    it('kyBackoff’s options win over the instance’s `retry` fields', async () => {
      const api = virtual.wrap(client.ky.create({ retry: { statusCodes: [418], limit: 5 } }), {
        ...base,
        statusCodes: [503],
      });
      expect((await run(api, [418, ONCE])).hits).toBe(1);
      expect((await run(api, [503, 503, ONCE])).hits).toBe(3);
    });

    it('a request’s `retry` fields win over kyBackoff’s options; its `backoff` wins over both', async () => {
      const api = virtual.wrap(client.ky, { ...base, statusCodes: [503] });
      expect((await run(api, [418, ONCE], { retry: { statusCodes: [418] } })).hits).toBe(2);
      const both = { retry: { statusCodes: [418] }, backoff: { statusCodes: [503] } };
      expect((await run(api, [418, ONCE], both)).hits).toBe(1);
    });

    it('a request’s list adds to the instance’s, as ky concatenates them', async () => {
      const api = virtual.wrap(client.ky.create({ retry: { statusCodes: [418] } }), base);
      const more = { retry: { statusCodes: [425] } };
      expect((await run(api, [418, 425, ONCE], more)).hits).toBe(3);
      expect((await run(api, [503, ONCE], more)).hits).toBe(1);
    });

    it('`.extend({ retry })` fields hold for every request of the derived instance', async () => {
      const derived = virtual.wrap(client.ky, base).extend({ retry: { statusCodes: [418], delay: () => 3 } });
      const { hits, waits } = await run(derived, [418, 418, ONCE]);
      expect(hits).toBe(3);
      expect(waits).toEqual([3, 3]);
    });

    it('a call re-sent by a hook with the hook’s own options (`ky(request, options)`) follows the instance’s rules', async () => {
      let api: LooseKy | undefined;
      let resent = false;
      // ky 2 hands the hook one state object, ky 1 its arguments one by one.
      const refresh = (...args: unknown[]) => {
        const [first, options, response] = args as [Request, object, Response];
        const state = (args.length === 1 ? first : { request: first, options, response }) as {
          request: Request;
          options: object;
          response: Response;
        };
        if (state.response.status !== 401 || resent) return undefined;
        resent = true;
        return api?.(state.request, state.options as Record<string, unknown>);
      };
      api = virtual.wrap(client.ky.create({ hooks: { afterResponse: [refresh] } }), base);
      const { hits, result } = await run(api, [401, 503, ONCE]);
      expect(hits).toBe(3);
      expect(result).toMatchObject({ attempts: 2, reason: 'success' });
    });

    const withInit = (target: KyClient) => target.major === 2;
    it.runIf(withInit(client))(
      'fields an `init` hook sets on `options.retry` hold for that call',
      async () => {
        // As a hook for ky alone is written: the options carry no `retry` unless one was given.
        const init = (options: { retry?: Record<string, unknown> }) => {
          options.retry ??= {};
          options.retry.statusCodes = [418];
          options.retry.backoffLimit = 50;
        };
        const api = virtual.wrap(client.ky.create({ hooks: { init: [init] } }), { ...base, jitter: 'none' });
        const { hits, waits } = await run(api, [418, 418, ONCE]);
        expect(hits).toBe(3);
        expect(waits).toEqual([50, 50]);
      },
    );
  },
);
