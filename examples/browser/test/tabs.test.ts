import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './support/chromium.ts';

// Ten tabs of one origin (one browser context) pacing through one TabStore, against a fixed-window limiter of 20
// per second on another loopback origin that answers with draft-8 headers (exposed by CORS).

const LIMIT = 20;
let browser: Browser;
let context: BrowserContext;
let server: Server;
let api: string;
const arrivals: { at: number; status: number }[] = [];

beforeAll(async () => {
  let window = -1;
  let used = 0;
  server = createServer((_request, response) => {
    const now = Date.now();
    const index = Math.floor(now / 1000);
    if (index !== window) {
      window = index;
      used = 0;
    }
    used++;
    const status = used > LIMIT ? 429 : 200;
    arrivals.push({ at: now, status });
    const reset = Math.max(1, Math.ceil(((index + 1) * 1000 - now) / 1000));
    response.writeHead(status, {
      'access-control-allow-origin': '*',
      'access-control-expose-headers': 'RateLimit, RateLimit-Policy, Retry-After',
      'ratelimit-policy': `"limit"; q=${LIMIT}; w=1`,
      ratelimit: `"limit"; r=${Math.max(0, LIMIT - used)}; t=${reset}`,
      ...(status === 429 ? { 'retry-after': String(reset) } : {}),
    });
    response.end(status === 200 ? 'ok' : 'slow down');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

async function openTabs(count: number): Promise<Page[]> {
  context = await browser.newContext({ serviceWorkers: 'block' });
  const pages = await Promise.all(
    Array.from({ length: count }, async () => {
      const page = await context.newPage();
      await page.goto(`${inject('siteUrl')}/tabs.html`);
      await page.waitForFunction(() => window.tabs !== undefined);
      return page;
    }),
  );
  // One of them leads.
  await pages[0]?.waitForTimeout(100);
  return pages;
}

describe('in Chromium, ten tabs sharing one TabStore', () => {
  it('stay within 1.05x of the quota with at most one 429 per window', async () => {
    const pages = await openTabs(10);
    try {
      const leaders = await Promise.all(pages.map((page) => page.evaluate(() => window.tabs.leader())));
      expect(leaders.filter(Boolean)).toHaveLength(1);
      // 200 calls at 50/s in all: each tab 20 calls, 200 ms apart, the tabs 20 ms apart; from a window's edge.
      const start = Math.ceil((Date.now() + 500) / 1000) * 1000;
      arrivals.length = 0;
      const results = await Promise.all(
        pages.map((page, tab) =>
          page.evaluate(([url, at]) => window.tabs.run(url, 20, 200, at), [
            `${api}/work`,
            start + tab * 20,
          ] as const),
        ),
      );
      expect(results.flat().every((call) => call.status === 200)).toBe(true);
      const windows = new Map<number, { sent: number; throttled: number }>();
      for (const arrival of arrivals) {
        const window = Math.floor(arrival.at / 1000);
        const seen = windows.get(window) ?? { sent: 0, throttled: 0 };
        seen.sent++;
        if (arrival.status === 429) seen.throttled++;
        windows.set(window, seen);
      }
      const counts = [...windows.values()];
      console.log(`tabs: per window ${counts.map((w) => `${w.sent}/${w.throttled}`).join(' ')}`);
      for (const window of counts) {
        expect(window.sent).toBeLessThanOrEqual(Math.floor(LIMIT * 1.05) + 1);
        expect(window.throttled).toBeLessThanOrEqual(1);
      }
    } finally {
      await context.close();
    }
  });

  it('closing the tab that holds a reservation frees it: the next reservation takes its slot', async () => {
    const pages = await openTabs(3);
    try {
      const leaders = await Promise.all(pages.map((page) => page.evaluate(() => window.tabs.leader())));
      const holder = pages[leaders.indexOf(false)] as Page;
      const other = pages.find((page) => page !== holder) as Page;
      // Spent for a minute, on the page's real clock: a busy machine cannot outlast it during the test.
      await holder.evaluate(() => window.tabs.spend('k', 60_000));
      const slot = await holder.evaluate(() => window.tabs.reserve('k'));
      // A held slot (0 is "send now", -1 a refusal).
      expect(slot).toBeGreaterThan(0);
      await holder.close({ runBeforeUnload: true });
      // The next reservation takes the slot the closed tab held (the poll's limit is for a failing run only).
      await expect
        .poll(() => other.evaluate(() => window.tabs.reserve('k')), { timeout: 10_000, interval: 20 })
        .toBe(slot);
    } finally {
      await context.close();
    }
  });
});
