import { existsSync } from 'node:fs';

/**
 * Where the tests' Chromium comes from: `CHROMIUM_PATH` (the override), a Chromium or Chrome already on the
 * machine (`system`), or the one `pnpm install` brought from npm (`packaged`, see packaged-chromium.ts).
 */
export type BrowserSource = 'CHROMIUM_PATH' | 'system' | 'packaged';

export type BrowserChoice =
  | { readonly source: 'CHROMIUM_PATH' | 'system'; readonly executablePath: string }
  | { readonly source: 'packaged' };

/**
 * The browsers looked for on the machine, first found wins: the usual install paths of Debian's and Ubuntu's
 * Chromium, Google Chrome's Linux packages, and the two macOS apps. Fixed paths, not a search of PATH, so the
 * choice is predictable; anything else is one `CHROMIUM_PATH` away.
 */
export const SYSTEM_BROWSERS: Readonly<Record<string, readonly string[]>> = {
  linux: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
  ],
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
  ],
};

/** `BACKOFF_BROWSER`: `auto` (the default) takes the order above; `packaged` skips the machine's browsers. */
export const BROWSER_MODES = ['auto', 'packaged'] as const;

export interface ChooseOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly platform?: string;
  readonly exists?: (path: string) => boolean;
}

/** Picks the browser for this run, or throws an error that names the variable to fix. */
export function chooseBrowser({
  env = process.env,
  platform = process.platform,
  exists = existsSync,
}: ChooseOptions = {}): BrowserChoice {
  const mode = env.BACKOFF_BROWSER || 'auto';
  if (!(BROWSER_MODES as readonly string[]).includes(mode)) {
    throw new RangeError(
      `BACKOFF_BROWSER=${mode} is not a browser mode: use ${BROWSER_MODES.join(' or ')} (or leave it unset).`,
    );
  }
  const override = env.CHROMIUM_PATH;
  if (override) {
    if (mode === 'packaged') {
      throw new RangeError(
        'CHROMIUM_PATH and BACKOFF_BROWSER=packaged contradict each other: unset one of them.',
      );
    }
    if (!exists(override)) throw new Error(`CHROMIUM_PATH=${override}: no such file.`);
    return { source: 'CHROMIUM_PATH', executablePath: override };
  }
  if (mode === 'auto') {
    const found = (SYSTEM_BROWSERS[platform] ?? []).find((path) => exists(path));
    if (found !== undefined) return { source: 'system', executablePath: found };
  }
  return { source: 'packaged' };
}
