import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The fault suite's cutting server, with CORS for a page of another origin.
import { ResumeServer, seededSha256 } from '../../../test/fault-suite/src/resume-server.ts';
import type { ResumeRead } from '../src/resume/main.ts';
import { launchChromium } from './support/chromium.ts';
import { openPage } from './support/pages.ts';

// `resume` in Chromium, cross-origin, CORS on: the page (127.0.0.1:A) reads bodies that a node:http server on
// 127.0.0.1:B cuts after the headers. The server exposes ETag and Content-Range to the page and allows the
// continuation's headers on their preflight. Chromium drops the chunks a body had queued for the page when its
// connection breaks: a cut close to the start may reach the page before any byte has, which makes it a restart.
// The cuts are placed further than Chromium can read ahead (the server writes only as fast as the page reads).

const MiB = 1024 * 1024;
let browser: Browser;
let page: Page;
let pageErrors: Error[];
const server = new ResumeServer({ cors: true });
let origin = '';

beforeAll(async () => {
  origin = await server.listen();
  browser = await launchChromium();
  ({ page, errors: pageErrors } = await openPage(browser, '/resume.html', undefined, {
    serviceWorkers: 'block',
  }));
});
afterAll(async () => {
  await browser?.close();
  await server.close();
});

const read = (client: 'fetch' | 'ky', path: string, ranges = true): Promise<ResumeRead> =>
  page.evaluate(([c, url, r]) => window.resume.read(c, url, r), [client, origin + path, ranges] as const);
const hits = (path: string) => server.hits.filter((hit) => hit.path === path);

describe.each(['fetch', 'ky'] as const)('resume in Chromium: %s', (client) => {
  it('a download cut twice goes on with Range and If-Range: the page reads the body exactly', async () => {
    const path = `/resume-${client}`;
    server.files.set(path, {
      size: 16 * MiB,
      seed: 21,
      etag: '"c"',
      ranges: true,
      cuts: [6 * MiB, 12 * MiB],
    });
    const got = await read(client, path);
    expect(got.error).toBeUndefined();
    expect(got.bytes).toBe(16 * MiB);
    expect(got.sha256).toBe(seededSha256(21, 16 * MiB));
    expect(got.result).toMatchObject({ attempts: 3, resumes: 2, reason: 'success' });
    expect(hits(path).map((hit) => [hit.status, hit.ifRange])).toEqual([
      [200, undefined],
      [206, '"c"'],
      [206, '"c"'],
    ]);
  });

  it('a body cut before any byte is requested again whole, without range support', async () => {
    const path = `/restart-${client}`;
    server.files.set(path, { size: MiB, seed: 22, etag: undefined, ranges: false, cuts: [0] });
    const got = await read(client, path);
    expect(got.error).toBeUndefined();
    expect(got.sha256).toBe(seededSha256(22, MiB));
    expect(got.result).toMatchObject({ attempts: 2, resumes: 1 });
    expect(hits(path).map((hit) => [hit.status, hit.range])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
  });

  it('without range support, a cut after bytes were read fails with a ResumeError that says why', async () => {
    const path = `/no-ranges-${client}`;
    server.files.set(path, { size: 8 * MiB, seed: 23, etag: '"n"', ranges: false, cuts: [6 * MiB] });
    const got = await read(client, path);
    expect(got.error).toMatchObject({ name: 'ResumeError', code: 'no-ranges' });
    expect(got.bytes).toBeGreaterThan(0);
    expect(got.bytes).toBeLessThanOrEqual(6 * MiB);
  });
});

it('raised no page error', () => {
  expect(pageErrors).toEqual([]);
});
