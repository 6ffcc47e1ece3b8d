import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.ts';
import { openPage } from './support/pages.ts';

// The retry page (index.html) clicked through in Chromium. Its waits and its 100 ms countdown run on the page's
// own timers; Playwright's clock is paused, so every line the test reads is exact, and the screenshot is taken
// at a known point of the countdown.

/** Where the screenshot goes: examples/browser/screenshots/ (gitignored; the folder is made on demand). */
const SCREENSHOTS = fileURLToPath(new URL('../screenshots/', import.meta.url));
const START = Date.UTC(2026, 11, 2, 12, 0, 0);

let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: Error[];

beforeAll(async () => {
  browser = await launchChromium();
  const install = (c: BrowserContext) => c.clock.install({ time: START });
  const viewport = { width: 860, height: 640 };
  ({ context, page, errors: pageErrors } = await openPage(browser, '/', install, { viewport }));
  await page.locator('#call:enabled').waitFor();
});
afterAll(async () => {
  await browser?.close();
});
let minutes = 0;
beforeEach(async () => {
  // The clock runs freely while the page loads; each test starts it paused, at a later minute.
  await context.clock.pauseAt(START + 60_000 * ++minutes);
});

const text = async (selector: string) => (await page.textContent(selector))?.trim();
const serverLog = () => page.locator('#log li').allTextContents();
/** Waits (in real time, no assertion on it) until #status shows exactly `line`. */
const statusShows = (line: string) =>
  page
    .locator('#status', { hasText: new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) })
    .waitFor();

/** Moves the page's clock in 100 ms steps until the call has a result (ky adds 0 ms timers of its own). */
async function runUntilResult(limitMs = 20_000): Promise<string | undefined> {
  for (let ms = 0; ms <= limitMs; ms += 100) {
    const result = await text('#result');
    if (result) return result;
    await context.clock.runFor(100);
  }
  throw new Error(`no result after ${limitMs} ms of page time`);
}

async function choose(client: string, scenario: string, jitter: string): Promise<void> {
  await page.selectOption('#client', client);
  await page.selectOption('#scenario', scenario);
  await page.selectOption('#jitter', jitter);
}

