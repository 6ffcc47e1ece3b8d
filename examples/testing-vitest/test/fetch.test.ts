// fetch with the app's retries, on the kit's own clock: the client gets `time.options`, and the waits (seconds,
// minutes) pass at once.
import { API, fetchClient } from '@backoff/example-testing-app';
import { getBackoffResult } from 'backoff-core';
import { cutBody, down, eventStream, flaky, type VirtualTime, virtualTime } from 'backoff-core/testing';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { server } from './server.ts';

let time: VirtualTime;
beforeEach(() => {
  time = virtualTime();
});
afterEach(() => time.restore());

it('rides out two 503s: three requests, two waits', async () => {
  const items = flaky(`${API}/items`, [503, 503, 200]);
  server.use(items);

  const response = await fetchClient(time.options)(`${API}/items`);

  expect(response.status).toBe(200);
  expect(getBackoffResult(response)?.attempts).toBe(3);
  expect(items.requests).toHaveLength(3);
});

it('sends a POST again only with its Idempotency-Key: three times, the same key', async () => {
  const orders = flaky(`${API}/orders`, [503, 503, 201]);
  server.use(orders);

  const response = await fetchClient(time.options)(`${API}/orders`, { method: 'POST', body: '{"item":42}' });

  expect(response.status).toBe(201);
  const keys = orders.requests.map((request) => request.idempotencyKey);
  expect(keys).toEqual([keys[0], keys[0], keys[0]]);
  expect(keys[0]).toBeTruthy();
});

it('gives up after 4 attempts against a server down for an hour', async () => {
  const items = down(`${API}/items`, { forMs: 3_600_000 });
  server.use(items);

  const response = await time.run(fetchClient(time.options)(`${API}/items`));

  expect(response.status).toBe(503);
  expect(getBackoffResult(response)).toMatchObject({ attempts: 4, reason: 'retries-exhausted' });
  expect(items.requests).toHaveLength(4);
});

it('waits out a minute of downtime that asks for 30 s at a time', async () => {
  const items = down(`${API}/items`, { forMs: 60_000, retryAfter: 30 });
  server.use(items);

  const response = await time.run(fetchClient(time.options)(`${API}/items`));

  expect(response.status).toBe(200);
  expect(items.requests.map((request) => request.answer)).toEqual([503, 503, 200]);
  // Each retry came no sooner than the server asked.
  const [first, second, third] = items.requests.map((request) => request.at);
  expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(30_000);
  expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(30_000);
  expect(time.elapsed).toBeGreaterThanOrEqual(60_000);
});

it('a download cut halfway reaches the app whole, the rest asked with Range', async () => {
  const file = cutBody(`${API}/export.csv`, { at: [1000, 3000] });
  server.use(file);

  const response = await fetchClient({ ...time.options, resume: true })(`${API}/export.csv`);

  expect(new Uint8Array(await response.arrayBuffer())).toEqual(file.body);
  expect(file.requests.at(-1)?.headers.get('range')).toBe(`bytes=3000-${file.body.length - 1}`);
});

it('an event stream cut twice hands the app every event once, resumed with Last-Event-ID', async () => {
  const feed = eventStream(`${API}/feed`, {
    events: ['a', 'b', 'c', 'd', 'e'],
    cutAfter: [2, 4],
    retry: 1000,
  });
  server.use(feed);

  const response = await fetchClient({ ...time.options, resume: true })(`${API}/feed`);

  const data = [...(await response.text()).matchAll(/^data: (.*)$/gm)].map((match) => match[1]);
  expect(data).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(feed.requests.map((request) => request.headers.get('last-event-id'))).toEqual([null, '2', '4']);
});
