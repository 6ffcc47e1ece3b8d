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
/**
 * What a bundle leaves to a chunk of its own and loads only when asked: the spans of the `tracer` option (a dynamic
 * import, which every splitting bundler emits apart) and `@opentelemetry/api`, an optional peer they load. Left out
 * of the bundles below, as they are of what a page loads at start; measured on their own (the tracing chunk).
 */
const ON_DEMAND = ['./spans.js', '@opentelemetry/api'];

export const SIZE_ENTRIES: readonly SizeEntry[] = [
  {
    name: 'axios-backoff (with backoff-core)',
    path: 'src/size/axios-backoff-only.ts',
    external: ['axios', ...ON_DEMAND],
    budget: 14_100,
  },
  {
    name: 'ky-backoff (with backoff-core)',
    path: 'src/size/ky-backoff-only.ts',
    external: ['ky', ...ON_DEMAND],
    budget: 15_100,
  },
  {
    name: 'axios-backoff + CircuitBreaker + BackoffMetrics',
    path: 'src/size/axios-backoff-resilience.ts',
    external: ['axios', ...ON_DEMAND],
    budget: 18_475,
  },
  {
    name: 'ky-backoff + CircuitBreaker + BackoffMetrics',
    path: 'src/size/ky-backoff-resilience.ts',
    external: ['ky', ...ON_DEMAND],
    budget: 19_475,
  },
  // What a user who calls only `withBackoff(fetch)` ships.
  {
    name: 'withBackoff (backoff-core)',
    path: 'src/size/with-backoff-only.ts',
    external: ON_DEMAND,
    budget: 11_950,
  },
  // The whole package, CircuitBreaker and BackoffMetrics included.
  {
    name: 'backoff-core',
    path: '../packages/backoff-core/src/index.ts',
    external: ON_DEMAND,
    budget: 20_000,
  },
  // The adapters' own code alone: what they would weigh on top of a core the page already has.
  {
    name: 'tracing chunk (loaded with `tracer`)',
    path: '../packages/backoff-core/src/tracing/spans.ts',
    external: ['@opentelemetry/api'],
  },
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

/**
 * The esbuild options of every measured bundle, on top of size-limit's own (bundle, minify, tree-shaking): an
 * ES module for browsers, workspace packages resolved to their TypeScript sources (nothing needs building).
 */
export const ESBUILD_OPTIONS = {
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  conditions: ['@backoff/source'],
} as const;
