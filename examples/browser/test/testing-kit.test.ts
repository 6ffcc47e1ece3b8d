import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ScenarioName } from '../src/kit/main.ts';
import { launchChromium } from './support/chromium.ts';
import { openPage } from './support/pages.ts';

// backoff-core/testing's handlers in Chromium, served by MSW's service worker (setupWorker): each scenario of
// kit.html runs in the page on the kit's virtual time and returns what the handlers counted.

let browser: Browser;
let page: Page;
let pageErrors: Error[];

beforeAll(async () => {
  browser = await launchChromium();
  ({ page, errors: pageErrors } = await openPage(browser, '/kit.html'));
  await page.evaluate(() => window.kit.ready);
});
afterAll(async () => {
  expect(pageErrors).toEqual([]);
  await browser?.close();
});

const run = (name: ScenarioName) =>
  page.evaluate((n) => window.kit.run(n), name) as Promise<Record<string, unknown>>;

it('flaky: a POST sent three times with one key and its body, the server’s 30 s waited', async () => {
  expect(await run('flaky')).toEqual({
    status: 201,
    attempts: 3,
    answers: [503, 503, 201],
    keys: 1,
    bodies: ['{"item":42}', '{"item":42}', '{"item":42}'],
    arrivals: [0, 1000, 31_000],
  });
});

it('rateLimited: the RateLimit fields reach axios through the worker, and the call waits the window out', async () => {
  expect(await run('rateLimited')).toEqual({
    statuses: [200, 200, 200],
    answers: [200, 200, 429, 200],
    arrivals: [0, 0, 0, 10_000],
  });
});

it('down: ky waits a minute of downtime out, 30 s at a time', async () => {
  expect(await run('down')).toEqual({ status: 200, answers: [503, 503, 200], arrivals: [0, 30_000, 60_000] });
});

it('cutBody and eventStream: bodies cut in the worker’s answers reach the page whole', async () => {
  const result = await run('bodies');
  expect(result).toMatchObject({ whole: true, events: ['a', 'b', 'c', 'd'] });
  // Each cut was followed by one more request: the rest (a range, a reconnection after the last event read), or,
  // when the cut came before Chromium handed the page a byte, the whole again (Chromium drops what it had queued).
  expect(result.fileAnswers).toHaveLength(2);
  expect((result.fileAnswers as unknown[])[1]).toBeOneOf([200, 206]);
  const ids = result.lastEventIds as (string | null)[];
  expect(ids).toHaveLength(3);
  expect(ids[0]).toBeNull();
  // A reconnection names the last event read before its cut: event 1 or 3.
  expect(ids.slice(1).every((id) => id === null || id === '1' || id === '3')).toBe(true);
});

it('chaos: one seed, the same faults in the page', async () => {
  const { runs } = (await run('chaos')) as { runs: unknown[][] };
  expect(runs[1]).toEqual(runs[0]);
  // Seed 9's first ten.
  expect(runs[0]).toEqual([504, 504, 'passed', 503, 'passed', 'passed', 504, 'passed', 500, 'passed']);
});
