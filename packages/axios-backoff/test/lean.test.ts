import { collected, VirtualClock } from '@backoff/test-utils';
import axios, { type AxiosAdapter, AxiosError, AxiosHeaders, type AxiosResponse } from 'axios';
import { describe, expect, it } from 'vitest';
import { axiosBackoff } from '../src/index.ts';

// Issue 17: what axios-backoff does per request. Costs are measured by the benchmarks; these pin the behaviour
// that makes them small.

function setup(adapter: AxiosAdapter) {
  const clock = new VirtualClock();
  clock.auto = false;
  const instance = axios.create({ adapter, baseURL: 'https://api.test' });
  axiosBackoff(instance, { timers: clock.timers, now: clock.now, random: () => 0.5, budget: false });
  return { clock, instance };
}

describe('issue 17: axios-backoff per request', () => {
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
