import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseName } from '../src/harness/cases.ts';
import { CLIENTS, type ClientName, type Observation, type Settled } from '../src/harness/types.ts';
import { launchChromium } from './support/chromium.ts';
import { openPage } from './support/pages.ts';

// The shared behaviour suite (test/test-utils/src/behaviour-suite.ts), case for case, inside headless
// Chromium: each case runs in the page against MSW's service worker on a virtual clock with random fixed at
// 0.5; the page returns what the worker saw and what the caller got, and the assertions run here.

let browser: Browser;
let page: Page;
let pageErrors: Error[];

beforeAll(async () => {
  browser = await launchChromium();
  ({ page, errors: pageErrors } = await openPage(browser, '/harness.html'));
  await page.evaluate(() => window.harness.ready);
});
afterAll(async () => {
  await browser?.close();
});

/** Runs a case in the page. Like the suite's afterEach: no wait may outlive its call. */
async function run(client: ClientName, name: CaseName): Promise<Observation> {
  const observation = await page.evaluate(([c, n]) => window.harness.runCase(c, n), [client, name] as const);
  expect(observation.pendingTimers).toBe(0);
  return observation;
}

const hitCount = (observation: Observation, path: string) => observation.hits[path]?.length;

/** axios and ky reject a final non-2xx (with the client's HTTP error); fetch resolves with it. */
function expectHttpFailure(client: ClientName, settled: Settled | undefined, status: number): void {
  if (client === 'withBackoff') {
    expect(settled).toMatchObject({ ok: true, status });
  } else {
    expect(settled).toMatchObject({ ok: false, errorKind: 'http', status });
  }
}

it('the harness page is controlled by the MSW service worker', async () => {
  const scriptUrl = await page.evaluate(() => window.harness.ready);
  expect(scriptUrl).toBe(`${new URL(page.url()).origin}/mockServiceWorker.js`);
});

