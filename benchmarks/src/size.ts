import { type Bundle, bundle, type Chunk } from './bundle.js';
import { development, FEATURE_MODULES, FEATURE_WORDS, SIZE_ENTRIES, type SizeEntry } from './size-entries.js';
import { fixed, markdownTable } from './table.js';

/** One module's share of a bundle: minified bytes it puts in the output. */
export interface ModuleShare {
  readonly module: string;
  readonly bytes: number;
}

export interface SizeRow {
  readonly entry: SizeEntry;
  /** Minified bytes of the entry and its statically imported chunks. */
  readonly minBytes: number;
  /** gzip -9 of each of those files, summed: what a page that imports the entry downloads. */
  readonly gzipBytes: number;
  /** The same for the chunks reached only through `import()` (0 when there are none). */
  readonly lazyGzipBytes: number;
  /** The source modules in the counted (static) bytes, largest first. */
  readonly modules: readonly ModuleShare[];
  /** The source modules only in lazily imported chunks. */
  readonly lazyModules: readonly ModuleShare[];
  /** The minified code of the entry and its static chunks, and of the lazy chunks. */
  readonly code: string;
  readonly lazyCode: string;
}

export interface SizeResult {
  readonly rows: readonly SizeRow[];
  readonly esbuildVersion: string;
  readonly seconds: number;
}

