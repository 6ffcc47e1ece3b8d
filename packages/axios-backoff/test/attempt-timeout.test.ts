// axios's own `timeout` is per attempt already: `attemptTimeout`, withBackoff's, fails loudly here and says so.
import { API, ScriptedApi, VirtualClock } from '@backoff/test-utils';
import axios, { type AxiosError, type AxiosStatic } from 'axios';
import axios1134 from 'axios-1.13.4';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { axiosBackoff } from '../src/index.ts';

const api = new ScriptedApi();
beforeAll(() => api.listen());
afterEach(() => api.reset());
afterAll(() => api.close());

describe.each([
  ['axios 1.21.1', axios],
  ['axios 1.13.4', axios1134 as unknown as AxiosStatic],
])('attemptTimeout is not taken by axios-backoff: %s', (_name, ax) => {
  it("axiosBackoff(instance, { attemptTimeout }) throws, pointing to axios's own timeout", () => {
    const instance = ax.create({ baseURL: API });
    expect(() => axiosBackoff(instance, { attemptTimeout: 200 })).toThrow(
      new TypeError(
        "`attemptTimeout` is withBackoff's option, not axios-backoff's (in the options of `axiosBackoff`, got 200): axios's own `timeout` is already per attempt, each retry gets all of it. Set `timeout` on the instance or the request instead (`timeout: 200`); `deadline` bounds the whole call.",
      ),
    );
    // Nothing was installed: the instance takes axiosBackoff afterwards.
    expect(() => axiosBackoff(instance, {})).not.toThrow();
  });

  it('a request whose `backoff` sets attemptTimeout fails unsent, as an AxiosError ERR_BAD_OPTION', async () => {
    const route = api.script('/items', [200]);
    const clock = new VirtualClock();
    const instance = ax.create({ baseURL: API });
    axiosBackoff(instance, { timers: clock.timers, now: clock.now });
    const error = await instance.get('/items', { backoff: { attemptTimeout: 'soon' as never } }).then(
      () => expect.unreachable('the request resolved'),
      (error: unknown) => error as AxiosError,
    );
    expect(route.hits).toHaveLength(0);
    expect(ax.isAxiosError(error)).toBe(true);
    expect(error.code).toBe('ERR_BAD_OPTION');
    expect(error.message).toBe(
      "Not sent: `attemptTimeout` is withBackoff's option, not axios-backoff's (in this request's `backoff`, got string): axios's own `timeout` is already per attempt, each retry gets all of it. Set `timeout` on the instance or the request instead; `deadline` bounds the whole call.",
    );
    expect(error.config?.url).toBe('/items');
    // The same request without it is sent, with axios's own per-attempt timeout.
    const response = await instance.get('/items', { timeout: 200 });
    expect(response.status).toBe(200);
    expect(route.hits).toHaveLength(1);
  });
});
