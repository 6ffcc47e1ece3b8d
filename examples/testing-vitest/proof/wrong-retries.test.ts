// The example suite fails, loudly, when the app's retry rule is broken: run in a child process with the app's
// `retries: 3` turned into `retries: 2` (proof/wrong-retries.config.ts), exactly its tests of the attempts a call
// makes fail, each saying how many it made.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runSuite } from '@backoff/test-utils/run';
import { expect, it } from 'vitest';

const EXAMPLE = join(import.meta.dirname, '..');
const VITEST = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');

it('with `retries: 2`, the tests of the attempts a call makes fail and say how many it made', {
  timeout: 90_000,
}, async () => {
  const work = mkdtempSync(join(tmpdir(), 'backoff-wrong-retries-'));
  try {
    const report = join(work, 'report.json');
    const run = await runSuite(
      process.execPath,
      [
        VITEST,
        'run',
        'test/',
        '--config',
        'proof/wrong-retries.config.ts',
        '--reporter=json',
        `--outputFile=${report}`,
      ],
      { cwd: EXAMPLE, timeout: 60_000, report },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.failed.map((test) => test.fullName).sort()).toEqual([
      'gives up after 4 attempts against a server down for an hour',
      'gives up after 4 attempts against a server down for an hour: the AxiosError carries them',
      'gives up after 4 attempts: ky throws its HTTPError, carrying them',
    ]);
    // Each says the call made 3 attempts where 4 were expected.
    for (const test of run.failed)
      expect(test.failureMessages[0]).toMatch(/expected (?:3 to be 4|\{ attempts: 3,)/);
    // The rest of the suite still passes: what it tests does not hang on the fourth attempt.
    expect(run.passed).toBe(10);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
