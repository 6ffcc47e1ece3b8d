// ky with the app's retries: on the kit's own clock, then on vitest's fake timers, where ky's own `timeout`
// (10 s) runs on the fake clock too.
import { API, kyClient } from '@backoff/example-testing-app';
import { getBackoffResult } from 'backoff-core';
import { down, flaky, slow, virtualTime } from 'backoff-core/testing';
import { HTTPError } from 'ky';
import { afterEach, expect, it, vi } from 'vitest';
import { server } from './server.ts';

afterEach(() => vi.useRealTimers());

it('retries a lost connection and a 502', async () => {
  const time = virtualTime();
  const items = flaky(`${API}/items`, ['network-error', 502, 200]);
  server.use(items);

  const response = await time.run(kyClient(time.options).get('items'));

  expect(response.status).toBe(200);
  expect(getBackoffResult(response)?.attempts).toBe(3);
  time.restore();
});

it('gives up after 4 attempts: ky throws its HTTPError, carrying them', async () => {
  const time = virtualTime();
  server.use(down(`${API}/items`, { forMs: 3_600_000 }));

  const error = await time.run(kyClient(time.options).get('items')).catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(HTTPError);
  expect(getBackoffResult(error)?.attempts).toBe(4);
  time.restore();
});

it("on fake timers: an answer slower than ky's timeout is retried", async () => {
  vi.useFakeTimers();
  const time = virtualTime({ fakeTimers: vi });
  // Every second answer takes 30 s: the second call's first attempt times out after ky's 10 s.
  const items = slow(`${API}/items`, { everyNth: 2, ms: 30_000 });
  server.use(items);
  const api = kyClient();

  await time.run(api.get('items'));
  const response = await time.run(api.get('items'));

  expect(response.status).toBe(200);
  expect(getBackoffResult(response)?.attempts).toBe(2);
  expect(items.requests.map((request) => request.answer)).toEqual([200, 'network-error', 200]);
  time.restore();
});
