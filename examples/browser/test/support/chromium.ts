import { type Browser, chromium } from 'playwright-core';
import { inject } from 'vitest';
import type { BrowserSource } from './browser-choice.ts';

/** A browser to launch, as the global setup found it (see browser-choice.ts and packaged-chromium.ts). */
export interface BrowserTarget {
  readonly source: BrowserSource;
  readonly executablePath: string;
  /** Put first on this browser's `LD_LIBRARY_PATH` (the packaged Chromium's own NSS), nobody else's. */
  readonly libraryPath?: string;
  /** The npm package's version, for the packaged Chromium (its major is Chromium's: 153.0.0 holds Chromium 153). */
  readonly packageVersion?: string;
}

/**
 * The same flags for every browser: headless, no sandbox (the tests may run as root), no GPU, nothing that phones
 * home. Never `--disable-web-security` (the packaged Chromium's own recommended `args` have it): with it CORS is
 * off and the preflight test would count no preflight. Its other recommended flags are for AWS Lambda and are
 * left out (packaged-chromium.test.ts launches it with these and checks CORS is on).
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/**
 * Launches headless Chromium: the run's browser (the global setup's choice) unless told which. Playwright gives
 * every launch a fresh temporary profile of its own (and removes it on close), so no `--user-data-dir` is passed.
 */
export async function launchChromium(target: BrowserTarget = inject('browser')): Promise<Browser> {
  const options = { executablePath: target.executablePath, headless: true, args: FLAGS };
  if (target.libraryPath === undefined) return chromium.launch(options);
  const libraries = [target.libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return chromium.launch({ ...options, env: { ...process.env, LD_LIBRARY_PATH: libraries } });
}
