import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './support/chromium.ts';
import { openPage } from './support/pages.ts';

// The packaged Chromium (@sparticuz/chromium, from npm) launched explicitly, whatever else the machine has: on a
// machine with its own Chromium the other files run on that one, and this file keeps the packaged path proven in
// every `pnpm test`. It checks what the other files need from a browser: a page of the test site, MSW's service
// worker, a fetch through it, and CORS switched on.

const packaged = inject('packagedChromium');

describe.skipIf(packaged === null)('the packaged Chromium, launched whatever else is on the machine', () => {
  let browser: Browser;
  beforeAll(async () => {
    if (packaged !== null) browser = await launchChromium(packaged);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('is the npm package’s own build, unpacked under node_modules/.cache', () => {
    expect(packaged?.source).toBe('packaged');
    expect(packaged?.executablePath).toMatch(/\/node_modules\/\.cache\/sparticuz-chromium-[\d.]+\/chromium$/);
    // @sparticuz/chromium's major version is Chromium's.
    expect(packaged?.packageVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(browser.version().split('.')[0]).toBe(packaged?.packageVersion?.split('.')[0]);
  });

  it('loads the harness page, which MSW’s service worker controls, and a fetch through the worker is retried', async () => {
    const { context, page, errors } = await openPage(browser, '/harness.html');
    try {
      const scriptUrl = await page.evaluate(() => window.harness.ready);
      expect(scriptUrl).toBe(`${new URL(page.url()).origin}/mockServiceWorker.js`);
      const o = await page.evaluate(() => window.harness.runCase('withBackoff', '503-503-200'));
      expect(o.settled[0]).toMatchObject({ ok: true, status: 200, result: { attempts: 3 } });
      expect(o.hits['/items']).toHaveLength(3);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  describe('keeps CORS on (no --disable-web-security)', () => {
    let server: Server;
    let url = '';
    let requests = 0;
    let page: Page;
    beforeAll(async () => {
      // A cross-origin API that sends no Access-Control-Allow-Origin: a page may send to it but not read it.
      server = createServer((request, response) => {
        requests += 1;
        request.resume();
        response.writeHead(200, { 'content-type': 'text/plain' }).end('secret');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/no-cors`;
      ({ page } = await openPage(browser, '/cors.html', undefined, { serviceWorkers: 'block' }));
    });
    afterAll(async () => {
      await page?.context().close();
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    it('a cross-origin response without Access-Control-Allow-Origin cannot be read', async () => {
      const outcome = await page.evaluate(
        (target) =>
          fetch(target).then(
            (response) => response.text(),
            (error: unknown) => `rejected: ${String(error)}`,
          ),
        url,
      );
      expect(outcome).toMatch(/^rejected: TypeError/);
      // The request did leave: the browser, not the network, kept the answer from the page.
      expect(requests).toBe(1);
    });
  });
});
