import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium; .ci/run installs it). Never a browser Playwright downloads. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags that work headless in this container: no sandbox (root), no GPU, nothing that phones home. */
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
 * Launches headless Chromium. Playwright gives every launch a fresh temporary profile of its own (and removes
 * it on close), so no `--user-data-dir` is passed.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: run \`apt-get install chromium\` (as .ci/run does).`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}
