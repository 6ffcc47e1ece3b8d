// `pnpm --filter @backoff/benchmarks size:variants`: what each default behaviour costs in the production bundle of
// each default import. Each variant swaps one module of backoff-core for a stub with the same exports that leaves
// the behaviour out (a study only: the stubs are not what ships), and reads the bundle's min+gzip bytes against the
// bundle as it ships, built in the same run: the bytes saved and the ratio.
import type { Plugin } from 'esbuild';
import { bundle } from './bundle.js';
import { SIZE_ENTRIES } from './size-entries.js';
import { fixed, markdownTable } from './table.js';

/** One behaviour left out: the modules swapped (path under backoff-core/src/ -> the stub's source). */
interface Variant {
  readonly name: string;
  readonly stubs: Readonly<Record<string, string>>;
}

const VARIANTS: readonly Variant[] = [
  {
    name: 'HTTP-dates through `Date.parse` (no strict IMF/RFC 850/asctime parsing)',
    stubs: {
      'http/http-date.ts':
        'export function parseHttpDate(v) { const t = Date.parse(v); return Number.isNaN(t) ? undefined : t; }',
    },
  },
  {
    name: 'Retry-After in seconds only (no HTTP-date, RateLimit, X-RateLimit-*, retry-after-ms)',
    stubs: {
      'decide/server-timing.ts': `import { headerGetter } from '../http/headers.js';
        export function parseRetryAfter(h) { const v = headerGetter(h)('retry-after'); return v && /^\\d+$/.test(v) ? v * 1000 : undefined; }
        export function parseRateQuota() { return undefined; }`,
    },
  },
  {
    name: 'no proof that a failed request was never sent (unsafe methods never retried on network errors)',
    stubs: {
      'http/not-sent.ts': `export function field(v, k) { return typeof v === 'object' && v !== null ? v[k] : undefined; }
        export function* chain(e) { yield e; }
        export function isNotSentCode() { return false; }
        export function provesNotSent() { return false; }
        export function fetchRedirected() { return undefined; }`,
    },
  },
  {
    name: 'no retry budget (`budget` option and RetryBudget)',
    stubs: {
      'run/budget.ts': `export const checkBudget = () => undefined;
        export class RetryBudget {}
        export function isRetryBudget() { return false; }`,
    },
  },
  {
    name: 'no wait for the network to come back (offline)',
    stubs: {
      'run/offline.ts': `export function browserNetworkStatus() { return undefined; }
        export function waitForNetwork() { return Promise.resolve('online'); }`,
    },
  },
  {
    name: 'no `resume` option check (the option and its defaults)',
    stubs: {
      'features/resume/options.ts':
        'export const RESUME_DEFAULTS = {}; export const checkResume = () => undefined;',
    },
  },
  {
    name: 'no X-Should-Retry / Stripe-Should-Retry header',
    stubs: {
      'decide/should-retry-header.ts':
        'export const SHOULD_RETRY_HEADERS = []; export function serverShouldRetry() { return undefined; }',
    },
  },
];

/** Swaps each module of `stubs` for its stub's source. */
function stubbing(stubs: Readonly<Record<string, string>>): Plugin {
  return {
    name: 'size-variant',
    setup(build) {
      build.onLoad({ filter: /backoff-core\/src\/.*\.ts$/ }, (args) => {
        const stub = Object.entries(stubs).find(([tail]) => args.path.endsWith(`backoff-core/src/${tail}`));
        return stub === undefined
          ? undefined
          : { contents: stub[1], loader: 'ts', resolveDir: args.path.replace(/\/[^/]*$/, '') };
      });
    },
  };
}

const gzipOf = async (
  entry: (typeof SIZE_ENTRIES)[number],
  plugins: readonly Plugin[] = [],
  mode?: 'development',
) => {
  const built = await bundle(mode === undefined ? entry : { ...entry, mode }, plugins);
  return built.loaded.reduce((sum, chunk) => sum + chunk.gzipBytes, 0);
};

const defaults = SIZE_ENTRIES.filter((entry) => entry.kind === 'default' && entry.mode === 'production');
const rows: string[][] = [];
const shipped = new Map<string, number>();
for (const entry of defaults) shipped.set(entry.name, await gzipOf(entry));
const cell = (bytes: number, base: number) =>
  `${fixed(bytes)} (−${fixed(base - bytes)}, ${(bytes / base).toFixed(3)}x)`;
rows.push(['as it ships', ...defaults.map((entry) => fixed(shipped.get(entry.name) as number))]);
for (const variant of VARIANTS) {
  const cells: string[] = [];
  for (const entry of defaults) {
    cells.push(cell(await gzipOf(entry, [stubbing(variant.stubs)]), shipped.get(entry.name) as number));
  }
  rows.push([variant.name, ...cells]);
}
const development: string[] = [];
for (const entry of defaults) {
  const bytes = await gzipOf(entry, [], 'development');
  development.push(`${fixed(bytes)} (+${fixed(bytes - (shipped.get(entry.name) as number))})`);
}
rows.push(['the development build (every message in full)', ...development]);
console.log(
  markdownTable(
    ['variant (min+gzip bytes, saved, ratio to as it ships)', ...defaults.map((entry) => entry.name)],
    rows,
  ),
);
