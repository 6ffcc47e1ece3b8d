import { API, ScriptedApi, VirtualClock } from '@backoff/test-utils';
import axios, { type AxiosError } from 'axios';
import { CircuitBreaker, CircuitOpenError, getBackoffResult } from 'backoff-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { axiosBackoff } from '../src/index.ts';

const api = new ScriptedApi();
beforeAll(() => api.listen());
afterAll(() => api.close());

it("an open circuit reaches axios's response interceptors as an AxiosError they can handle", async () => {
  const route = api.script('/down', [503]);
  const clock = new VirtualClock();
  const instance = axios.create({ baseURL: API });
  axiosBackoff(instance, {
    retries: 0,
    now: clock.now,
    timers: clock.timers,
    circuitBreaker: new CircuitBreaker({ consecutiveFailures: 1 }),
  });
  const seen: AxiosError[] = [];
  instance.interceptors.response.use(undefined, (error: AxiosError) => {
    seen.push(error);
    // A fallback for an open circuit, as an interceptor would serve a cached copy.
    if (error.code === 'ERR_CIRCUIT_OPEN')
      return { status: 200, data: 'cached', headers: {}, config: error.config };
    throw error;
  });
  await expect(instance.get('/down')).rejects.toMatchObject({ response: { status: 503 } });
  const fallback = await instance.get('/down');
  expect(fallback.data).toBe('cached');
  const refused = seen[1] as AxiosError;
  expect(axios.isAxiosError(refused)).toBe(true);
  expect(refused.code).toBe('ERR_CIRCUIT_OPEN');
  expect(refused.cause).toBeInstanceOf(CircuitOpenError);
  expect(refused.config?.url).toBe('/down');
  expect(refused.response).toBeUndefined();
  expect(getBackoffResult(refused)).toMatchObject({ attempts: 0, reason: 'circuit-open' });
  expect(route.hits).toHaveLength(1);
});
