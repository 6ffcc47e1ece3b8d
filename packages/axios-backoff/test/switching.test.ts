// What someone moving over from axios-retry or retry-axios gets wrong, written as they write it: each mistake
// fails loudly, before anything is sent, and says the fix. The server counts the requests.
import { API, ScriptedApi, VirtualClock } from '@backoff/test-utils';
import axios, { AxiosError, type AxiosStatic, type InternalAxiosRequestConfig } from 'axios';
import axios1134 from 'axios-1.13.4';
import axiosRetry from 'axios-retry';
import * as rax from 'retry-axios';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axiosBackoff } from '../src/index.ts';

const api = new ScriptedApi();
beforeAll(() => api.listen());
afterEach(() => api.reset());
afterAll(() => api.close());

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the request resolved'),
    (error: unknown) => error as AxiosError,
  );

describe.each([
  ['axios 1.21.1', axios],
  ['axios 1.13.4', axios1134 as unknown as AxiosStatic],
])("a peer's settings left behind: %s", (_name, ax) => {
  const client = () => {
    const clock = new VirtualClock();
    const instance = ax.create({ baseURL: API });
    axiosBackoff(instance, { timers: clock.timers, now: clock.now, random: () => 0.5 });
    return instance;
  };

  it("a request that kept axios-retry's `{ retries: 0 }` opt-out fails unsent, as an AxiosError saying what to write", async () => {
    const route = api.script('/items', [503, 503, 503, 200]);
    const error = await rejection(client().get('/items', { 'axios-retry': { retries: 0 } } as never));
    expect(route.hits).toHaveLength(0);
    expect(ax.isAxiosError(error)).toBe(true);
    expect(error.code).toBe('ERR_BAD_OPTION');
    expect(error.message).toBe(
      [
        "Not sent: axios-retry's settings in this request's config (`config['axios-retry']`) are not read by axios-backoff: write them in the request's `backoff`, then remove them.",
        '- `retries`: `retries: 0` (or `backoff: false`)',
      ].join('\n'),
    );
    expect(error.config?.url).toBe('/items');
    expect(error.response).toBeUndefined();
  });

  it("every field of axios-retry's settings is mapped to ours", async () => {
    const route = api.script('/items', [200]);
    const settings = {
      retries: 2,
      retryCondition: () => true,
      retryDelay: () => 100,
      shouldResetTimeout: true,
      onRetry: () => {},
      onMaxRetryTimesExceeded: () => {},
      validateResponse: () => true,
      colour: 'red',
    };
    const error = await rejection(client().get('/items', { 'axios-retry': settings } as never));
    expect(route.hits).toHaveLength(0);
    expect(error.message.split('\n').slice(1)).toEqual([
      '- `retries`: `retries: 2`',
      '- `retryCondition`: `shouldRetry(context)`, asked about failures only',
      '- `retryDelay`: `delay(context)` (a function) or `baseDelay` (ms)',
      '- `shouldResetTimeout`: not needed here: `timeout` is per attempt, `deadline` bounds the whole call',
      '- `onRetry`: `onRetry(event)`: one RetryEvent `{ retry, delay, error, status, url, ... }`',
      '- `onMaxRetryTimesExceeded`: not needed here: the final error carries `getBackoffResult(error)`',
      "- `validateResponse`: axios's `validateStatus`, and `shouldRetry` for what is retried",
      "- `colour`: not one of axios-retry's fields: it had no meaning there either",
    ]);
  });

  it("settings that carry axios-retry's own state say first, in one line, that it is still attached", async () => {
    const route = api.script('/items', [200]);
    const settings = { retries: 2, retryCount: 1, lastRequestTime: 0 };
    const error = await rejection(client().get('/items', { 'axios-retry': settings } as never));
    expect(route.hits).toHaveLength(0);
    expect(error.message.split('\n')).toEqual([
      `Not sent: ${AXIOS_RETRY_ATTACHED}`,
      'Its settings, to write in `axiosBackoff(instance, options)`:',
      '- `retries`: `retries: 2`',
    ]);
  });

  it("retry-axios's `raxConfig` in the instance's defaults fails every request unsent, naming the defaults", async () => {
    const route = api.script('/items', [503, 200]);
    const instance = client();
    (instance.defaults as { raxConfig?: unknown }).raxConfig = {
      retry: 3,
      retryDelay: 500,
      httpMethodsToRetry: ['GET'],
      statusCodesToRetry: [[500, 599]],
      onRetryAttempt: async () => {},
    };
    const error = await rejection(instance.get('/items'));
    expect(route.hits).toHaveLength(0);
    expect(error.code).toBe('ERR_BAD_OPTION');
    expect(error.message).toBe(
      [
        "Not sent: retry-axios's settings in `instance.defaults.raxConfig` are not read by axios-backoff: write them in `axiosBackoff(instance, options)`, then remove them.",
        '- `retry`: `retries: 3`',
        '- `retryDelay`: `baseDelay` (ms)',
        '- `httpMethodsToRetry`: `methods`',
        '- `statusCodesToRetry`: `statusCodes`, a flat list of statuses',
        '- `onRetryAttempt`: `onRetry(event)`, before the wait',
      ].join('\n'),
    );
    // Removed, the instance sends again, with its retries.
    delete (instance.defaults as { raxConfig?: unknown }).raxConfig;
    await expect(instance.get('/items')).resolves.toMatchObject({ status: 200 });
    expect(route.hits).toHaveLength(2);
  });

  it('both peers at once are reported in one error; a response interceptor sees it as any failure', async () => {
    const route = api.script('/items', [200]);
    const instance = client();
    const seen: string[] = [];
    instance.interceptors.response.use(undefined, (error: AxiosError) => {
      seen.push(error.code ?? '');
      throw error;
    });
    const config = { raxConfig: { retry: 0 }, 'axios-retry': { retries: 0 } } as never;
    const error = await rejection(instance.get('/items', config));
    expect(error.message.match(/settings in/g)).toHaveLength(2);
    expect(seen).toEqual(['ERR_BAD_OPTION']);
    expect(route.hits).toHaveLength(0);
  });

  it('also fails unsent when another request interceptor is async (axios takes its promise path)', async () => {
    const route = api.script('/items', [200]);
    const instance = client();
    instance.interceptors.request.use(async (config) => config);
    const error = await rejection(instance.get('/items', { raxConfig: { retry: 0 } } as never));
    expect(error.code).toBe('ERR_BAD_OPTION');
    expect(route.hits).toHaveLength(0);
  });

  it('a request without them is sent and retried as ever; an explicit `undefined` is no leftover', async () => {
    const route = api.script('/items', [503, 200]);
    const response = await client().get('/items', { raxConfig: undefined } as never);
    expect(response.status).toBe(200);
    expect(route.hits).toHaveLength(2);
  });
});

