import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLIENTS } from '../src/harness/types.ts';
import { launchChromium } from './support/chromium.ts';
import { openPage } from './support/pages.ts';

// The waits on the page's own timers: no `timers` or `now` injected, so the core's defaults call the page's
// setTimeout. Playwright's clock replaces the page's timers and Date, and is paused: time moves only when the
// test says, so "nothing is sent before 500 ms" and "the abort needed no time to pass" are exact statements.

let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: Error[];

const START = Date.UTC(2026, 11, 2, 12, 0, 0);

beforeAll(async () => {
  browser = await launchChromium();
  const install = (c: BrowserContext) => c.clock.install({ time: START });
  ({ context, page, errors: pageErrors } = await openPage(browser, '/harness.html', install));
  await page.evaluate(() => window.harness.ready);
});
let minutes = 0;
beforeEach(async () => {
  // The clock runs freely while the page loads (and after a test resumes it); each test starts it paused.
  await context.clock.pauseAt(START + 60_000 * ++minutes);
});
afterAll(async () => {
  await browser?.close();
});

const hits = () => page.evaluate(() => window.harness.call?.hits);
/** Attempts that left the client, counted in the page as they leave: no request can be "on its way" here. */
const sent = () => page.evaluate(() => window.harness.call?.sent);

describe.each(CLIENTS)('page timers in Chromium: %s', (client) => {
  it("a retry waits on the page's setTimeout: nothing is sent before the 500 ms are up", async () => {
    const delay = await page.evaluate((c) => window.harness.startRealTimerCall(c, '/real-wait'), client);
    expect(delay).toBe(500);
    await context.clock.runFor(499);
    expect(await sent()).toBe(1);
    expect(await hits()).toBe(1);
    await context.clock.runFor(1);
    // The retry is on its way; ky then waits a 0 ms timer of its own, so let time flow again.
    await context.clock.resume();
    const settled = await page.evaluate(() => window.harness.call?.settled());
    expect(settled).toMatchObject({ ok: true, status: 200, result: { attempts: 2, totalDelay: 500 } });
    expect(await sent()).toBe(2);
    expect(await hits()).toBe(2);
  });

  it("the page's AbortController cancels the pending retry at once: it rejects, and nothing more is sent", async () => {
    const delay = await page.evaluate((c) => window.harness.startRealTimerCall(c, '/real-abort'), client);
    expect(delay).toBe(500);
    // No time passes between the abort and the rejection.
    const settled = await page.evaluate(() => window.harness.call?.abort());
    expect(settled).toMatchObject({ ok: false, errorKind: 'abort', result: { attempts: 1 } });
    // Had the wait's timer survived the abort, this would fire it and send the retry.
    await context.clock.runFor(60_000);
    expect(await sent()).toBe(1);
    expect(await hits()).toBe(1);
  });
});

it('raised no page error', () => {
  expect(pageErrors).toEqual([]);
});
