// ky with the app's retries, on jest's fake timers.
import { API, kyClient } from '@backoff/example-testing-app';
import { afterEach, beforeEach, expect, it, jest } from '@jest/globals';
import { getBackoffResult } from 'backoff-core';
import { down, rateLimited, type VirtualTime, virtualTime } from 'backoff-core/testing';
import { HTTPError } from 'ky';
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

it('waits a spent quota out with its Retry-After', async () => {
  const search = rateLimited(`${API}/search`, { quota: 2, window: 45_000, headers: 'retry-after' });
  server.use(search);
  const api = kyClient();

  for (let i = 0; i < 3; i++) expect((await time.run(api.get('search'))).status).toBe(200);

  expect(search.requests.map((request) => request.answer)).toEqual([200, 200, 429, 200]);
  expect(time.elapsed).toBeGreaterThanOrEqual(45_000);
});

it('gives up after 4 attempts: ky throws its HTTPError, carrying them', async () => {
  server.use(down(`${API}/items`, { forMs: 3_600_000 }));

  const error = await time.run(kyClient().get('items')).catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(HTTPError);
  expect(getBackoffResult(error)?.attempts).toBe(4);
});
