import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is test/pack-smoke/src/repo.ts). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The packages that are published, in dependency order (the core first). */
export const PUBLISHED = ['backoff-core', 'axios-backoff', 'ky-backoff'] as const;
/**
 * Every package `check:packages` checks: the published ones and backoff-redis (published too, but left out of the
 * install smoke test, whose fixture has no Redis to talk to).
 */
export const CHECKED = [...PUBLISHED, 'backoff-redis'] as const;
export type PublishedName = (typeof CHECKED)[number];

export function packageDir(name: PublishedName): string {
  return join(ROOT, 'packages', name);
}

export { describeRun, type RunOptions, type RunResult, run } from '@backoff/test-utils/run';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Whether a package's dist/ is missing or older than its src/ or package.json (then it must be built before it
 * is packed, or the smoke test would check yesterday's code).
 */
export function needsBuild(name: PublishedName): boolean {
  const dir = packageDir(name);
  let built: number;
  try {
    built = statSync(join(dir, 'dist/index.js')).mtimeMs;
    for (const file of ['index.cjs', 'index.d.ts', 'index.d.cts', 'bundler/index.js'])
      statSync(join(dir, 'dist', file));
  } catch {
    return true;
  }
  const sources = Math.max(newestMtime(join(dir, 'src')), statSync(join(dir, 'package.json')).mtimeMs);
  return sources > built;
}

/** The environment for npm in a temporary project: pnpm's `npm_*` variables would leak pnpm's settings. */
export function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && !key.startsWith('PNPM_')) env[key] = value;
  }
  env.npm_config_update_notifier = 'false';
  env.npm_config_fund = 'false';
  env.npm_config_audit = 'false';
  return env;
}
