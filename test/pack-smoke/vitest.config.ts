import { backoffProject } from '../../vitest.shared.ts';

export default backoffProject('pack-smoke', {
  // The smoke test packs, installs with npm and runs tsc: seconds, not milliseconds. Its own steps have
  // tighter time limits (see test/pack-install.test.ts); these are the outer bounds.
  testTimeout: 60_000,
  hookTimeout: 120_000,
});
