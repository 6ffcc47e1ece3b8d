import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.ts';

// A page with no bundler: the packages' built `dist/` files loaded by the browser itself through an import map, as
// from a CDN. There is no `process` on such a page, and the packages read `globalThis.process?.env?.NODE_ENV`, so
// nothing throws and the messages are the development build's (the full ones). A node:http server on 127.0.0.1
// serves the files and an API that answers each path 503 once, then 200, counting what reaches it.

const HERE = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = fileURLToPath(new URL('../../../packages', import.meta.url));
/** URL prefix -> folder served under it. */
const FOLDERS: Readonly<Record<string, string>> = {
  '/backoff-core/': join(PACKAGES, 'backoff-core/dist'),
  '/axios-backoff/': join(PACKAGES, 'axios-backoff/dist'),
  '/ky-backoff/': join(PACKAGES, 'ky-backoff/dist'),
  '/ky/': join(HERE, 'node_modules/ky/distribution'),
  '/axios/': join(HERE, 'node_modules/axios/dist/esm'),
};

const IMPORTS = {
  'backoff-core': '/backoff-core/index.js',
  'backoff-core/adapter': '/backoff-core/adapter.js',
  'axios-backoff': '/axios-backoff/index.js',
  'ky-backoff': '/ky-backoff/index.js',
  ky: '/ky/index.js',
  axios: '/axios/axios.js',
};

const APP = `
import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { createBackoff, getBackoffResult, withBackoff } from 'backoff-core';
import ky from 'ky';
import { kyBackoff } from 'ky-backoff';

const fast = { retries: 2, baseDelay: 0 };
window.result = (async () => {
  const fetched = await withBackoff(fetch, fast)('/api/fetch');
  const instance = axios.create();
  axiosBackoff(instance, fast);
  const answered = await instance.get('/api/axios');
  const kyed = await kyBackoff(ky, fast).get('/api/ky');
  let message = '';
  try {
    createBackoff({ retries: 200 });
  } catch (error) {
    message = error.message;
  }
  return {
    process: typeof process,
    fetch: [fetched.status, getBackoffResult(fetched)?.attempts],
    axios: [answered.status, getBackoffResult(answered)?.attempts],
    ky: [kyed.status, getBackoffResult(kyed)?.attempts],
    message,
  };
})();
`;

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>no bundler</title>
<script type="importmap">${JSON.stringify({ imports: IMPORTS })}</script>
<script type="module" src="/app.js"></script>
</head><body></body></html>`;

let server: Server;
let base = '';
let browser: Browser;
const hits = new Map<string, number>();

function file(url: string): string | undefined {
  for (const [prefix, folder] of Object.entries(FOLDERS)) {
    if (!url.startsWith(prefix)) continue;
    const path = normalize(join(folder, url.slice(prefix.length)));
    return path.startsWith(folder) && existsSync(path) ? path : undefined;
  }
  return undefined;
}

beforeAll(async () => {
  for (const [name, folder] of Object.entries(FOLDERS)) {
    if (!existsSync(folder)) throw new Error(`${folder} is missing (${name}): run \`pnpm build\` first.`);
  }
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    request.resume();
    if (url === '/') return response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (url === '/app.js') return response.writeHead(200, { 'content-type': 'text/javascript' }).end(APP);
    if (url.startsWith('/api/')) {
      const count = (hits.get(url) ?? 0) + 1;
      hits.set(url, count);
      if (count === 1) return response.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      return response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    }
    const path = file(url);
    if (path === undefined) return response.writeHead(404).end();
    const type = extname(path) === '.js' ? 'text/javascript' : 'application/octet-stream';
    response.writeHead(200, { 'content-type': type }).end(readFileSync(path));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('in Chromium with no bundler (an import map of the built files)', () => {
  it('nothing throws on the missing `process`: every client retries, and a bad option has its full message', async () => {
    const context = await browser.newContext({ serviceWorkers: 'block' });
    try {
      const page = await context.newPage();
      const errors: Error[] = [];
      page.on('pageerror', (error) => errors.push(error));
      await page.goto(`${base}/`);
      await page
        .waitForFunction(() => 'result' in window, undefined, { timeout: 10_000 })
        .catch(() => {
          throw new Error(`The page's module never ran: ${errors.map(String).join('; ') || 'no error'}`);
        });
      const result = await page.evaluate(() => (window as unknown as { result: Promise<unknown> }).result);
      expect(result).toEqual({
        process: 'undefined',
        fetch: [200, 2],
        axios: [200, 2],
        ky: [200, 2],
        message:
          'Expected `retries` to be an integer from 0 to 100, got 200: bound a long retry by time with `deadline`.',
      });
      expect(errors).toEqual([]);
      expect(Object.fromEntries(hits)).toEqual({ '/api/fetch': 2, '/api/axios': 2, '/api/ky': 2 });
    } finally {
      await context.close();
    }
  });
});