const AXIOS_RETRY_ATTACHED =
  'axios-retry is still attached to this axios instance: remove it first (drop the `axiosRetry(instance)` call, or eject the two interceptor ids it returned), or it retries again what axios-backoff already retried.';
const RETRY_AXIOS_ATTACHED =
  'retry-axios is still attached to this axios instance: remove it first (drop the `rax.attach(instance)` call, or `rax.detach(id, instance)` with the id it returned), or it retries again what axios-backoff already retried.';

describe.each(
  [
    ['axios 1.21.1', axios],
    ['axios 1.13.4', axios1134 as unknown as AxiosStatic],
  ].flatMap(([name, ax]) =>
    (['http', 'fetch'] as const).map(
      (adapter) => [`${name}, ${adapter} adapter`, ax as AxiosStatic, adapter] as const,
    ),
  ),
)('another retry interceptor still on the instance: %s', (_name, ax, adapter) => {
  const options = () => {
    const clock = new VirtualClock();
    return { timers: clock.timers, now: clock.now, random: () => 0.5 };
  };
  const create = () => ax.create({ baseURL: API, adapter });

  it('axios-retry attached before: axiosBackoff throws at install, in one line; once it is ejected, it installs', async () => {
    const instance = create();
    const ids = axiosRetry(instance as never);
    expect(() => axiosBackoff(instance, options())).toThrow(new Error(AXIOS_RETRY_ATTACHED));
    instance.interceptors.request.eject(ids.requestInterceptorId);
    instance.interceptors.response.eject(ids.responseInterceptorId);
    axiosBackoff(instance, options());
    const route = api.script('/items', [503, 200]);
    await expect(instance.get('/items')).resolves.toMatchObject({ status: 200 });
    expect(route.hits).toHaveLength(2);
  });

  it('retry-axios attached before: axiosBackoff throws at install, in one line; once detached, it installs', async () => {
    const instance = create();
    const id = rax.attach(instance as never);
    expect(() => axiosBackoff(instance, options())).toThrow(new Error(RETRY_AXIOS_ATTACHED));
    rax.detach(id, instance as never);
    axiosBackoff(instance, options());
    const route = api.script('/items', [503, 200]);
    await expect(instance.get('/items')).resolves.toMatchObject({ status: 200 });
    expect(route.hits).toHaveLength(2);
  });

  it('axios-retry attached after: every request fails unsent, its first line saying axios-retry is attached', async () => {
    const instance = create();
    axiosBackoff(instance, options());
    axiosRetry(instance as never, { retries: 2 });
    const route = api.script('/items', [503, 200]);
    const error = await rejection(instance.get('/items'));
    expect(route.hits).toHaveLength(0);
    expect(error.code).toBe('ERR_BAD_OPTION');
    const lines = error.message.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `Not sent: ${AXIOS_RETRY_ATTACHED}`,
      'Its settings, to write in `axiosBackoff(instance, options)`:',
      '- `retries`: `retries: 2`',
    ]);
    expect(lines.filter((line) => /retryCount|lastRequestTime/.test(line))).toEqual([]);
  });

  it("retry-axios attached after: axios-backoff's retries only, then its retry fails unsent, saying it is attached", async () => {
    const instance = create();
    axiosBackoff(instance, options());
    rax.attach(instance as never);
    const route = api.script('/items', [503]);
    const error = await rejection(instance.get('/items'));
    // axios-backoff's own 1 + 3; retry-axios's retry of the last one is not sent.
    expect(route.hits).toHaveLength(4);
    expect(error.code).toBe('ERR_BAD_OPTION');
    expect(error.message.split('\n')[0]).toBe(`Not sent: ${RETRY_AXIOS_ATTACHED}`);
  });

  it('an interceptor of its own is no peer: it installs and retries as ever', async () => {
    const instance = create();
    instance.interceptors.request.use((config) => config);
    instance.interceptors.response.use(undefined, (error: unknown) => Promise.reject(error));
    axiosBackoff(instance, options());
    const route = api.script('/items', [503, 200]);
    await expect(instance.get('/items')).resolves.toMatchObject({ status: 200 });
    expect(route.hits).toHaveLength(2);
  });
});

