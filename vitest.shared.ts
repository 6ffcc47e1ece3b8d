import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { configDefaults, defineProject, type ViteUserConfig } from 'vitest/config';
import { INTEGRATION, testKind } from './vitest.split.ts';

type TestOptions = NonNullable<ViteUserConfig['test']>;

// The unit run's guards: a unit test opens no socket and reads no wall clock.
const UNIT_GUARDS = ['no-sockets.ts', 'no-wall-clock.ts'].map((file) =>
  fileURLToPath(new URL(`./test/test-utils/src/${file}`, import.meta.url)),
);

const UNIT_TIMEOUT = 30_000;

/** The part of a project a unit or integration run takes (vitest.split.ts), or all of it. */
function selected(name: string, test: TestOptions): TestOptions {
  const kind = testKind();
  const integration = INTEGRATION[name] ?? [];
  const none: TestOptions = { include: [], typecheck: { ...test.typecheck, enabled: false } };
  if (kind === 'unit') {
    if (integration === 'all') return { ...test, ...none };
    return {
      // A unit test's timeout catches a hang, not slowness: on a busy machine a CPU-bound test (a simulation
      // of minutes of virtual time) runs many times slower than on an idle one.
      testTimeout: UNIT_TIMEOUT,
      ...test,
      exclude: [...configDefaults.exclude, ...(test.exclude ?? []), ...integration],
      setupFiles: [...UNIT_GUARDS, ...[test.setupFiles ?? []].flat()],
    };
  }
  if (kind === 'integration') {
    if (integration === 'all') return test;
    if (integration.length === 0) return { ...test, ...none };
    // The type tests (*.test-d.ts) are unit tests.
    return { ...test, include: [...integration], typecheck: { ...test.typecheck, enabled: false } };
  }
  return test;
}

/**
 * The config every test project shares: workspace packages resolve to their TypeScript sources through the
 * `@backoff/source` export condition, so tests never need a build.
 */
export function backoffProject(name: string, test: TestOptions = {}): ViteUserConfig {
  const conditions = ['@backoff/source', ...defaultServerConditions];
  return defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@backoff/source'] } },
    test: { name, ...selected(name, { include: ['test/**/*.test.ts'], ...test }) },
  });
}