describe.each(CLIENTS)('in Chromium: %s', (client) => {
  it('503, 503, 200 succeeds on the third attempt with full-jitter waits of 500 and 1000 ms', async () => {
    const o = await run(client, '503-503-200');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 200, result: { attempts: 3, totalDelay: 1500 } });
    expect(hitCount(o, '/items')).toBe(3);
    expect(o.waits).toEqual([500, 1000]);
    expect(o.pendingTimers).toBe(0);
  });

  it('equal and none jitter give their exact delays', async () => {
    const o = await run(client, 'jitter-equal-and-none');
    expect(o.settled.map((s) => s.status)).toEqual([200, 200]);
    expect(o.waits).toEqual([750, 1500, 3000, 100, 300]);
  });

  it('429 with Retry-After in seconds waits the server delay plus a spread above it', async () => {
    const o = await run(client, 'retry-after-seconds');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 200 });
    expect(hitCount(o, '/limited')).toBe(2);
    expect(o.waits).toEqual([3500]);
  });

  it('429 with an HTTP-date Retry-After waits until that date', async () => {
    const o = await run(client, 'retry-after-date');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 200 });
    expect(hitCount(o, '/limited')).toBe(2);
    expect(o.waits).toEqual([4750]);
  });

  it('a Retry-After above maxRetryAfter gives up at once and reports the server delay', async () => {
    const o = await run(client, 'retry-after-too-long');
    expectHttpFailure(client, o.settled[0], 429);
    expect(o.settled[0]?.result).toMatchObject({
      attempts: 1,
      reason: 'retry-after-too-long',
      serverDelay: 120_000,
    });
    expect(hitCount(o, '/limited')).toBe(1);
    expect(o.waits).toEqual([]);
  });

  it('a malformed Retry-After is ignored and the computed backoff is used', async () => {
    const o = await run(client, 'retry-after-malformed');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 200 });
    expect(o.waits).toEqual([500]);
  });

  it('400, 401, 403, 404, 422 and 501 are not retried', async () => {
    const o = await run(client, 'statuses-not-retried');
    const statuses = [400, 401, 403, 404, 422, 501];
    statuses.forEach((status, i) => {
      expectHttpFailure(client, o.settled[i], status);
      expect(o.settled[i]?.result).toMatchObject({ attempts: 1, reason: 'not-retryable-status' });
      expect(hitCount(o, `/status-${status}`)).toBe(1);
    });
  });

  it('after `retries` retries the last failure is returned', async () => {
    const o = await run(client, 'retries-exhausted');
    expectHttpFailure(client, o.settled[0], 503);
    expect(o.settled[0]?.result).toMatchObject({
      attempts: 3,
      totalDelay: 1500,
      reason: 'retries-exhausted',
    });
    expect(hitCount(o, '/down')).toBe(3);
  });

  it('no wait is started that would end after the deadline', async () => {
    const o = await run(client, 'deadline');
    expectHttpFailure(client, o.settled[0], 503);
    expect(o.settled[0]?.result?.reason).toBe('deadline');
    expect(hitCount(o, '/down')).toBe(2);
    expect(o.waits).toEqual([500]);
  });

  it('a network error (the worker answers Response.error()) on a GET is retried', async () => {
    const o = await run(client, 'network-error-retried');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 200 });
    expect(hitCount(o, '/flaky')).toBe(2);
  });

  it("a network failure on every attempt ends in the client's own network error, with the result", async () => {
    const o = await run(client, 'network-error-every-attempt');
    expect(o.settled[0]).toMatchObject({
      ok: false,
      errorKind: 'network',
      result: { attempts: 3, totalDelay: 1500, reason: 'retries-exhausted' },
    });
    expect(hitCount(o, '/gone')).toBe(3);
  });

  it('PUT and DELETE are retried without a key, with the same body; PATCH is not', async () => {
    const o = await run(client, 'put-delete-retried-patch-not');
    const [put, del, patch] = o.settled;
    expect(put).toMatchObject({ ok: true, status: 200 });
    expect(o.hits['/put']?.map((hit) => [hit.method, hit.body])).toEqual([
      ['PUT', '{"n":1}'],
      ['PUT', '{"n":1}'],
    ]);
    expect(del).toMatchObject({ ok: true, status: 204 });
    expect(hitCount(o, '/delete')).toBe(2);
    expectHttpFailure(client, patch, 503);
    expect(patch?.result?.reason).toBe('method-not-idempotent');
    expect(hitCount(o, '/patch')).toBe(1);
  });

  it('413 is retried only with a server timing header', async () => {
    const o = await run(client, '413-only-with-timing-header');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 200 });
    expect(hitCount(o, '/big')).toBe(2);
    expect(o.waits).toEqual([1750]);
    expectHttpFailure(client, o.settled[1], 413);
    expect(hitCount(o, '/too-big')).toBe(1);
  });

  it('a POST without an Idempotency-Key is never retried, on a 503 or a network error', async () => {
    const o = await run(client, 'post-without-key-not-retried');
    expectHttpFailure(client, o.settled[0], 503);
    expect(o.settled[0]?.result?.reason).toBe('method-not-idempotent');
    expect(hitCount(o, '/orders')).toBe(1);
    expect(o.settled[1]).toMatchObject({ ok: false, errorKind: 'network' });
    expect(hitCount(o, '/broken')).toBe(1);
  });

  it('a POST with an Idempotency-Key is retried with the same key and body', async () => {
    const o = await run(client, 'post-with-key-retried');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 201 });
    expect(o.hits['/orders']?.map((hit) => [hit.headers['idempotency-key'], hit.body])).toEqual([
      ['"k-1"', '{"n":1}'],
      ['"k-1"', '{"n":1}'],
      ['"k-1"', '{"n":1}'],
    ]);
  });

  it("idempotencyKey 'auto' sends one key per logical request, the same on every attempt", async () => {
    const o = await run(client, 'idempotency-key-auto');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 201 });
    const keys = o.hits['/orders']?.map((hit) => hit.headers['idempotency-key']) ?? [];
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/);
    expect(new Set(keys).size).toBe(1);
    const second = o.hits['/orders2']?.[0]?.headers['idempotency-key'];
    expect(second).toMatch(/^"[0-9a-f-]{36}"$/);
    expect(second).not.toBe(keys[0]);
  });

  it('409 is retried only when the request carries a key', async () => {
    const o = await run(client, '409-only-with-key');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 200 });
    expect(hitCount(o, '/keyed')).toBe(2);
    expectHttpFailure(client, o.settled[1], 409);
    expect(hitCount(o, '/plain')).toBe(1);
  });

  it('with default options nothing is added to the request', async () => {
    const o = await run(client, 'nothing-added-by-default');
    const hits = o.hits['/items'] ?? [];
    expect(hits).toHaveLength(3);
    for (const hit of hits) {
      expect(Object.keys(hit.headers)).not.toContain('idempotency-key');
      expect(Object.keys(hit.headers)).not.toContain('x-retry-count');
    }
  });

  it('per request: `backoff: false` turns retries off, an options object overrides', async () => {
    const o = await run(client, 'per-request-override');
    expectHttpFailure(client, o.settled[0], 503);
    expect(hitCount(o, '/off')).toBe(1);
    expect(hitCount(o, '/once')).toBe(2);
    expect(o.waits).toEqual([1000]);
  });

  it('onRetry fires before every wait with the retry number, delay, reason and status', async () => {
    const o = await run(client, 'on-retry-events');
    expect(o.settled[0]).toMatchObject({ ok: true, status: 200 });
    expect(o.extra).toEqual([
      {
        retry: 1,
        retries: 3,
        delay: 500,
        reason: 'status',
        status: 503,
        method: 'GET',
        url: expect.any(String),
      },
      {
        retry: 2,
        retries: 3,
        delay: 1750,
        reason: 'status',
        status: 429,
        method: 'GET',
        url: expect.any(String),
      },
    ]);
    expect((o.extra as Array<{ url: string }>)[0]?.url).toContain('/items');
  });

  it("the page's AbortController during a wait rejects at once with the abort error, no further attempt", async () => {
    const o = await run(client, 'abort-during-wait');
    expect(o.extra).toEqual({ wait: 500, pendingDuringWait: 1 });
    expect(o.settled[0]).toMatchObject({ ok: false, errorKind: 'abort' });
    expect(hitCount(o, '/slow')).toBe(1);
    expect(o.pendingTimers).toBe(0);
  });

  it('an already-aborted signal sends nothing', async () => {
    const o = await run(client, 'already-aborted');
    expect(o.settled[0]).toMatchObject({ ok: false, errorKind: 'abort' });
    expect(hitCount(o, '/items')).toBe(0);
  });

  it('under an always-503 server the budget stops retries after its reserve', async () => {
    const o = await run(client, 'budget-reserve');
    // 5 requests + the 2 retries of the reserve; then a request fails once with the budget empty.
    expect(o.settled.slice(0, 5).reduce((sum, s) => sum + (s.result?.attempts ?? 0), 0)).toBe(7);
    expect(o.settled[5]?.result).toMatchObject({ attempts: 1, reason: 'budget-exhausted' });
    expect(hitCount(o, '/down')).toBe(8);
  });

  it('a pacer holds the next two calls until the spent quota resets: the worker sees them only after it, one slot apart', async () => {
    const o = await run(client, 'pacer-holds-until-reset');
    const origin = new URL(page.url()).origin;
    expect(o.settled.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(o.settled.map((s) => s.result?.attempts)).toEqual([1, 1, 1]);
    // Held, not retried: the hold is the result's `held` (absent when none), apart from `totalDelay`.
    expect(o.settled.map((s) => [s.result?.held, s.result?.totalDelay])).toEqual([
      [undefined, 0],
      [1025, 0],
      [2075, 0],
    ]);
    // Worker-side, on the case's virtual clock: B at the reset (1 s) plus its spread within the 1-per-second
    // slot, C one slot (plus its margin) later; nothing while they were held, nor 1 ms before B's hold ended.
    expect(o.hits['/quota']?.map((hit) => [hit.headers['x-id'], hit.at])).toEqual([
      ['A', 0],
      ['B', 1025],
      ['C', 2075],
    ]);
    expect(o.extra).toMatchObject({ hitsWhileHeld: 1, hitsJustBefore: 1 });
    const hold = { reason: 'rate-limit', key: origin, method: 'GET', url: `${origin}/api/quota`, attempt: 1 };
    expect((o.extra as { holds: unknown[] }).holds).toEqual([
      { delay: 1025, ...hold },
      { delay: 2075, ...hold },
    ]);
    expect(o.waits).toEqual([1025, 2075]);
  });

  it('a hedge after 50 ms wins over a request the worker holds, and the held copy is aborted', async () => {
    const o = await run(client, 'hedge-slow-first-copy');
    expect(o.settled[0]).toMatchObject({
      ok: true,
      status: 200,
      result: { attempts: 1, hedges: 1, hedgeWon: true, reason: 'success' },
    });
    // Only the hedge timer was pending while the first copy hung; the worker saw exactly the two copies.
    expect(o.extra).toMatchObject({ timersBeforeHedge: 1 });
    expect(hitCount(o, '/slow')).toBe(2);
    // The first copy's signal, as the client handed it to the browser, was aborted; the winner's was not. (Not
    // seen from the worker: MSW's service worker hands the page's handler a Request without the caller's signal.)
    expect((o.extra as { sentAborted: unknown[] }).sentAborted).toEqual([true, false]);
  });

  it('raised no page error', () => {
    expect(pageErrors).toEqual([]);
  });
});
