// The list of test projects: every package or example with a vitest.config.ts. Vitest 4 does not read this file
// by itself: vitest.config.ts imports it as `test.projects`. Config-file globs, not folder globs, so a README or a
// package without tests beside them is not taken for a project.
export default [
  'packages/*/vitest.config.ts',
  'test/*/vitest.config.ts',
  'examples/*/vitest.config.ts',
  'benchmarks/vitest.config.*',
];
