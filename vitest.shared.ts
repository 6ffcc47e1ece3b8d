import { defaultServerConditions } from 'vite';
import { defineProject, type ViteUserConfig } from 'vitest/config';

/**
 * The config every test project shares: workspace packages resolve to their TypeScript sources through the
 * `@backoff/source` export condition, so tests never need a build.
 */
export function backoffProject(name: string, test: NonNullable<ViteUserConfig['test']> = {}): ViteUserConfig {
  const conditions = ['@backoff/source', ...defaultServerConditions];
  return defineProject({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@backoff/source'] } },
    test: { name, include: ['test/**/*.test.ts'], ...test },
  });
}
