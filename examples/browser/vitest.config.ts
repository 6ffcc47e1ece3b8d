import { backoffProject } from '../../vitest.shared.ts';

// Real Chromium: launching it and building the pages take seconds, not milliseconds.
export default backoffProject('browser', {
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
});
