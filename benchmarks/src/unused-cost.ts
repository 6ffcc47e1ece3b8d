/**
 * What the circuit breaker and the metrics (issue 15) cost a user who does not use them: each adapter-only bundle
 * (src/size/*-only.ts, as `pnpm size` measures it) is built twice with the same esbuild options, once from the
 * sources as they are and once with the breaker/metrics support cut out of them, and the two are compared (min
 * and `gzip -9`). Issue 15's target: at most 100 bytes min+gzip per adapter bundle.
 *
 * The method. The second build runs an esbuild plugin that applies `WITHOUT_SUPPORT` to the sources as they load:
 * exact text edits that remove what the feature adds to code every bundle carries (the two options and their
 * check, the policy's choice of a watched retry state, axios's wrapping of a refused call in an AxiosError),
 * leaving the code as it would read had the feature never been written. Each edit must match exactly once and
 * every edit must be used by some bundle, and the stripped bundles must hold none of the feature's names: so the
 * measure fails loudly instead of drifting when the sources change (update the edits with them). A stub or a
 * `define` would leave call sites and branches behind and measure less than the feature costs; checking out the
 * code from before the feature would measure every change made since.
 *
 * Run: `pnpm --filter @backoff/benchmarks unused-cost` (the size measure of `pnpm bench` reports it too).
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { bundle, gzipSize } from './bundle.js';
import type { SizeEntry } from './size-entries.js';
import { fixed, markdownTable } from './table.js';

/** Issue 15: an adapter-only bundle grows by at most this many bytes (min+gzip) when neither feature is used. */
export const UNUSED_COST_TARGET_BYTES = 100;

/** The bundles measured: what a user who imports only the adapter (or only `withBackoff`) ships. */
export const UNUSED_COST_ENTRIES: readonly Pick<SizeEntry, 'name' | 'path' | 'external'>[] = [
  { name: 'axiosBackoff only', path: 'src/size/axios-backoff-only.ts', external: ['axios'] },
  { name: 'kyBackoff only', path: 'src/size/ky-backoff-only.ts', external: ['ky'] },
  { name: 'withBackoff only', path: 'src/size/with-backoff-only.ts', external: [] },
];

/**
 * The breaker/metrics support in code that every bundle carries, as edits `[from, to]` per source file (path
 * from packages/). Everything else of the feature (CircuitBreaker, BackoffMetrics, the watched retry state of
 * watch.ts) is reachable only from those classes and tree-shakes away on its own. Left in: the `expected`
 * parameter of check.ts's `withMethods`, which only this check passes (a few bytes).
 */
export const WITHOUT_SUPPORT: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  'backoff-core/src/validate.ts': [
    // The two options and their check: without them, each would be an unknown option.
    ["const watchable = withMethods(['watcher'], true, 'an instance');\n", ''],
    ['  circuitBreaker: watchable,\n  metrics: watchable,\n', ''],
  ],
  'backoff-core/src/backoff.ts': [
    // The policy's choice of the breaker's or the metrics' retry state class.
    ['  const State = (options.circuitBreaker ?? options.metrics)?.watcher(options) ?? RetryState;\n', ''],
    ['new State(options, budget, request)', 'new RetryState(options, budget, request)'],
  ],
  'backoff-core/src/first-try.ts': [
    // A watched request needs its state from the start (issue 17's late start is for unwatched policies).
    ['    !options.circuitBreaker &&\n    !options.metrics &&\n', ''],
  ],
  'axios-backoff/src/retry-adapter.ts': [
    // A refused call as an AxiosError (code ERR_CIRCUIT_OPEN, the CircuitOpenError as cause), at its two exits.
    ['  AxiosError,\n', ''],
    ['cancellation(config) ?? circuitOpen(reason, config)', 'cancellation(config) ?? reason'],
    ['Promise.reject(circuitOpen(error, config))', 'Promise.reject(error)'],
    [
      `function circuitOpen(error: unknown, config: InternalAxiosRequestConfig): unknown {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_CIRCUIT_OPEN') return error;
  const wrapped = new AxiosError((error as Error).message, 'ERR_CIRCUIT_OPEN', config);
  wrapped.cause = error as Error;
  return withResult(wrapped, getBackoffResult(error) as BackoffResult);
}`,
      '',
    ],
  ],
};

