import { backoffProject } from '../../vitest.shared.ts';

// Fleets on a virtual clock through a real redis-server (a few seconds in all): a timeout that catches a hang.
export default backoffProject('shared-store', {
  testTimeout: 120_000,
  hookTimeout: 30_000,
  fileParallelism: false,
});
