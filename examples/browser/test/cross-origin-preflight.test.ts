import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Variant } from '../src/cors/main.ts';
import { CLIENTS, type ClientName, type PageRequest, type Settled } from '../src/harness/types.ts';
import { launchChromium } from './support/chromium.ts';
import { type CorsServer, startCorsServer } from './support/cors-server.ts';
import { openPage } from './support/pages.ts';

// The plugin adds nothing to a request by default, and that matters where a CORS preflight exists: between
// two real origins. The probe page is served from 127.0.0.1:A (no service worker, and the context blocks
// them), the API is a node:http server on 127.0.0.1:B that counts every request per path, OPTIONS included.
// Each request goes to a path of its own, so Chromium's preflight cache cannot hide a preflight. The same two
// origins show what CORS lets the pacer read: RateLimit fields only with Access-Control-Expose-Headers.

let browser: Browser;
let page: Page;
let api: CorsServer;
let pageErrors: Error[];

beforeAll(async () => {
  api = await startCorsServer();
  browser = await launchChromium();
  ({ page, errors: pageErrors } = await openPage(browser, '/cors.html', undefined, {
    serviceWorkers: 'block',
  }));
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

let serial = 0;

/** Sends one request through `client` set up as `variant`, to a fresh path; returns what the server saw. */
async function probe(client: ClientName, variant: Variant, request: Omit<PageRequest, 'path'>) {
  const path = `/preflight/${client}/${variant}/${++serial}`;
  const settled: Settled = await page.evaluate(([base, c, v, r]) => window.cors.send(base, c, v, r), [
    api.url,
    client,
    variant,
    { ...request, path },
  ] as const);
  const seen = api.seen(path);
  const preflights = seen.filter((r) => r.method === 'OPTIONS');
  const sent = seen.filter((r) => r.method !== 'OPTIONS');
  return {
    settled,
    preflights: preflights.length,
    askedHeaders: preflights.map((r) => r.headers['access-control-request-headers']),
    sent,
    headerNames: sent.map((r) => Object.keys(r.headers).sort()),
  };
}

it('the probe page and the API are two origins', async () => {
  const pageOrigin = new URL(page.url()).origin;
  expect(pageOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(api.url).not.toBe(pageOrigin);
});

describe.each(CLIENTS)('no added preflight in Chromium, cross-origin: %s', (client) => {
  it('control: a custom header on a plain GET does get a preflight (the counter sees them)', async () => {
    const control = await probe(client, 'plain', { method: 'GET', headers: { 'X-Probe': '1' } });
    expect(control.preflights).toBe(1);
    expect(control.askedHeaders).toEqual(['x-probe']);
  });

  it('a GET with the default options gets no preflight, as without the plugin, also on its retry', async () => {
    const plain = await probe(client, 'plain', { method: 'GET' });
    const withBackoff = await probe(client, 'backoff', { method: 'GET' });
    expect(plain.preflights).toBe(0);
    expect(withBackoff.preflights).toBe(plain.preflights);
    // The plugin did retry (503, then 200) ...
    expect(plain.sent).toHaveLength(1);
    expect(withBackoff.sent).toHaveLength(2);
    expect(withBackoff.settled).toMatchObject({ ok: true, status: 200, result: { attempts: 2 } });
    // ... and every attempt carried exactly the headers the plain client sends.
    expect(withBackoff.headerNames).toEqual([plain.headerNames[0], plain.headerNames[0]]);
  });

  it('a simple (text/plain) POST with the default options gets no preflight and is not retried', async () => {
    const plain = await probe(client, 'plain', { method: 'POST', text: 'order' });
    const withBackoff = await probe(client, 'backoff', { method: 'POST', text: 'order' });
    expect(plain.preflights).toBe(0);
    expect(withBackoff.preflights).toBe(0);
    expect(withBackoff.sent).toHaveLength(1);
    expect(withBackoff.settled.result?.reason).toBe('method-not-idempotent');
    expect(withBackoff.headerNames).toEqual(plain.headerNames);
  });

  it("idempotencyKey: 'auto' on that POST adds the key, and so a preflight, as documented", async () => {
    const keyed = await probe(client, 'backoff-auto-key', { method: 'POST', text: 'order' });
    expect(keyed.preflights).toBeGreaterThanOrEqual(1);
    expect(keyed.askedHeaders[0]).toBe('idempotency-key');
    // With the key the POST is retried, with the same key on both attempts.
    expect(keyed.settled).toMatchObject({ ok: true, status: 200, result: { attempts: 2 } });
    const keys = keyed.sent.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^"[0-9a-f-]{36}"$/);
    expect(keys[1]).toBe(keys[0]);
  });
});

describe.each(CLIENTS)('the pacer across origins in Chromium: %s', (client) => {
  /** Two calls in a row to a server whose every answer says its quota is spent for 1 s. */
  async function paced(exposure: 'exposed' | 'hidden') {
    const path = `/paced/${exposure}/${client}/${++serial}`;
    const { settled, holds } = await page.evaluate(([base, c, p]) => window.cors.paced(base, c, p), [
      api.url,
      client,
      path,
    ] as const);
    return { settled, holds, sent: api.seen(path).filter((r) => r.method === 'GET').length };
  }

  it('RateLimit fields exposed with Access-Control-Expose-Headers pace the next call until the reset', async () => {
    const { settled, holds, sent } = await paced('exposed');
    expect(settled.map((s) => s.status)).toEqual([200, 200]);
    expect(holds).toEqual([1025]);
    expect(settled[1]?.result).toMatchObject({ attempts: 1, held: 1025 });
    expect(sent).toBe(2);
  });

  it('the same fields without the expose header are hidden from the page: the pacer holds nothing', async () => {
    const { settled, holds, sent } = await paced('hidden');
    expect(settled.map((s) => s.status)).toEqual([200, 200]);
    expect(holds).toEqual([]);
    expect(settled[1]?.result?.held).toBeUndefined();
    expect(sent).toBe(2);
  });
});

it('raised no page error', () => {
  expect(pageErrors).toEqual([]);
});
