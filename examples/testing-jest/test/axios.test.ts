// axios with the app's retries, on the kit's own clock: the client gets `time.options`.
import { API, axiosClient } from '@backoff/example-testing-app';
import { afterEach, beforeEach, expect, it } from '@jest/globals';
import { isAxiosError } from 'axios';
import { getBackoffResult } from 'backoff-core';
import { down, flaky, type VirtualTime, virtualTime } from 'backoff-core/testing';
import { server } from './server.ts';

let time: VirtualTime;
beforeEach(() => {
  time = virtualTime();
});
afterEach(() => time.restore());

it('sends a POST again only with its key: three times, the same key and body', async () => {
  const orders = flaky(`${API}/orders`, [503, 'network-error', 201]);
  server.use(orders);

  const response = await time.run(axiosClient(time.options).post('orders', { item: 42 }));

  expect(response.status).toBe(201);
  expect(orders.requests.map((request) => [request.idempotencyKey, request.body])).toEqual(
    Array(3).fill([orders.requests[0]?.idempotencyKey, '{"item":42}']),
  );
});

it('gives up after 4 attempts: the AxiosError carries them', async () => {
  server.use(down(`${API}/items`, { forMs: 3_600_000 }));

  const error = await time.run(axiosClient(time.options).get('items')).catch((caught: unknown) => caught);

  expect(isAxiosError(error) && error.response?.status).toBe(503);
  expect(getBackoffResult(error)?.attempts).toBe(4);
});
