// fetch with the app's retries, on jest's fake timers. jest fakes the microtask queues too unless told not to:
// MSW and the HTTP client run on them, so they stay real.
import { API, fetchClient } from '@backoff/example-testing-app';
import { afterEach, beforeEach, expect, it, jest } from '@jest/globals';
import { getBackoffResult } from 'backoff-core';
import { down, flaky, type VirtualTime, virtualTime } from 'backoff-core/testing';
import { server } from './server.ts';

let time: VirtualTime;
beforeEach(() => {
  jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] });
  time = virtualTime({ fakeTimers: jest });
});
afterEach(() => {
  time.restore();
  jest.useRealTimers();
});

it('honours a 30 s Retry-After, then rides out two 503s', async () => {
  const items = flaky(`${API}/items`, [{ status: 503, headers: { 'Retry-After': '30' } }, 503, 503, 200]);
  server.use(items);

  const response = await time.run(fetchClient()(`${API}/items`));

  expect(response.status).toBe(200);
  expect(getBackoffResult(response)?.attempts).toBe(4);
  const [first, second] = items.requests.map((request) => request.at);
  expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(30_000);
});

it('gives up after 4 attempts against a server down for an hour', async () => {
  const items = down(`${API}/items`, { forMs: 3_600_000 });
  server.use(items);

  const response = await time.run(fetchClient()(`${API}/items`));

  expect(response.status).toBe(503);
  expect(getBackoffResult(response)?.attempts).toBe(4);
  expect(items.requests).toHaveLength(4);
});
