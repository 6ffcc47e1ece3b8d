import { collected, VirtualClock } from '@backoff/test-utils';
import axios, { type AxiosAdapter, AxiosError, AxiosHeaders, type AxiosResponse } from 'axios';
import { describe, expect, it, vi } from 'vitest';
import { axiosBackoff, getBackoffResult, RetryBudget } from '../src/index.ts';

// What axios-backoff does for each request: one adapter per installation, the result it carries, what a request
// in its wait holds. What it costs is measured by the benchmarks.

function setup(adapter: AxiosAdapter) {
  const clock = new VirtualClock();
  clock.auto = false;
  const instance = axios.create({ adapter, baseURL: 'https://api.test' });
  axiosBackoff(instance, { timers: clock.timers, now: clock.now, random: () => 0.5, budget: false });
  return { clock, instance };
}

describe('axios-backoff per request', () => {
  it('one retrying adapter serves every request of an installation with the same adapter setting', async () => {
    const ok: AxiosAdapter = async (config) => ({
      data: 'ok',
      status: 200,
      statusText: 'OK',
      headers: new AxiosHeaders(),
      config,
      request: {},
    });
    const seen: unknown[] = [];
    const fresh = axios.create({ adapter: ok });
    // Registered first, so it runs after axios-backoff's interceptor (axios runs them last-registered first).
    fresh.interceptors.request.use(
      (config) => {
        seen.push(config.adapter);
        return config;
      },
      null,
      { synchronous: true },
    );
    axiosBackoff(fresh);
    await fresh.get('/a');
    await fresh.get('/b');
    // A list is copied by axios's merge for every request: still the same adapter.
    await fresh.get('/c', { adapter: [ok, 'http'] });
    await fresh.get('/d', { adapter: [ok, 'http'] });
    expect(seen).toHaveLength(4);
    expect(seen[0]).not.toBe(ok);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).not.toBe(seen[0]);
    expect(seen[3]).toBe(seen[2]);
    // Each response still shows the caller's own setting.
    const listed = await fresh.get('/e', { adapter: [ok, 'http'] });
    expect(listed.config.adapter).toEqual([ok, 'http']);
    expect((await fresh.get('/f')).config.adapter).toBe(ok);
  });

  it('a request in its retry wait holds neither the failed response nor its error', async () => {
    let failedResponse: WeakRef<AxiosResponse> | undefined;
    let failedError: WeakRef<AxiosError> | undefined;
    let calls = 0;
    const { clock, instance } = setup(async (config) => {
      calls++;
      const response: AxiosResponse = {
        data: calls > 1 ? 'ok' : 'x'.repeat(1000),
        status: calls > 1 ? 200 : 503,
        statusText: calls > 1 ? 'OK' : 'Service Unavailable',
        headers: new AxiosHeaders(),
        config,
        request: {},
      };
      if (calls > 1) return response;
      // As axios's own `settle` rejects a status that `validateStatus` refuses.
      const error = new AxiosError(
        'Request failed with status code 503',
        'ERR_BAD_RESPONSE',
        config,
        {},
        response,
      );
      failedResponse = new WeakRef(response);
      failedError = new WeakRef(error);
      throw error;
    });
    const pending = instance.get('/items');
    await clock.nextWait();
    expect(await collected(failedResponse as WeakRef<AxiosResponse>)).toBe(true);
    expect(await collected(failedError as WeakRef<AxiosError>)).toBe(true);
    clock.advance(60_000);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.backoff).toMatchObject({ attempts: 2 });
  });
});

describe('a request that succeeds at once', () => {
  /** An adapter answering `statuses` in turn (the last one from then on), as axios's `settle` would. */
  function answering(...statuses: number[]) {
    let calls = 0;
    const adapter = vi.fn<AxiosAdapter>(async (config) => {
      const status = statuses[Math.min(calls++, statuses.length - 1)] as number;
      const response: AxiosResponse = {
        data: 'x',
        status,
        statusText: '',
        headers: new AxiosHeaders(),
        config,
        request: {},
      };
      if (config.validateStatus?.(status) === false) {
        throw new AxiosError(
          `Request failed with status code ${status}`,
          'ERR_BAD_RESPONSE',
          config,
          {},
          response,
        );
      }
      return response;
    });
    return adapter;
  }

  function installed(adapter: AxiosAdapter, options: Parameters<typeof axiosBackoff>[1] = {}) {
    const clock = new VirtualClock();
    const instance = axios.create({ adapter });
    const remove = axiosBackoff(instance, {
      timers: clock.timers,
      now: clock.now,
      random: () => 0.5,
      ...options,
    });
    return { instance, remove };
  }

  it('carries its result (non-enumerable, shared and frozen) and credits the budget', async () => {
    const budget = new RetryBudget();
    const { instance } = installed(answering(200), { budget });
    const response = await instance.get('/items');
    expect(response.backoff).toBe((await instance.get('/other')).backoff);
    expect(Object.isFrozen(response.backoff)).toBe(true);
    const expected = {
      attempts: 1,
      totalDelay: 0,
      reason: 'success',
      serverDelay: undefined,
      hedges: 0,
      hedgeWon: false,
    };
    expect(response.backoff).toEqual(expected);
    expect(getBackoffResult(response)).toEqual(expected);
    expect(Object.keys(response)).not.toContain('backoff');
    expect(JSON.stringify({ ...response, config: undefined, request: undefined })).not.toContain('attempts');
    expect(budget.snapshot().successes).toBe(2);
  });

  it('a first attempt that fails is retried, and the result counts both attempts', async () => {
    const adapter = answering(503, 200);
    const { instance } = installed(adapter, { budget: false });
    const response = await instance.get('/items');
    expect(adapter).toHaveBeenCalledTimes(2);
    expect(response.backoff).toMatchObject({ attempts: 2, reason: 'success' });
    expect(getBackoffResult(response)).toBe(response.backoff);
    // An adapter that throws at once fails its attempt the same way.
    let calls = 0;
    const throwing = installed(
      ((config: Parameters<AxiosAdapter>[0]) => {
        if (calls++ === 0) throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
        return answering(200)(config);
      }) as AxiosAdapter,
      { budget: false },
    );
    expect((await throwing.instance.get('/items')).backoff).toMatchObject({ attempts: 2, reason: 'success' });
  });

  it('a 200 listed in `statusCodes` is still retried', async () => {
    const adapter = answering(200);
    const { instance } = installed(adapter, { statusCodes: [200], retries: 2, budget: false });
    const response = await instance.get('/items');
    expect(adapter).toHaveBeenCalledTimes(3);
    expect(response.backoff).toMatchObject({ attempts: 3, reason: 'retries-exhausted' });
  });

  it("a caller's key is checked before anything is sent, in any case of its name", async () => {
    const adapter = answering(200);
    const { instance } = installed(adapter, { budget: false });
    const posted = await instance.post('/orders', { n: 1 });
    expect(posted.backoff).toMatchObject({ attempts: 1, reason: 'success' });
    await expect(instance.get('/items', { headers: { 'IDEMPOTENCY-KEY': 'café' } })).rejects.toThrow(
      /`Idempotency-Key` header cannot be sent as it is, got "café"/,
    );
    expect(adapter).toHaveBeenCalledTimes(1);
    await instance.get('/items', { headers: { 'idempotency-key': 'k-1' } });
    expect(adapter).toHaveBeenCalledTimes(2);
  });
});
