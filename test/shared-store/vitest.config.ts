import { backoffProject } from '../../vitest.shared.ts';

// Fleets of real processes on the wall clock: one file, its runs one after another (~45 s in all).
export default backoffProject('shared-store', {
  testTimeout: 60_000,
  hookTimeout: 30_000,
  fileParallelism: false,
});
