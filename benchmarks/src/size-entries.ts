/**
 * The bundles that are measured and budgeted: shared by the size measure (src/size.ts) and by size-limit
 * (.size-limit.ts, which Node loads directly: so this file imports nothing and uses only erasable TypeScript).
 * Paths are relative to benchmarks/. `budget` is in size-limit's own count (min+gzip bytes, less the 32 bytes
 * it subtracts for esbuild's empty-project output); entries without one are measured only. Budgets are the
 * measured size plus about 1.5%, so that growth fails `pnpm test`: raise one only with a reason (and a new
 * `pnpm bench` run for RESULTS.md), and say in the commit what moved it.
 */
export interface SizeEntry {
  readonly name: string;
  readonly path: string;
  /** Imports left out of the bundle (the client itself: it is the user's, a peer dependency). */
  readonly external: readonly string[];
  readonly budget?: number;
}

// The adapters are measured as a user imports them: the adapter function alone (src/size/*-only.ts), so that the
// opt-in CircuitBreaker and BackoffMetrics, which the packages also export, count only where they are used.
export const SIZE_ENTRIES: readonly SizeEntry[] = [
  {
    name: 'axios-backoff (with backoff-core)',
    path: 'src/size/axios-backoff-only.ts',
    external: ['axios'],
    budget: 14_100,
  },
  {
    name: 'ky-backoff (with backoff-core)',
    path: 'src/size/ky-backoff-only.ts',
    external: ['ky'],
    budget: 15_100,
  },
  {
    name: 'axios-backoff + CircuitBreaker + BackoffMetrics',
    path: 'src/size/axios-backoff-resilience.ts',
    external: ['axios'],
    budget: 18_475,
  },
  {
    name: 'ky-backoff + CircuitBreaker + BackoffMetrics',
    path: 'src/size/ky-backoff-resilience.ts',
    external: ['ky'],
    budget: 19_475,
  },
  // What a user who calls only `withBackoff(fetch)` ships.
  {
    name: 'withBackoff (backoff-core)',
    path: 'src/size/with-backoff-only.ts',
    external: [],
    budget: 11_950,
  },
  // The whole package, CircuitBreaker and BackoffMetrics included.
  { name: 'backoff-core', path: '../packages/backoff-core/src/index.ts', external: [], budget: 20_000 },
  // The adapters' own code alone: what they would weigh on top of a core the page already has.
  {
    name: 'axios-backoff alone (core external)',
    path: '../packages/axios-backoff/src/index.ts',
    external: ['axios', 'backoff-core'],
  },
  {
    name: 'ky-backoff alone (core external)',
    path: '../packages/ky-backoff/src/index.ts',
    external: ['ky', 'backoff-core'],
  },
  { name: 'axios-retry 4.5.0', path: 'node_modules/axios-retry/dist/esm/index.js', external: ['axios'] },
  { name: 'retry-axios 4.0.3', path: 'node_modules/retry-axios/build/src/index.js', external: ['axios'] },
];

/** The part of esbuild's plugin API the measure uses. */
interface ResolvePlugin {
  readonly name: string;
  setup(build: {
    onResolve(
      options: { filter: RegExp },
      callback: (args: { kind: string; path: string }) => { path: string; external: true } | undefined,
    ): void;
  }): void;
}

/**
 * What the core loads only when asked: the runner's resume part and the resume module, an `import()` reached
 * with the `resume` option alone.
 * Left out of every measure, as a code-splitting bundler leaves it in a chunk of its own (esbuild without
 * `splitting` would inline it).
 */
const LAZY_CHUNKS: ResolvePlugin = {
  name: 'lazy-chunks',
  setup(build) {
    build.onResolve({ filter: /^\.\/continue\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined,
    );
  },
};

/**
 * The esbuild options of every measured bundle, on top of size-limit's own (bundle, minify, tree-shaking): an
 * ES module for browsers, workspace packages resolved to their TypeScript sources (nothing needs building), the
 * lazily loaded chunks left out.
 */
export const ESBUILD_OPTIONS = {
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  conditions: ['@backoff/source'],
  plugins: [LAZY_CHUNKS],
} as const;
