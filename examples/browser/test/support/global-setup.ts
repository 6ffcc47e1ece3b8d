import type { TestProject } from 'vitest/node';
import { chooseBrowser } from './browser-choice.ts';
import type { BrowserTarget } from './chromium.ts';
import { packagedChromiumRuns, unpackPackagedChromium } from './packaged-chromium.ts';
import { serveSite } from './site.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the built pages are served, e.g. http://127.0.0.1:40123 (no trailing slash). */
    siteUrl: string;
    /** The browser every test file launches: CHROMIUM_PATH, else the machine's, else the packaged one. */
    browser: BrowserTarget;
    /** The packaged Chromium whatever else is on the machine; null where it cannot run (not Linux x64). */
    packagedChromium: BrowserTarget | null;
  }
}

/** Unpacks the packaged Chromium (or finds it unpacked before) and says how long that took. */
async function packagedTarget(): Promise<BrowserTarget> {
  const started = performance.now();
  const { version, executablePath, libraryPath, unpackedNow } = await unpackPackagedChromium();
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const when = unpackedNow ? `unpacked in ${seconds} s` : 'unpacked by an earlier run';
  process.stdout.write(`browser tests: packaged Chromium @sparticuz/chromium ${version}, ${when}\n`);
  return { source: 'packaged', executablePath, libraryPath, packageVersion: version };
}

/**
 * Once for every test file of the project: picks the browser, unpacks the packaged Chromium (always where it runs,
 * for packaged-chromium.test.ts), builds and serves the pages; stops the server at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const choice = chooseBrowser();
  // Before the site starts, so a failed unpacking leaves no server behind.
  const packaged = packagedChromiumRuns() ? await packagedTarget() : null;
  const browser: BrowserTarget =
    choice.source === 'packaged'
      ? (packaged ?? (await packagedTarget())) // not Linux x64: this throws, saying so
      : { source: choice.source, executablePath: choice.executablePath };
  const name = browser.source === 'packaged' ? 'the packaged Chromium' : browser.executablePath;
  process.stdout.write(`browser tests: run on ${name} (${browser.source})\n`);
  const site = await serveSite();
  project.provide('siteUrl', site.url);
  project.provide('browser', browser);
  project.provide('packagedChromium', packaged);
  return () => site.close();
}
