import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS } from '../src/harness/types.ts';
import { launchChromium } from './support/chromium.ts';
import { type CorsServer, startCorsServer } from './support/cors-server.ts';
import { openPage } from './support/pages.ts';

// Waiting for the network, in Chromium: Playwright's `context.setOffline` flips navigator.onLine, fires
// offline/online, and fails every request. The probe page (offline.html, no service worker) calls a node:http
// server on another loopback origin that counts what reaches it; its first request on a path gets a 503,
// later ones a 200. The backoff waits run on a virtual clock that ends each at once, so only waiting for the
// network can hold a retry back.

let browser: Browser;
let api: CorsServer;

beforeAll(async () => {
  api = await startCorsServer();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

let serial = 0;

describe.each(CLIENTS)('in Chromium, offline then back online: %s', (client) => {
  it('sends nothing while offline, then retries once online and succeeds', async () => {
    const { context, page, errors } = await openPage(browser, '/offline.html', undefined, {
      serviceWorkers: 'block',
    });
    try {
      const path = `/offline/${client}/${++serial}`;
      await context.setOffline(true);
      expect(await page.evaluate(() => navigator.onLine)).toBe(false);
      await page.evaluate(([base, c, p]) => window.offline.start(base, c, { method: 'GET', path: p }), [
        api.url,
        client,
        path,
      ] as const);

      // The first attempt failed offline; onRetry said the wait is for the network.
      await page.waitForFunction(() => window.offline.state().waitingForNetwork.length > 0);
      expect(await page.evaluate(() => window.offline.state())).toMatchObject({
        attempts: 1,
        waitingForNetwork: [true],
        waits: [500],
        onLine: false,
        settled: undefined,
      });
      // The computed delay is long over (virtual waits end at once): without waiting for the network every
      // retry would already be spent. A generous real pause shows the call holding still instead.
      await page.waitForTimeout(300);
      expect(await page.evaluate(() => window.offline.state())).toMatchObject({
        attempts: 1,
        settled: undefined,
      });
      expect(api.seen(path)).toHaveLength(0);

      await context.setOffline(false);
      await page.waitForFunction(() => window.offline.state().settled !== undefined);
      const state = await page.evaluate(() => window.offline.state());
      // Once online: the retry got the server's 503, the next one its 200.
      expect(state.settled).toMatchObject({ ok: true, status: 200, result: { attempts: 3 } });
      expect(state.waitingForNetwork).toEqual([true, false]);
      expect(state.waits).toEqual([500, 1000]);
      expect(api.seen(path).map((request) => request.method)).toEqual(['GET', 'GET']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
