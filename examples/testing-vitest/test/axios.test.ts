// axios with the app's retries, on vitest's fake timers: the client keeps the global timers, and `time.run`
// moves the fake clock whenever the call has nothing else to do.
import { API, axiosClient } from '@backoff/example-testing-app';
import { isAxiosError } from 'axios';
import { getBackoffResult } from 'backoff-core';
import { down, rateLimited, type VirtualTime, virtualTime } from 'backoff-core/testing';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { server } from './server.ts';

let time: VirtualTime;
beforeEach(() => {
  vi.useFakeTimers();
  time = virtualTime({ fakeTimers: vi });
});
afterEach(() => {
  time.restore();
  vi.useRealTimers();
});

it('waits for the rate limit to reset when the quota is spent', async () => {
  const items = rateLimited(`${API}/items`, { quota: 5, window: 60_000 });
  server.use(items);
  const api = axiosClient();

  const statuses = [];
  for (let i = 0; i < 7; i++) statuses.push((await time.run(api.get('items'))).status);

  expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200]);
  // The sixth call got a 429 with `RateLimit: "default";r=0;t=60`, waited the window out and went again.
  expect(items.requests.map((request) => request.answer)).toEqual([200, 200, 200, 200, 200, 429, 200, 200]);
  expect(time.elapsed).toBeGreaterThanOrEqual(60_000);
});

it('gives up after 4 attempts against a server down for an hour: the AxiosError carries them', async () => {
  const items = down(`${API}/items`, { forMs: 3_600_000 });
  server.use(items);

  const error = await time.run(axiosClient().get('items')).catch((caught: unknown) => caught);

  expect(isAxiosError(error) && error.response?.status).toBe(503);
  expect(getBackoffResult(error)?.attempts).toBe(4);
  expect(items.requests).toHaveLength(4);
});

it('sends a POST again with the same key', async () => {
  const orders = down(`${API}/orders`, { forMs: 10_000, retryAfter: 5 });
  server.use(orders);

  const response = await time.run(axiosClient().post('orders', { item: 42 }));

  expect(response.status).toBe(200);
  expect(new Set(orders.requests.map((request) => request.idempotencyKey)).size).toBe(1);
  expect(orders.requests.map((request) => request.body)).toEqual(
    Array(orders.requests.length).fill('{"item":42}'),
  );
});