/** Names only the feature puts in an always-loaded bundle: none may be left once its support is cut out. */
const FEATURE_NAMES = ['circuitBreaker', 'watcher', 'ERR_CIRCUIT_OPEN'];

const PACKAGES_DIR = fileURLToPath(new URL('../../packages/', import.meta.url));

/** The esbuild plugin that loads the sources with `edits` applied; `used` collects the edits it applied. */
function withoutSupport(edits: typeof WITHOUT_SUPPORT, used: Set<string>): Plugin {
  return {
    name: 'without-breaker-and-metrics-support',
    setup(build) {
      build.onLoad({ filter: /[\\/]packages[\\/].*[\\/]src[\\/].*\.ts$/ }, async (args) => {
        const file = args.path.replaceAll('\\', '/').split('/packages/').pop() ?? '';
        const list = edits[file];
        if (list === undefined) return undefined;
        let text = await readFile(`${PACKAGES_DIR}${file}`, 'utf8');
        for (const [from, to] of list) {
          const found = text.split(from).length - 1;
          if (found !== 1) {
            throw new Error(
              `unused-cost: expected one match in packages/${file}, found ${found}, for:\n${from}\n` +
                '(the sources changed: update WITHOUT_SUPPORT in benchmarks/src/unused-cost.ts with them)',
            );
          }
          text = text.replace(from, () => to);
          used.add(`${file}: ${from}`);
        }
        return { contents: text, loader: 'ts' };
      });
    },
  };
}

export interface UnusedCostRow {
  readonly name: string;
  /** The bundle as `pnpm size` builds it: min and min+gzip bytes. */
  readonly withMin: number;
  readonly withGzip: number;
  /** The same bundle with the breaker/metrics support cut out. */
  readonly withoutMin: number;
  readonly withoutGzip: number;
}

/** Builds every entry with and without the support (see the file's comment) and returns the sizes. */
export async function runUnusedCost(
  entries: typeof UNUSED_COST_ENTRIES = UNUSED_COST_ENTRIES,
  edits: typeof WITHOUT_SUPPORT = WITHOUT_SUPPORT,
): Promise<UnusedCostRow[]> {
  const used = new Set<string>();
  const rows: UnusedCostRow[] = [];
  for (const entry of entries) {
    const [withSupport, without] = await Promise.all([
      bundle(entry),
      bundle(entry, [withoutSupport(edits, used)]),
    ]);
    const text = new TextDecoder().decode(without.file.contents);
    const left = FEATURE_NAMES.filter((name) => text.includes(name));
    if (left.length > 0) {
      throw new Error(`unused-cost: ${entry.name} without the support still holds ${left.join(', ')}.`);
    }
    rows.push({
      name: entry.name,
      withMin: withSupport.file.contents.byteLength,
      withGzip: gzipSize(withSupport.file.contents),
      withoutMin: without.file.contents.byteLength,
      withoutGzip: gzipSize(without.file.contents),
    });
  }
  const unused = Object.entries(edits).flatMap(([file, list]) =>
    list.map(([from]) => `${file}: ${from}`).filter((edit) => !used.has(edit)),
  );
  if (unused.length > 0) throw new Error(`unused-cost: edits no bundle used:\n${unused.join('\n')}`);
  return rows;
}

export function unusedCostTable(rows: readonly UnusedCostRow[]): string {
  return markdownTable(
    ['bundle', 'min+gzip', 'without the support', 'cost', 'min', 'without', 'cost (min)', 'target'],
    rows.map((row) => {
      const cost = row.withGzip - row.withoutGzip;
      return [
        row.name,
        fixed(row.withGzip),
        fixed(row.withoutGzip),
        fixed(cost),
        fixed(row.withMin),
        fixed(row.withoutMin),
        fixed(row.withMin - row.withoutMin),
        row.name.startsWith('withBackoff')
          ? ''
          : `≤ ${UNUSED_COST_TARGET_BYTES} (${cost <= UNUSED_COST_TARGET_BYTES ? 'met' : 'missed'})`,
      ];
    }),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(
    'What the circuit breaker and metrics cost when unused (bytes; esbuild minified, gzip -9; "without": the\n' +
      'same bundle with their support cut out of the sources, see benchmarks/src/unused-cost.ts):\n',
  );
  console.log(unusedCostTable(await runUnusedCost()));
}
