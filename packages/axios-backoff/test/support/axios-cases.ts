import { API, ScriptedApi, serveTests, VirtualClock } from '@backoff/test-utils';
import type {
  AxiosAdapter,
  AxiosError,
  AxiosResponse,
  AxiosStatic,
  CreateAxiosDefaults,
  InternalAxiosRequestConfig,
} from 'axios';
import type { BackoffOptions, RetryEvent } from 'backoff-core';
import { afterEach, describe, expect, it } from 'vitest';
import { axiosBackoff } from '../../src/index.ts';
import type { AdapterName } from './driver.ts';

/** Settles a promise into its value or its rejection, so a test can assert on either. */
export async function settle<T>(promise: Promise<T>): Promise<T | AxiosError> {
  try {
    return await promise;
  } catch (error) {
    return error as AxiosError;
  }
}

/**
 * What is particular to axios: installation, per-request options, interceptors and transforms on re-send,
 * validateStatus, cancellation, re-issued configs. Against MSW with server-side counters.
 */
export function describeAxiosCases(ax: AxiosStatic, adapter: AdapterName): void {
  describe(`axios specifics: axios ${ax.VERSION} (${adapter} adapter)`, () => {
    const api = new ScriptedApi();
    let clock: VirtualClock;

    serveTests(api, () => clock);

    const testOptions = (): BackoffOptions => {
      clock = new VirtualClock();
      return { random: () => 0.5, timers: clock.timers, now: clock.now };
    };
    const setup = (options: BackoffOptions = {}, config: CreateAxiosDefaults = {}) => {
      const instance = ax.create({ baseURL: API, adapter, ...config });
      const remove = axiosBackoff(instance, { ...testOptions(), ...options });
      return { instance, remove };
    };

    it('installing twice on one instance throws; after removal it installs again', async () => {
      const { instance, remove } = setup();
      expect(() => axiosBackoff(instance)).toThrow(/already installed on this axios instance/);
      remove();
      remove(); // A second call does nothing.
      const again = axiosBackoff(instance, testOptions());
      const route = api.script('/items', [503, 200]);
      await instance.get('/items');
      // One installation, one set of retries: not doubled.
      expect(route.hits).toHaveLength(2);
      again();
    });

    it('the returned function removes the retries', async () => {
      const { instance, remove } = setup();
      remove();
      const route = api.script('/items', [503, 200]);
      const error = (await settle(instance.get('/items'))) as AxiosError;
      expect(error.response?.status ?? (error.cause as AxiosError).response?.status).toBe(503);
      expect(route.hits).toHaveLength(1);
      expect(error.backoff).toBeUndefined();
    });

    it('a config re-sent after removal is not retried, though it went through axios-backoff before', async () => {
      const { instance, remove } = setup();
      const route = api.script('/items', [503]);
      const error = (await settle(instance.get('/items'))) as AxiosError;
      expect(route.hits).toHaveLength(4);
      remove();
      await settle(instance.request(error.config ?? {}));
      expect(route.hits).toHaveLength(5);
    });

    it('each installation has its own budget, shared by all of its requests', async () => {
      const budget = { reserve: 2, ratio: 0.1 };
      const a = setup({ budget });
      const b = ax.create({ baseURL: API, adapter });
      const removeB = axiosBackoff(b, { random: () => 0.5, timers: clock.timers, now: clock.now, budget });
      const down = api.script('/down', [503]);
      // The first request through `a` spends its 2 retries, the second gets none...
      await settle(a.instance.get('/down'));
      const second = (await settle(a.instance.get('/down'))) as AxiosError;
      expect(down.hits).toHaveLength(4);
      expect(second.backoff).toMatchObject({ attempts: 1, reason: 'budget-exhausted' });
      expect(a.remove.backoff.budget?.snapshot()).toMatchObject({ acquired: 2, refused: 2 });
      // ...while `b` still has both of its own.
      const error = (await settle(b.get('/down'))) as AxiosError;
      expect(down.hits).toHaveLength(7);
      expect(error.backoff).toMatchObject({ attempts: 3, reason: 'budget-exhausted' });
      expect(removeB.backoff.budget).not.toBe(a.remove.backoff.budget);
    });

    it('bad options throw at installation, naming the option, and install nothing', async () => {
      const instance = ax.create({ baseURL: API, adapter });
      expect(() => axiosBackoff(instance, { retries: -1 })).toThrow(RangeError);
      expect(() => axiosBackoff(instance, { retries: -1 })).toThrow(/`retries`/);
      expect(() => axiosBackoff(instance, { jitter: 'half' as never })).toThrow(TypeError);
      expect(() => axiosBackoff({ retries: 1 } as never)).toThrow(
        /Expected `instance` to be an axios instance/,
      );
      // Nothing was left behind: a valid installation still works.
      axiosBackoff(instance, testOptions());
      const route = api.script('/items', [503, 200]);
      await instance.get('/items');
      expect(route.hits).toHaveLength(2);
    });

    it('a bad per-request `backoff` rejects with a TypeError and sends nothing', async () => {
      const { instance } = setup();
      const route = api.script('/items', [200]);
      const unknown = await settle(instance.get('/items', { backoff: { retriez: 1 } as never }));
      expect(unknown).toBeInstanceOf(TypeError);
      expect((unknown as Error).message).toMatch(/Unknown backoff option `retriez`/);
      const wrongType = await settle(instance.get('/items', { backoff: 'yes' as never }));
      expect(wrongType).toBeInstanceOf(TypeError);
      expect((wrongType as Error).message).toMatch(/`config.backoff`/);
      expect(route.hits).toHaveLength(0);
    });

    it("`backoff` in the instance's defaults applies to every request; a request's own wins", async () => {
      const { instance } = setup({}, { backoff: { retries: 1, jitter: 'none' } });
      const once = api.script('/once', [503]);
      await settle(instance.get('/once'));
      expect(once.hits).toHaveLength(2);
      expect(clock.waits).toEqual([1000]);
      const off = api.script('/off', [503]);
      await settle(instance.get('/off', { backoff: false }));
      expect(off.hits).toHaveLength(1);
      const more = api.script('/more', [503]);
      await settle(instance.get('/more', { backoff: { retries: 2 } }));
      expect(more.hits).toHaveLength(3);
    });

    it('other interceptors run once per logical request, however many attempts it takes', async () => {
      const { instance } = setup();
      const seen: string[] = [];
      // Registered after axiosBackoff's: one synchronous and one async request interceptor (the async one puts
      // axios on its promise-chain path), a response interceptor on each side of it... the order of
      // registration does not matter: retries happen below all of them.
      instance.interceptors.request.use(
        (config) => {
          seen.push('request (sync)');
          return config;
        },
        null,
        { synchronous: true },
      );
      instance.interceptors.request.use(async (config) => {
        seen.push('request (async)');
        return config;
      });
      instance.interceptors.response.use(
        (response) => {
          seen.push(`response ${response.status}, attempts ${response.backoff?.attempts}`);
          return response;
        },
        (error: AxiosError) => {
          seen.push(`error ${error.message}`);
          throw error;
        },
      );
      const route = api.script('/items', [503, 'network-error', 200]);
      const response = await instance.get('/items');
      expect(response.status).toBe(200);
      expect(route.hits).toHaveLength(3);
      expect(seen).toEqual(['request (async)', 'request (sync)', 'response 200, attempts 3']);
    });

    it("a response interceptor's error handler sees only the final error", async () => {
      const { instance } = setup({ retries: 2 });
      const errors: unknown[] = [];
      instance.interceptors.response.use(null, (error: unknown) => {
        errors.push(error);
        throw error;
      });
      const route = api.script('/down', [503]);
      const error = (await settle(instance.get('/down'))) as AxiosError;
      expect(route.hits).toHaveLength(3);
      expect(errors).toEqual([error]);
      expect(error.backoff).toMatchObject({ attempts: 3, reason: 'retries-exhausted' });
    });

    it('a key set by an interceptor is the same on every attempt, and makes a POST retryable', async () => {
      const { instance } = setup();
      let n = 0;
      // Unconditional, and different on every call: it is still called once per logical request.
      instance.interceptors.request.use((config) => {
        config.headers.set('Idempotency-Key', `"key-${++n}"`);
        return config;
      });
      const route = api.script('/orders', [503, 503, 201]);
      await instance.post('/orders', { n: 1 });
      expect(route.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual([
        '"key-1"',
        '"key-1"',
        '"key-1"',
      ]);
    });

    it('transformRequest runs once: every attempt sends the body it produced', async () => {
      let calls = 0;
      const { instance } = setup(
        {},
        {
          headers: { 'Content-Type': 'application/json' },
          transformRequest: [
            (data: unknown) => {
              calls++;
              return JSON.stringify({ wrapped: data });
            },
          ],
        },
      );
      const route = api.script('/items', [503, 503, 200]);
      await instance.put('/items', { n: 1 });
      expect(calls).toBe(1);
      expect(route.hits.map((hit) => hit.body)).toEqual(Array(3).fill('{"wrapped":{"n":1}}'));
    });

    it('validateStatus: () => true still retries by status code; the final 503 then resolves', async () => {
      const { instance } = setup({ retries: 2 }, { validateStatus: () => true });
      const flaky = api.script('/flaky', [503, 503, 200]);
      const ok = await instance.get('/flaky');
      expect(ok.status).toBe(200);
      expect(flaky.hits).toHaveLength(3);
      const down = api.script('/down', [503]);
      const last = await instance.get('/down');
      expect(last.status).toBe(503);
      expect(down.hits).toHaveLength(3);
      expect(last.backoff).toMatchObject({ attempts: 3, totalDelay: 1500, reason: 'retries-exhausted' });
    });

    it("an abort during a wait rejects at once with axios's CanceledError; no further attempt", async () => {
      const { instance } = setup();
      clock.auto = false;
      const route = api.script('/slow', [503, 200]);
      const controller = new AbortController();
      const pending = settle(instance.get('/slow', { signal: controller.signal }));
      expect(await clock.nextWait()).toBe(500);
      controller.abort(new Error('user gave up'));
      const error = (await pending) as AxiosError;
      expect(error).toBeInstanceOf(ax.CanceledError);
      expect(ax.isCancel(error)).toBe(true);
      expect(error.code).toBe('ERR_CANCELED');
      expect(error.config?.url).toBe('/slow');
      expect(error.backoff).toMatchObject({ attempts: 1, totalDelay: 0 });
      expect(route.hits).toHaveLength(1);
      expect(clock.pendingCount).toBe(0);
    });

    it("a cancel token cancelled during a wait rejects at once with the token's reason", async () => {
      const { instance } = setup();
      clock.auto = false;
      const route = api.script('/slow', [503, 200]);
      const source = ax.CancelToken.source();
      const pending = settle(instance.get('/slow', { cancelToken: source.token }));
      await clock.nextWait();
      source.cancel('stop');
      const error = (await pending) as AxiosError;
      expect(ax.isCancel(error)).toBe(true);
      expect(error.message).toBe('stop');
      expect(route.hits).toHaveLength(1);
      expect(clock.pendingCount).toBe(0);
    });

    it('onRetry throwing ends the call with its error, before any wait', async () => {
      const failure = new Error('onRetry failed');
      const { instance } = setup({
        onRetry: () => {
          throw failure;
        },
      });
      const route = api.script('/items', [503, 200]);
      expect(await settle(instance.get('/items'))).toBe(failure);
      expect(route.hits).toHaveLength(1);
      expect(clock.waits).toEqual([]);
    });

    it('re-sending error.config from an interceptor is a new logical request: retries are never nested', async () => {
      const { instance } = setup({ retries: 1 });
      let reissued = false;
      instance.interceptors.response.use(null, (error: AxiosError) => {
        if (reissued || !error.config) throw error;
        reissued = true;
        return instance.request(error.config);
      });
      const route = api.script('/items', [503, 503, 503, 200]);
      const response = await instance.get('/items');
      expect(response.status).toBe(200);
      // 2 attempts, then the re-issued request's 2 attempts (nested retries would have made 2 x 2 of them).
      expect(route.hits).toHaveLength(4);
      expect(response.backoff).toMatchObject({ attempts: 2 });
    });

    it("response.config.adapter and error.config.adapter are the caller's own setting", async () => {
      const { instance } = setup();
      api.script('/items', [503, 200]);
      const response = await instance.get('/items');
      expect(response.config.adapter).toBe(adapter);
      api.script('/gone', [503, 404]);
      const error = (await settle(instance.get('/gone'))) as AxiosError;
      expect(error.config?.adapter).toBe(adapter);
      // A list set per request comes back as that list (axios's config merge copies it).
      const listed = await instance.get('/items', { adapter: [adapter, 'http'] });
      expect(listed.config.adapter).toEqual([adapter, 'http']);
      // Re-sending the config the caller got back works as the first send did: retried, never nested.
      api.script('/again', [503, 200]);
      const again = await instance.request({ ...response.config, url: '/again' });
      expect(again.status).toBe(200);
      expect(again.config.adapter).toBe(adapter);
    });

    it('onDownloadProgress reports every attempt, failed ones included, each counted from 0', async () => {
      const { instance } = setup();
      api.script('/items', [
        { status: 503, body: 'x'.repeat(3000) },
        { status: 200, body: 'y'.repeat(1000) },
      ]);
      const loaded: number[] = [];
      const response = await instance.get('/items', {
        onDownloadProgress: (event) => void loaded.push(event.loaded),
      });
      expect(response.data).toBe('y'.repeat(1000));
      // The failed 503's 3000 bytes are reported, then the count starts again for the 200's 1000 bytes.
      const failedDone = loaded.indexOf(3000);
      expect(failedDone).toBeGreaterThanOrEqual(0);
      expect(loaded.slice(failedDone + 1).every((value) => value <= 1000)).toBe(true);
      expect(loaded.at(-1)).toBe(1000);
    });

    it('retry events carry the full URL (baseURL + url)', async () => {
      const events: RetryEvent[] = [];
      const { instance } = setup({ onRetry: (event) => events.push(event) });
      api.script('/items', [503, 200]);
      await instance.get('items?page=2');
      expect(events.map((event) => event.url)).toEqual([`${API}/items?page=2`]);
    });

    it('axiosBackoff() with no instance installs on the default axios export', async () => {
      const remove = axiosBackoff(undefined, testOptions());
      try {
        const route = api.script('/items', [503, 200]);
        const response = await ax.get(`${API}/items`, { adapter });
        expect(route.hits).toHaveLength(2);
        expect(response.backoff).toMatchObject({ attempts: 2 });
      } finally {
        remove();
      }
    });
  });
}

/** A custom adapter: answers from a script, the way axios's own adapters settle (rejecting on a bad status). */
function scriptedAdapter(
  ax: AxiosStatic,
  answers: ReadonlyArray<Partial<AxiosResponse> & { status: number }>,
): AxiosAdapter & { calls: number } {
  const adapter = Object.assign(
    async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
      const answer = answers[Math.min(adapter.calls++, answers.length - 1)];
      const response = { statusText: '', data: '', headers: {}, ...answer, config } as AxiosResponse;
      if (config.validateStatus?.(response.status) === false) {
        throw new ax.AxiosError('Request failed', 'ERR_BAD_RESPONSE', config, undefined, response);
      }
      return response;
    },
    { calls: 0 },
  );
  return adapter;
}

