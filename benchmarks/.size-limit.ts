// The size budgets `pnpm test` enforces (root script `size`). Node loads this file directly (type stripping),
// hence the `.ts` import. The entries and esbuild options are the size measure's own, so the bench and the
// check always measure the same bundles.
import { ESBUILD_OPTIONS, SIZE_ENTRIES } from './src/size-entries.ts';

interface EsbuildConfig {
  conditions?: string[];
  [option: string]: unknown;
}

export default SIZE_ENTRIES.filter((entry) => entry.budget !== undefined).map((entry) => ({
  name: entry.name,
  path: entry.path,
  ignore: [...entry.external],
  gzip: true,
  limit: `${entry.budget} B`,
  modifyEsbuildConfig: (config: EsbuildConfig): EsbuildConfig => ({
    ...config,
    ...ESBUILD_OPTIONS,
    conditions: [...ESBUILD_OPTIONS.conditions],
  }),
}));
