/**
 * The bundles that are measured and budgeted: shared by the size measure (src/size.ts) and by size-limit
 * (.size-limit.ts, which Node loads directly: so this file imports nothing and uses only erasable TypeScript).
 * Paths are relative to benchmarks/. `budget` is in size-limit's own count (min+gzip bytes, less the 32 bytes
 * it subtracts for esbuild's empty-project output); entries without one are measured only. Budgets are the
 * measured size plus about 1.5%, so that growth fails `pnpm test`: raise one only with a reason (and a new
 * `pnpm bench` run for RESULTS.md). Issue 14 raised all three by about 1.1 kB (core 6065 -> 7214 B measured): the
 * Idempotency-Key checks and their error messages (~410 B), async shouldRetry/onRetry with abort (~370 B), the
 * throttling price and backoff (~190 B), mixed Retry-After lists and draft-7 RateLimit (~110 B). Issue 17 lowered
 * them by about 0.8 kB, the core written smaller with every rule kept: options checked from one table (~480 B),
 * shorter Idempotency-Key messages and one key pattern (~125 B), server timing and the HTTP-date parser (~110 B),
 * one cause-chain walker (~30 B), next/decide sharing one body (~27 B), the breaker/metrics plumbing (~20 B); the
 * breaker's own options through the same table (~60 B, where the breaker is used). Issue 15's lean pass moved the
 * breaker/metrics watching out of RetryState into a retry state class of their own (watch.ts, reached only through
 * a CircuitBreaker or BackoffMetrics): the bundles that use neither lost ~110 B each, those that use them gained
 * ~210-220 B (src/unused-cost.ts measures what the features cost when unused: `pnpm --filter @backoff/benchmarks
 * unused-cost`). Issue 17's second size pass took ~50-130 B more out of each, every rule kept: shorter adapter
 * errors for a wrong or twice-wired instance (axios ~50 B, ky ~80 B), and small core cuts (~50 B: one error
 * through the shared fail(), the jitter list from its table, 2 ** 53 - 1, the should-retry verdict, the URL parse).
 */
export interface SizeEntry {
  readonly name: string;
  readonly path: string;
  /** Imports left out of the bundle (the client itself: it is the user's, a peer dependency). */
  readonly external: readonly string[];
  readonly budget?: number;
  /** Issue 17's target for this bundle, min+gzip bytes (esbuild, `gzip -9`; RESULTS.md's Targets). */
  readonly target?: number;
}

// The adapters are measured as a user imports them: the adapter function alone (src/size/*-only.ts), so that the
// opt-in CircuitBreaker and BackoffMetrics, which the packages also export, count only where they are used.
export const SIZE_ENTRIES: readonly SizeEntry[] = [
  {
    name: 'axios-backoff (with backoff-core)',
    path: 'src/size/axios-backoff-only.ts',
    external: ['axios'],
    // 9409 with issues 13-16 together (6886 before them): the breaker/metrics hooks (their classes tree-shake
    // away), the key read back from the sent request, async hooks, RateLimit drafts, not-sent, server hints, offline.
    // 8640 after issue 17's size work on the core; 8889 with issue 17's per-request work (one retrying adapter per
    // installation, the attempt released before the wait). 8769 after issue 15's lean pass (the breaker and
    // metrics cost it 138 B unused, 253 B before). 8679 after issue 17's second size pass (-98 B: shorter
    // installation errors, the instance check, five smaller core cuts). 8886 with issue 17's lean success path
    // (+207 B: a request that succeeds at once starts no RetryState; the core's startsLate/firstSuccess, the
    // adapter's key-header scan). 8911 with startsLate's 'get' spelt out (+25 B, ~0.08 µs per GET).
    budget: 9020,
    target: 4000,
  },
  {
    name: 'ky-backoff (with backoff-core)',
    path: 'src/size/ky-backoff-only.ts',
    external: ['ky'],
    // 10518 with issues 13-16 together (7190 before them); issue 13's ride on ky's loop is ~0.7 kB of it.
    // 9735 after issue 17's size work on the core (with main's ky fix 59345f7); 9866 with i13cost. 9756 after
    // issue 15's lean pass (the breaker and metrics cost it 60 B unused, 165 B before). 9634 after issue 17's
    // second size pass (-128 B, -80 B of it from shorter errors for a wrong instance and replaced retry fields).
    // 9653 with the call found through its bound shouldRetry, off ky's per-call retry object (+19 B).
    budget: 9780,
    target: 4000,
  },
  {
    name: 'axios-backoff + CircuitBreaker + BackoffMetrics',
    path: 'src/size/axios-backoff-resilience.ts',
    external: ['axios'],
    // 12208 after issues 13-16, 11628 after issue 17 (size and per-request work); 11837 after issue 15's lean pass
    // (the watched retry state of watch.ts); 11742 after issue 17's second size pass, 11953 with its lean success
    // path.
    budget: 12_130,
  },
  {
    name: 'ky-backoff + CircuitBreaker + BackoffMetrics',
    path: 'src/size/ky-backoff-resilience.ts',
    external: ['ky'],
    // 13310 after issues 13-16, 12475 after issue 17, 12608 with i13cost; 12819 after issue 15's lean pass;
    // 12701 after issue 17's second size pass.
    budget: 12_890,
  },
  // What a user who calls only `withBackoff(fetch)` ships (issue 17): 8268 before issue 17, 7490 after; 7463 after
  // issue 15's lean pass; 7419 after issue 17's second size pass.
  {
    name: 'withBackoff (backoff-core)',
    path: 'src/size/with-backoff-only.ts',
    external: [],
    budget: 7530,
    target: 3500,
  },
  // The whole package, CircuitBreaker and BackoffMetrics included (6090 before issue 15, 11377 after 13-16, 10551
  // after issue 17, 10615 on main before issue 15's lean pass, 10836 after it, 10790 after issue 17's second size
  // pass, 10928 with startsLate/firstSuccess, which only axios-backoff's bundle keeps).
  { name: 'backoff-core', path: '../packages/backoff-core/src/index.ts', external: [], budget: 11_090 },
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
