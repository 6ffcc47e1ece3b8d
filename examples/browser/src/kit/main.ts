// backoff-core/testing in a page: its handlers served by MSW's service worker (setupWorker), the clients on the
// kit's virtual time, as a browser test of an app would use them. Each scenario returns plain data, so it crosses
// `page.evaluate`; test/testing-kit.test.ts asserts on it.
import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { getBackoffResult, withBackoff } from 'backoff-core';
import { chaos, cutBody, down, eventStream, flaky, rateLimited, virtualTime } from 'backoff-core/testing';
import ky from 'ky';
import { kyBackoff } from 'ky-backoff';
import { HttpResponse, http } from 'msw';
import { setupWorker } from 'msw/browser';

const API = `${location.origin}/kit-api`;
const worker = setupWorker();
const EXACT = { jitter: 'none', retryAfterSpread: 0 } as const;

/** Each request's arrival, in ms after the first. */
const arrivals = (requests: readonly { at: number }[]) => requests.map((r) => r.at - (requests[0]?.at ?? 0));

const SCENARIOS = {
  /** withBackoff: a POST with a generated key against 503, 503, 201. */
  async flaky() {
    const time = virtualTime();
    const orders = flaky(`${API}/orders`, [503, { status: 503, headers: { 'Retry-After': '30' } }, 201]);
    worker.use(orders);
    const post = withBackoff(fetch, { ...time.options, ...EXACT, idempotencyKey: 'auto' });
    const response = await time.run(post(`${API}/orders`, { method: 'POST', body: '{"item":42}' }));
    return {
      status: response.status,
      attempts: getBackoffResult(response)?.attempts,
      answers: orders.requests.map((r) => r.answer),
      keys: new Set(orders.requests.map((r) => r.idempotencyKey)).size,
      bodies: orders.requests.map((r) => r.body),
      arrivals: arrivals(orders.requests),
    };
  },
  /** axios (the XHR adapter): a draft-8 rate limit read through the worker. */
  async rateLimited() {
    const time = virtualTime();
    const search = rateLimited(`${API}/search`, { quota: 2, window: 10_000 });
    worker.use(search);
    const api = axios.create({ adapter: 'xhr' });
    axiosBackoff(api, { ...time.options, ...EXACT });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await time.run(api.get(`${API}/search`))).status);
    return { statuses, answers: search.requests.map((r) => r.answer), arrivals: arrivals(search.requests) };
  },
  /** ky: a minute down, Retry-After 30. */
  async down() {
    const time = virtualTime();
    const items = down(`${API}/items`, { forMs: 60_000, retryAfter: 30 });
    worker.use(items);
    const response = await time.run(kyBackoff(ky, { ...time.options, ...EXACT }).get(`${API}/items`));
    return {
      status: response.status,
      answers: items.requests.map((r) => r.answer),
      arrivals: arrivals(items.requests),
    };
  },
  /** withBackoff with `resume`: a download cut after the headers, and an event stream cut twice. */
  async bodies() {
    const time = virtualTime();
    const file = cutBody(`${API}/file`, { at: 3000, body: 'x'.repeat(8000) });
    const feed = eventStream(`${API}/feed`, { events: ['a', 'b', 'c', 'd'], cutAfter: [1, 3] });
    worker.use(file, feed);
    const get = withBackoff(fetch, { ...time.options, ...EXACT, resume: true });
    const text = await (await time.run(get(`${API}/file`))).text();
    const stream = await (await time.run(get(`${API}/feed`))).text();
    return {
      whole: text === 'x'.repeat(8000),
      fileAnswers: file.requests.map((r) => r.answer),
      events: [...stream.matchAll(/^data: (.*)$/gm)].map((match) => match[1]),
      lastEventIds: feed.requests.map((r) => r.headers.get('last-event-id')),
    };
  },
  /** Seeded chaos in front of the app's handler, twice with one seed: the same faults. */
  async chaos() {
    const time = virtualTime();
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const faults = chaos({ seed: 9, failRate: 0.3, resetRate: 0.1 });
      worker.use(
        faults,
        http.get(`${API}/items`, () => HttpResponse.json([1])),
      );
      for (let call = 0; call < 10; call++) await time.run(fetch(`${API}/items`).catch(() => undefined));
      worker.resetHandlers();
      runs.push(faults.requests.map((r) => r.answer));
    }
    return { runs };
  },
};

export type ScenarioName = keyof typeof SCENARIOS;

declare global {
  interface Window {
    kit: {
      readonly ready: Promise<void>;
      run(name: ScenarioName): Promise<unknown>;
    };
  }
}

window.kit = {
  // Anything outside /kit-api (the page's own files) goes to the real server.
  ready: worker.start({ quiet: true, onUnhandledFrame: 'bypass' }).then(() => undefined),
  async run(name) {
    try {
      return await SCENARIOS[name]();
    } finally {
      worker.resetHandlers();
    }
  },
};
