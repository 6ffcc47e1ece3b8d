import { fileURLToPath } from 'node:url';
import { backoffProject } from '../../vitest.shared.ts';

/** `pnpm fuzz`: the long run of the fuzz properties, 100,000 cases each (FUZZ_RUNS overrides). */
export default {
  ...backoffProject('fault-suite-fuzz', {
    include: ['test/fuzz/**/*.fuzz.ts'],
    env: { FUZZ_RUNS: process.env.FUZZ_RUNS ?? '100000' },
  }),
  root: fileURLToPath(new URL('.', import.meta.url)),
};
