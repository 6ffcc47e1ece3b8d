// jest runs the suite as ES modules (MSW 3 is ESM-only: `node --experimental-vm-modules`, see package.json), with
// swc stripping the TypeScript. The `@backoff/source` condition resolves the workspace packages to their sources,
// as everywhere in this repository; an app outside it leaves `customExportConditions` and `moduleNameMapper` out.
export default {
  testEnvironment: 'node',
  // Three small files: run in jest's own process, without starting a worker for them (half a second saved).
  maxWorkers: 1,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '\\.ts$': '@swc/jest' },
  extensionsToTreatAsEsm: ['.ts'],
  testEnvironmentOptions: { customExportConditions: ['@backoff/source', 'node', 'node-addons'] },
  // The sources import each other as `./x.js`, the file being x.ts.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
