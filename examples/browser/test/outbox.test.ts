import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './support/chromium.ts';

// The offline order form (outbox.html) in Chromium: orders placed offline wait in IndexedDB through two reloads,
// then go, each once, in order, with its key, while a second tab of the same origin is open. A node:http server on
// another loopback origin records every order that reaches it.

let browser: Browser;
let server: Server;
let api: string;
const orders: { key: string; note: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    response.setHeader('Access-Control-Allow-Origin', request.headers.origin ?? '*');
    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'POST');
      response.setHeader(
        'Access-Control-Allow-Headers',
        request.headers['access-control-request-headers'] ?? '',
      );
      response.writeHead(204).end();
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      orders.push({ key: String(request.headers['idempotency-key']), note: JSON.parse(body).note });
      response.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
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

async function open(context: BrowserContext, errors: Error[]): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error));
  await page.goto(`${inject('siteUrl')}/outbox.html?api=${encodeURIComponent(api)}`);
  await page.waitForFunction(() => window.outboxForm !== undefined);
  return page;
}

describe('in Chromium, the offline order form', () => {
  it('20 orders placed offline survive two reloads, then reach the server once each, in order, with their keys, with a second tab open', async () => {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const errors: Error[] = [];
    try {
      const page = await open(context, errors);
      await context.setOffline(true);
      const keys: string[] = [];
      for (let i = 0; i < 20; i++) {
        const placed = await page.evaluate((note) => window.outboxForm.submit(note), `order ${i}`);
        expect(placed.outcome).toBe('queued');
        keys.push(placed.key);
      }
      expect(await page.evaluate(() => window.outboxForm.pending())).toEqual(keys);

      // The page's own origin comes back for the reloads; the API stays unreachable, so the replays at start fail.
      await context.route(`${api}/**`, (route) => route.abort('internetdisconnected'));
      await context.setOffline(false);
      for (let reload = 0; reload < 2; reload++) {
        await page.reload();
        await page.waitForFunction(() => window.outboxForm !== undefined);
        expect(await page.evaluate(() => window.outboxForm.pending())).toEqual(keys);
      }
      const second = await open(context, errors);
      expect(await second.evaluate(() => window.outboxForm.pending())).toEqual(keys);
      expect(orders).toEqual([]);

      // The network is back: both tabs hear `online`.
      await context.unroute(`${api}/**`);
      await context.setOffline(true);
      await context.setOffline(false);
      await expect.poll(() => orders.length, { timeout: 20_000, interval: 50 }).toBe(20);
      await expect
        .poll(
          () => Promise.all([page, second].map((tab) => tab.evaluate(() => window.outboxForm.pending()))),
          {
            timeout: 10_000,
          },
        )
        .toEqual([[], []]);
      // Long enough for a second replay of any order to have arrived.
      await page.waitForTimeout(500);
      expect(orders).toEqual(keys.map((key, i) => ({ key, note: `order ${i}` })));
      const replayed = await Promise.all(
        [page, second].map((tab) =>
          tab.evaluate(() => window.outboxForm.events.filter((event) => event.startsWith('replayed')).length),
        ),
      );
      // Between the two tabs, each order replayed once.
      expect(replayed.reduce((sum, count) => sum + count, 0)).toBe(20);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