/** A readable module name: the package and its path, without the workspace or node_modules prefix. */
export function moduleName(path: string): string {
  if (path.startsWith('size-entry:')) return "(the entry's own code)";
  return path
    .replace(/^\.\.\/packages\//, '')
    .replace(/^(?:.*\/)?node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '');
}

function shares(chunks: readonly Chunk[]): ModuleShare[] {
  const bytes = new Map<string, number>();
  for (const chunk of chunks) {
    for (const [path, n] of Object.entries(chunk.inputs)) {
      const module = moduleName(path);
      bytes.set(module, (bytes.get(module) ?? 0) + n);
    }
  }
  return [...bytes].map(([module, n]) => ({ module, bytes: n })).sort((a, b) => b.bytes - a.bytes);
}

const sum = (chunks: readonly Chunk[], of: (chunk: Chunk) => number) =>
  chunks.reduce((total, chunk) => total + of(chunk), 0);

export function sizeRow(entry: SizeEntry, built: Bundle): SizeRow {
  return {
    entry,
    minBytes: sum(built.loaded, (chunk) => chunk.minBytes),
    gzipBytes: sum(built.loaded, (chunk) => chunk.gzipBytes),
    lazyGzipBytes: sum(built.lazy, (chunk) => chunk.gzipBytes),
    modules: shares(built.loaded),
    lazyModules: shares(built.lazy),
    code: built.loaded.map((chunk) => chunk.code).join('\n'),
    lazyCode: built.lazy.map((chunk) => chunk.code).join('\n'),
  };
}

/** Measures every entry (or those given): each bundled alone, in parallel. */
export async function runSize(entries: readonly SizeEntry[] = SIZE_ENTRIES): Promise<SizeResult> {
  const started = performance.now();
  const rows = await Promise.all(entries.map(async (entry) => sizeRow(entry, await bundle(entry))));
  const { version } = await import('esbuild');
  return { rows, esbuildVersion: version, seconds: (performance.now() - started) / 1000 };
}

/** A feature's module in the row's counted bytes (none may be in a default entry's). */
export function featureModules(row: SizeRow): string[] {
  return row.modules
    .map((share) => share.module)
    .filter((module) => FEATURE_MODULES.some((pattern) => pattern.test(module)));
}

/** The words of each feature (see `FEATURE_WORDS`) in `code`, as `feature: word`. */
export function featureWords(code: string): string[] {
  return Object.entries(FEATURE_WORDS).flatMap(([feature, words]) =>
    words.filter((word) => code.includes(word)).map((word) => `${feature}: ${word}`),
  );
}

/** The budget a measured size gets: x 1.10, rounded up to 10 bytes. */
export const budgetFor = (gzipBytes: number): number => Math.ceil((gzipBytes * 1.1) / 10) * 10;

/** What a row adds over its default entry, in min+gzip bytes (undefined for a default entry). */
export function addedBytes(result: SizeResult, row: SizeRow): number | undefined {
  const base = result.rows.find((other) => other.entry.name === row.entry.base);
  return base === undefined ? undefined : row.gzipBytes - base.gzipBytes;
}

/** Entries over their budget. */
export const overBudget = (result: SizeResult): SizeRow[] =>
  result.rows.filter((row) => row.entry.budget !== undefined && row.gzipBytes > row.entry.budget);

const signed = (n: number) => `${n >= 0 ? '+' : '−'}${fixed(Math.abs(n))}`;

export function sizeTable(result: SizeResult): string {
  const rows = result.rows.map((row) => {
    const added = addedBytes(result, row);
    return [
      row.entry.name,
      fixed(row.minBytes),
      fixed(row.gzipBytes),
      added === undefined ? '' : signed(added),
      row.lazyGzipBytes === 0 ? '' : fixed(row.lazyGzipBytes),
      row.entry.budget === undefined ? '' : fixed(row.entry.budget),
    ];
  });
  return markdownTable(
    ['entry', 'min bytes', 'min+gzip bytes', 'added over the default', 'lazy chunks (min+gzip)', 'budget'],
    rows,
    ['l', 'r', 'r', 'r', 'r', 'r'],
  );
}

/**
 * The modules of one entry's counted bytes. A default entry lists every module; a feature's entry lists only the
 * modules it adds or changes over its default, which is where the feature's cost is.
 */
export function moduleTable(result: SizeResult, row: SizeRow): string {
  const base = result.rows.find((other) => other.entry.name === row.entry.base);
  const before = new Map(base?.modules.map((share) => [share.module, share.bytes]));
  const lines = row.modules
    .filter((share) => base === undefined || before.get(share.module) !== share.bytes)
    .map((share) => {
      const was = before.get(share.module);
      const cells = [share.module, fixed(share.bytes)];
      return base === undefined ? cells : [...cells, signed(share.bytes - (was ?? 0))];
    });
  const lazy = row.lazyModules.map((share) => [
    `${share.module} (lazy chunk, not counted)`,
    fixed(share.bytes),
    ...(base === undefined ? [] : ['']),
  ]);
  if (base === undefined) {
    return markdownTable(['module (every one counted)', 'minified bytes'], [...lines, ...lazy], ['l', 'r']);
  }
  return markdownTable(
    [`module (added or changed over ${base.entry.name})`, 'minified bytes', 'change'],
    [...lines, ...lazy],
    ['l', 'r', 'r'],
  );
}

/** The bytes the defaults weighed before the features were taken out of them (min+gzip, from the old measure). */
export const BEFORE: Readonly<Record<string, number>> = {
  withBackoff: 10_717,
  axiosBackoff: 12_050,
  kyBackoff: 13_517,
};

/** Where the size goes, per core module: what each holds (read from the sources) and how it could shrink. */
const SIZE_IDEAS: Readonly<Record<string, string>> = {
  'backoff-core/src/options/validate.ts':
    'the option defaults and their validation, one table of checks (check.ts); in production each message is ' +
    "short (the option, what it got, a link), the peers' names and the long advice left out. What remains of " +
    "the development text is each check's own words (`an integer from 0 to 100`), computed but unused in " +
    'production; fewer options would be the next cut.',
  'backoff-core/src/run/decide.ts':
    'the decide step: the shouldRetry and delay contexts, the features told, the limits. Much of it is public ' +
    'property names, which minifiers keep; little to cut without changing the API.',
  'backoff-core/src/run/send.ts':
    "the send step: beforeAttempt's context and its header checks (their advice development text only), " +
    'attemptTimeout, the watched send.',
  'backoff-core/src/run/run.ts':
    'the loop: gates, send, decide, wait, and the stop that ends a call; the lost-key message is development text.',
  'backoff-core/src/decide/rules.ts':
    'the method/body/retries/Retry-After gates and the computed wait, then the deadline/circuit/budget limits; ' +
    'each a few lines, with little to cut.',
  'backoff-core/src/http/http-date.ts':
    'the three HTTP-date forms as strict regexes, the RFC 850 two-digit-year rule and a round-trip check. ' +
    'IMF-fixdate alone (what servers send) plus `Date.parse` for the rest would be a fraction of it.',
  'backoff-core/src/decide/server-timing.ts':
    'RateLimit, RateLimit-Reset, X-RateLimit-Reset, X-Rate-Limit-Reset and retry-after-ms parsing. Only ' +
    'Retry-After is standard: the others could be an opt-in parser passed in the options (tree-shaken when unused).',
  'backoff-core/src/run/budget.ts':
    'the RetryBudget class with its own validation messages and `snapshot()`.',
  'backoff-core/src/http/outcome.ts':
    '`classifyError`: about twenty error-code strings in three sets, the TLS-code and fetch-message regexes.',
  'backoff-core/src/decide/idempotency.ts':
    'key generation, including a UUID fallback for runtimes without `crypto.randomUUID` (browsers outside ' +
    'secure contexts; about 0.1 kB gzip); Node >= 22 always has it. What is wrong with a bad key is ' +
    'development text: production checks the key with the two patterns and names only the code.',
};

/** What users pick instead, read beside the default imports (their messages are as short in any build). */
export const PEERS: readonly string[] = [
  'axios-retry 4.5.0',
  'retry-axios 4.0.3',
  'p-retry 9.0.0',
  'cockatiel 4.0.0',
  'ky 2.1.0',
];

/** RESULTS.md's size section (`pnpm size -- --write`). */
export function sizeSection(result: SizeResult): string {
  const defaults = result.rows.filter((row) => BEFORE[row.entry.name] !== undefined);
  const gzip = (name: string) => result.rows.find((row) => row.entry.name === name)?.gzipBytes;
  const before = defaults.map((row) => {
    const was = BEFORE[row.entry.name] ?? 0;
    const dev = gzip(development(row.entry.name));
    return [
      row.entry.name,
      fixed(was),
      dev === undefined ? '' : fixed(dev),
      fixed(row.gzipBytes),
      signed(row.gzipBytes - was),
    ];
  });
  const peers = PEERS.flatMap((name) => {
    const bytes = gzip(name);
    return bytes === undefined ? [] : [[name, fixed(bytes)]];
  });
  return [
    '## Size',
    '',
    `\`pnpm size\` (esbuild ${result.esbuildVersion}). Each entry is a tiny file written as a user writes it ` +
      '(`benchmarks/src/size-entries.ts`), bundled for a browser: minified, tree-shaken, code split (an ' +
      '`import()` becomes a chunk of its own), workspace packages from their TypeScript sources, the client ' +
      '(axios / ky) external. Counted: the entry and the chunks it imports statically, `gzip -9` of each file, ' +
      'summed; chunks only reached through `import()` are listed apart. Budgets are the measured size x 1.10 ' +
      '(`pnpm size` fails above one).',
    '',
    'The default imports, before (every feature in every bundle: the previous measure, same esbuild and options, ' +
      'an entry exporting the function alone; calling it instead measures within 15 bytes of that) and now, in ' +
      'both builds a bundler makes: development (every error message in full) and production (`process.env.NODE_ENV` ' +
      "replaced by `'production'`: each check kept, its message short with a link to docs/errors.md), " +
      'min+gzip bytes:',
    '',
    markdownTable(['default import', 'before', 'development', 'production', 'production − before'], before, [
      'l',
      'r',
      'r',
      'r',
      'r',
    ]),
    '',
    'Beside the peers (the same bundle of each, as published; ky is the client itself, its own retry included):',
    '',
    markdownTable(['peer', 'min+gzip bytes'], peers, ['l', 'r']),
    '',
    'Every other row below is the production build; `(development)` marks the same entry in the development build.',
    '',
    'What each feature adds when it is used (min+gzip bytes; `resume` and `tracer` are options, not imports: what ' +
      'they add is what the core loads for them when they are set):',
    '',
    markdownTable(
      ['feature', 'added to withBackoff', 'added to axiosBackoff', 'added to kyBackoff'],
      featureCosts(result),
      ['l', 'r', 'r', 'r'],
    ),
    '',
    sizeTable(result),
    '',
    ...defaults.flatMap((row) => [`Modules of \`${row.entry.name}\`:`, '', moduleTable(result, row), '']),
    'Ways the core could come down, largest first (in `withBackoff`):',
    '',
    ...ideas(result),
  ]
    .join('\n')
    .trimEnd();
}

/** Each feature's added min+gzip bytes on each default import. */
export function featureCosts(result: SizeResult): string[][] {
  const features = [
    ...new Set(
      result.rows
        .filter((row) => row.entry.base !== undefined && row.entry.mode === 'production')
        .map((row) => row.entry.name.split(' + ')[1]),
    ),
  ];
  return features.map((feature) => [
    feature ?? '',
    ...Object.keys(BEFORE).map((base) => {
      const row = result.rows.find((r) => r.entry.name === `${base} + ${feature}`);
      const added = row === undefined ? undefined : addedBytes(result, row);
      return added === undefined ? '' : `${signed(added)} B`;
    }),
  ]);
}

/** SIZE_IDEAS for the core modules of `withBackoff`'s bundle, largest first. */
function ideas(result: SizeResult): string[] {
  const row = result.rows.find((r) => r.entry.name === 'withBackoff');
  const core = (row?.modules ?? []).filter((m) => m.module.startsWith('backoff-core/'));
  const total = core.reduce((n, m) => n + m.bytes, 0);
  return core
    .filter((m) => SIZE_IDEAS[m.module] !== undefined)
    .map(
      (m) =>
        `- \`${m.module}\` — ${fixed(m.bytes)} B min (${Math.round((m.bytes / total) * 100)}% of the core): ${SIZE_IDEAS[m.module]}`,
    );
}