it('shows a live countdown from onRetry while it waits; screenshot taken mid-countdown', async () => {
  await choose('fetch', '503-503-200', 'none');
  await page.click('#call');
  await statusShows('Retrying in 1.0 s… (attempt 2 of 4)');
  expect(await serverLog()).toEqual(['+0.0 s  GET /api/flaky → 503']);

  // Three ticks of the 100 ms interval later, still waiting.
  await context.clock.runFor(300);
  expect(await text('#status')).toBe('Retrying in 0.7 s… (attempt 2 of 4)');
  expect(await serverLog()).toHaveLength(1);

  await context.clock.runFor(700);
  await statusShows('Retrying in 2.0 s… (attempt 3 of 4)');
  expect(await serverLog()).toEqual(['+0.0 s  GET /api/flaky → 503', '+1.0 s  GET /api/flaky → 503']);
  await context.clock.runFor(600);
  expect(await text('#status')).toBe('Retrying in 1.4 s… (attempt 3 of 4)');
  expect(await page.isEnabled('#cancel')).toBe(true);
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}retry-countdown.png` });

  expect(await runUntilResult()).toBe('Done after 3 attempts (3.0 s waiting): 200 Hello, on attempt 3.');
  expect(await serverLog()).toHaveLength(3);
  expect(await text('#status')).toBe('Idle.');
});

it('a 429 with Retry-After: 3 counts down from the server’s delay plus its spread', async () => {
  await choose('fetch', '429-retry-after-200', 'none');
  await page.click('#call');
  // The server's 3 s are a floor; the spread on top (up to 3.5 s) is random, even with `none`.
  const line = page.locator('#status', {
    hasText: /^Retrying in (?:[3-5]\.\d|6\.[0-5]) s… \(attempt 2 of 4\)$/,
  });
  await line.waitFor();
  expect(await serverLog()).toEqual(['+0.0 s  GET /api/flaky → 429']);
  expect(await runUntilResult()).toMatch(
    /^Done after 2 attempts \((?:[3-5]\.\d|6\.[0-5]) s waiting\): 200 Hello, on attempt 2\.$/,
  );
  expect((await serverLog())[1]).toMatch(/^\+(?:[3-5]\.\d|6\.[0-5]) s {2}GET \/api\/flaky → 200$/);
});

describe.each([
  ['fetch', 'AbortError'],
  ['axios-xhr', 'CanceledError'],
  ['axios-fetch', 'CanceledError'],
  ['ky', 'AbortError'],
])('with %s', (client, abortError) => {
  it('Cancel during the countdown ends the call at once with the client’s abort error; nothing more is sent', async () => {
    await choose(client, '503-503-200', 'none');
    await page.click('#call');
    await statusShows('Retrying in 1.0 s… (attempt 2 of 4)');
    await page.click('#cancel');
    // No page time has passed: the abort alone settled the call.
    expect(await runUntilResult()).toMatch(
      new RegExp(`^Cancelled after 1 attempt \\(0\\.0 s waiting\\): ${abortError}: `),
    );
    expect(await text('#status')).toBe('Idle.');
    await context.clock.runFor(10_000);
    expect(await serverLog()).toEqual(['+0.0 s  GET /api/flaky → 503']);
  });

  it('an always-503 server ends plainly with the last failure after 4 attempts', async () => {
    await choose(client, 'always-503', 'none');
    await page.click('#call');
    expect(await runUntilResult()).toBe('Failed after 4 attempts (7.0 s waiting): HTTP 503');
    expect(await serverLog()).toHaveLength(4);
  });
});

describe.each([
  ['fetch', 'CircuitOpenError'],
  ['axios-xhr', 'AxiosError'],
  ['ky', 'CircuitOpenError'],
])('with the circuit breaker, %s', (client, refusal) => {
  it('shows the circuit open after 2 failed calls, fails fast with nothing sent, then probes and closes', async () => {
    await page.check('#breaker');
    await choose(client, 'always-503', 'none');
    expect(await text('#circuit')).toBe('Circuit: closed');
    for (let i = 0; i < 2; i++) {
      await page.click('#call');
      expect(await runUntilResult()).toBe('Failed after 4 attempts (7.0 s waiting): HTTP 503');
    }
    // ky may need a 100 ms tick of the paused clock to hand over its result: the break has 4.9 to 5.0 s left.
    expect(await text('#circuit')).toMatch(/^Circuit: open, next probe in (?:5\.0|4\.9) s$/);
    expect(await page.getAttribute('#circuit', 'data-state')).toBe('open');

    // While open: the call fails at once and the server sees nothing.
    await page.click('#call');
    expect(await runUntilResult()).toMatch(
      new RegExp(`^Failed after 0 attempts \\(0\\.0 s waiting\\): ${refusal}: The circuit for `),
    );
    expect(await serverLog()).toEqual([]);
    await context.clock.runFor(2000);
    expect(await text('#circuit')).toMatch(/^Circuit: open, next probe in (?:3\.0|2\.9|2\.8) s$/);

    // After the break the server is healthy again: the next call is the probe, and its success closes it.
    await context.clock.runFor(3000);
    expect(await text('#circuit')).toBe('Circuit: half-open');
    await choose(client, 'ok', 'none');
    await page.click('#call');
    expect(await runUntilResult()).toMatch(
      /^Done after 1 attempt \(0\.0 s waiting\): 200 Hello, on attempt 1\.$/,
    );
    expect(await text('#circuit')).toBe('Circuit: closed');
    await page.uncheck('#breaker');
  });
});

it('raised no page error', () => {
  expect(pageErrors).toEqual([]);
});
