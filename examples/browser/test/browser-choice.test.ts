import { describe, expect, it } from 'vitest';
import { chooseBrowser, SYSTEM_BROWSERS } from './support/browser-choice.ts';

// The order the browser tests take their Chromium in: CHROMIUM_PATH, then the machine's, then the packaged one;
// BACKOFF_BROWSER=packaged skips the machine's. No file system: `exists` says what the machine has.

const machineWith =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);

describe('chooseBrowser', () => {
  it('takes CHROMIUM_PATH first, over a Chromium on the machine', () => {
    const choice = chooseBrowser({
      env: { CHROMIUM_PATH: '/opt/chrome/chrome' },
      platform: 'linux',
      exists: machineWith('/opt/chrome/chrome', '/usr/bin/chromium'),
    });
    expect(choice).toEqual({ source: 'CHROMIUM_PATH', executablePath: '/opt/chrome/chrome' });
  });

  it('refuses a CHROMIUM_PATH that does not exist, naming it', () => {
    expect(() =>
      chooseBrowser({ env: { CHROMIUM_PATH: '/nope/chrome' }, platform: 'linux', exists: machineWith() }),
    ).toThrow('CHROMIUM_PATH=/nope/chrome: no such file.');
  });

  it('then takes the first of the known install paths that exists', () => {
    const linux = (...paths: string[]) =>
      chooseBrowser({ env: {}, platform: 'linux', exists: machineWith(...paths) });
    expect(linux('/usr/bin/google-chrome', '/usr/bin/chromium')).toEqual({
      source: 'system',
      executablePath: '/usr/bin/chromium',
    });
    expect(linux('/usr/bin/google-chrome-stable', '/usr/bin/google-chrome')).toEqual({
      source: 'system',
      executablePath: '/usr/bin/google-chrome',
    });
    const chromeApp = SYSTEM_BROWSERS.darwin?.[0] ?? '';
    expect(chooseBrowser({ env: {}, platform: 'darwin', exists: machineWith(chromeApp) })).toEqual({
      source: 'system',
      executablePath: '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    });
  });

  it('falls back to the packaged Chromium when the machine has none', () => {
    expect(chooseBrowser({ env: {}, platform: 'linux', exists: machineWith() })).toEqual({
      source: 'packaged',
    });
    expect(
      chooseBrowser({ env: { BACKOFF_BROWSER: 'auto' }, platform: 'linux', exists: machineWith() }),
    ).toEqual({
      source: 'packaged',
    });
  });

  it('BACKOFF_BROWSER=packaged takes the packaged Chromium even where the machine has one', () => {
    const choice = chooseBrowser({
      env: { BACKOFF_BROWSER: 'packaged' },
      platform: 'linux',
      exists: machineWith(...(SYSTEM_BROWSERS.linux ?? [])),
    });
    expect(choice).toEqual({ source: 'packaged' });
  });

  it('refuses BACKOFF_BROWSER=packaged together with CHROMIUM_PATH, and an unknown mode', () => {
    const exists = machineWith('/opt/chrome/chrome');
    expect(() =>
      chooseBrowser({ env: { BACKOFF_BROWSER: 'packaged', CHROMIUM_PATH: '/opt/chrome/chrome' }, exists }),
    ).toThrow(
      new RangeError('CHROMIUM_PATH and BACKOFF_BROWSER=packaged contradict each other: unset one of them.'),
    );
    expect(() => chooseBrowser({ env: { BACKOFF_BROWSER: 'system' }, exists })).toThrow(
      new RangeError(
        'BACKOFF_BROWSER=system is not a browser mode: use auto or packaged (or leave it unset).',
      ),
    );
  });
});
