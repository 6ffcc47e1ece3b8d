import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const CONFIG = fileURLToPath(new URL('./fixtures/unhandled/vitest.config.ts', import.meta.url));
const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/** `vitest run` on one fixture file, in a child process with the repository's root config (see the fixture). */
function vitestRun(fixture: 'dangling' | 'clean'): Promise<Run> {
  // The child must not think it is a worker of this run.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run', '--root', REPO, '--config', CONFIG], {
      cwd: REPO,
      env: { ...env, FIXTURE: fixture, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('an unhandled rejection or uncaught exception fails the whole run', () => {
  it('a run whose tests all pass exits 1 when one left a rejection dangling and another threw from a callback', {
    timeout: 60_000,
  }, async () => {
    const [dangling, clean] = await Promise.all([vitestRun('dangling'), vitestRun('clean')]);

    // The control: the same config and set-up, nothing left dangling, exits 0.
    expect(clean.output).toContain('1 passed');
    expect(clean.code).toBe(0);

    // Both tests passed, and still the run failed, naming both errors.
    expect(dangling.output).toContain('2 passed');
    expect(dangling.output).toMatch(/Unhandled Rejection/);
    expect(dangling.output).toContain('dangling rejection from the fixture');
    expect(dangling.output).toMatch(/Uncaught Exception/);
    expect(dangling.output).toContain('uncaught exception from the fixture');
    expect(dangling.output).toMatch(/2 unhandled errors/);
    expect(dangling.code).toBe(1);
  });
});