/** Cases that need a custom adapter rather than a server: response headers in any shape, discarded streams. */
export function describeCustomAdapterCases(ax: AxiosStatic): void {
  describe(`custom adapters: axios ${ax.VERSION}`, () => {
    let clock: VirtualClock;
    afterEach(() => expect(clock.pendingCount).toBe(0));

    const send = (adapter: AxiosAdapter, config: CreateAxiosDefaults = {}) => {
      clock = new VirtualClock();
      const instance = ax.create({ adapter, ...config });
      axiosBackoff(instance, { random: () => 0.5, timers: clock.timers, now: clock.now });
      return instance.get('http://127.0.0.1:4599/items');
    };

    it.each([
      ['a plain object, upper case', { 'RETRY-AFTER': '2' }],
      ['a plain object, mixed case', { 'Retry-after': '2' }],
      ['a raw header block', 'Content-Type: text/plain\r\nRetry-After: 2\r\n'],
      ['a fetch Headers', new Headers({ 'Retry-After': '2' })],
    ])('Retry-After is read from response headers given as %s', async (_shape, headers) => {
      const adapter = scriptedAdapter(ax, [{ status: 429, headers: headers as never }, { status: 200 }]);
      const response = await send(adapter);
      expect(response.status).toBe(200);
      expect(adapter.calls).toBe(2);
      // The server's 2 s, plus 0.5 x a 3 s window (1.5 x the delay): the server delay is a floor.
      expect(clock.waits).toEqual([3500]);
    });

    it('a resolved 503 (validateStatus lets it through) is retried with its Retry-After', async () => {
      const adapter = scriptedAdapter(ax, [
        { status: 503, headers: { 'retry-after': '1' } },
        { status: 200 },
      ]);
      const response = await send(adapter, { validateStatus: () => true });
      expect(response.status).toBe(200);
      expect(clock.waits).toEqual([1750]);
    });

    it('a custom adapter function comes back as response.config.adapter', async () => {
      const adapter = scriptedAdapter(ax, [{ status: 503 }, { status: 200 }]);
      const response = await send(adapter);
      expect(adapter.calls).toBe(2);
      expect(response.config.adapter).toBe(adapter);
    });

    it("a failed attempt's stream (responseType 'stream') is destroyed, the final one handed over", async () => {
      const streams = [0, 1].map((n) => ({ n, destroyed: 0, destroy: () => {} }));
      for (const stream of streams) stream.destroy = () => void stream.destroyed++;
      const adapter = scriptedAdapter(ax, [
        { status: 503, data: streams[0] },
        { status: 200, data: streams[1] },
      ]);
      const response = await send(adapter, { responseType: 'stream' });
      expect(response.data).toBe(streams[1]);
      expect(streams.map((stream) => stream.destroyed)).toEqual([1, 0]);
    });
  });
}
