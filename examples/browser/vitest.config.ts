import { backoffProject } from '../../vitest.shared.ts';

// Real Chromium: launching it and building the pages take seconds, not milliseconds. The project runs after all
// the others (groupOrder 1; the rest are 0): Chromium's processes would otherwise take CPU from the fault suite's
// tests on real sockets and real 100 ms timeouts, which a loaded 2-core machine can push past their limits.
export default backoffProject('browser', {
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  sequence: { groupOrder: 1 },
});
