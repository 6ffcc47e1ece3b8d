// The jest example runs in the repository's tests through this file: jest in a child process, as the example's
// `pnpm test` runs it. As written, its whole suite passes; with the app's `retries: 3` turned into `retries: 2`
// (proof/wrong-retries.config.js), exactly its tests of the attempts a call makes fail, each saying how many.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeRun, runSuite } from '@backoff/test-utils/run';
import { afterAll, expect, it } from 'vitest';

const EXAMPLE = join(import.meta.dirname, '..');
const JEST = join(dirname(createRequire(import.meta.url).resolve('jest/package.json')), 'bin/jest.js');
const work = mkdtempSync(join(tmpdir(), 'backoff-jest-example-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The example's suite under jest, with `config` (the example's own by default). */
function jest(name: string, config = 'jest.config.js') {
  const report = join(work, `${name}.json`);
  const args = ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning', JEST];
  return runSuite(process.execPath, [...args, '--config', config, '--json', `--outputFile=${report}`], {
    cwd: EXAMPLE,
    timeout: 60_000,
    report,
  });
}

it('passes as written', { timeout: 90_000 }, async () => {
  const run = await jest('as-written');
  expect(run.code, describeRun('jest', run)).toBe(0);
  expect(run.passed).toBe(6);
});

it('with `retries: 2`, the tests of the attempts a call makes fail and say how many it made', {
  timeout: 90_000,
}, async () => {
  const run = await jest('wrong-retries', 'proof/wrong-retries.config.js');
  expect(run.code, describeRun('jest', run)).toBe(1);
  expect(run.failed.map((test) => test.fullName).sort()).toEqual([
    'gives up after 4 attempts against a server down for an hour',
    'gives up after 4 attempts: ky throws its HTTPError, carrying them',
    'gives up after 4 attempts: the AxiosError carries them',
  ]);
  // jest's own words: "Expected: 4, Received: 3".
  for (const test of run.failed) expect(test.failureMessages[0]).toMatch(/Expected: 4\n.*Received: 3/);
  expect(run.passed).toBe(3);
});