describe("a peer's callback signature", () => {
  it("axios-retry's `onRetry(retryCount, error, requestConfig)`, kept as it was, throws at installation", () => {
    const instance = axios.create({ baseURL: API });
    const install = () =>
      axiosBackoff(instance, {
        retries: 3,
        // As axios-retry called it; in plain JavaScript nothing stops it.
        onRetry: ((retryCount: number, error: Error, requestConfig: { url?: string }) =>
          console.warn(`retry ${retryCount} of ${requestConfig.url}: ${error.message}`)) as never,
      });
    expect(install).toThrow(TypeError);
    expect(install).toThrow(
      /^Expected `onRetry` to be a function of one parameter, the event `\{ retry, delay, error, status, url, \.\.\. \}`, got a function of 3 parameters: axios-retry's `onRetry\(retryCount, error, requestConfig\)` is written `onRetry: \(\{ retry, error, url \}\) => \.\.\.`/,
    );
    // Nothing was installed: a second try with the fix works.
    expect(() =>
      axiosBackoff(instance, { onRetry: ({ retry, error, url }) => [retry, error, url] }),
    ).not.toThrow();
  });

  it("axios-retry's `retryDelay(retryCount, error)` given as `delay`, per request, rejects the call unsent", async () => {
    const route = api.script('/items', [200]);
    const instance = axios.create({ baseURL: API });
    axiosBackoff(instance);
    const delay = ((retryCount: number, _error: unknown) => retryCount * 100) as never;
    await expect(instance.get('/items', { backoff: { delay } })).rejects.toThrow(
      /^Expected `delay` to be a function of one parameter, .* axios-retry's `retryDelay\(retryCount, error\)` is written `delay: \(\{ retry, error \}\) => ms`\.$/,
    );
    expect(route.hits).toHaveLength(0);
  });
});

describe('error codes axios-retry retries and axios-backoff does not', () => {
  // A custom adapter that fails with an AxiosError of the given code, then answers 200: what a socket would do. Its
  // request says, as axios's redirecting transport does, that no redirect was followed (the refusal was the first hop).
  const flaky = (code: string) => {
    const sent: string[] = [];
    const adapter = async (config: InternalAxiosRequestConfig) => {
      sent.push(config.method ?? '');
      if (sent.length === 1) throw new AxiosError('failed', code, config, { _redirectCount: 0 });
      return { data: 'ok', status: 200, statusText: 'OK', headers: {}, config };
    };
    return { sent, adapter };
  };

  it('an unknown code (EPROTO) is not retried, as the guide says; `shouldRetry` retries it when told to', async () => {
    const plain = flaky('EPROTO');
    const instance = axios.create({ adapter: plain.adapter });
    axiosBackoff(instance, { delay: () => 0 });
    const error = await rejection(instance.get('/items'));
    expect(error.code).toBe('EPROTO');
    expect(error.backoff).toMatchObject({ attempts: 1, reason: 'not-retryable-error' });
    expect(plain.sent).toHaveLength(1);

    // The guide's translation: say it for the code you know to be transient.
    const told = flaky('EPROTO');
    const retrying = axios.create({ adapter: told.adapter });
    axiosBackoff(retrying, {
      delay: () => 0,
      shouldRetry: ({ error }) => ((error as AxiosError | undefined)?.code === 'EPROTO' ? true : undefined),
    });
    await expect(retrying.get('/items')).resolves.toMatchObject({ status: 200 });
    expect(told.sent).toHaveLength(2);
  });

  it('a refused connection is retried for a POST too (it never left); a reset POST is not (axios-retry retries both)', async () => {
    const refused = flaky('ECONNREFUSED');
    const instance = axios.create({ adapter: refused.adapter });
    axiosBackoff(instance, { delay: () => 0 });
    await expect(instance.post('/orders', {})).resolves.toMatchObject({ status: 200 });
    expect(refused.sent).toEqual(['post', 'post']);

    const reset = flaky('ECONNRESET');
    const again = axios.create({ adapter: reset.adapter });
    axiosBackoff(again, { delay: () => 0 });
    const error = await rejection(again.post('/orders', {}));
    expect(error.backoff).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    expect(reset.sent).toEqual(['post']);
  });
});
