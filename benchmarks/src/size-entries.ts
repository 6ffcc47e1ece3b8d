/**
 * The bundles that are measured and budgeted (`pnpm size`, src/size-check.ts), each a tiny entry written as a user
 * writes it. The budgets are all here: each is the measured min+gzip bytes (entry plus its statically imported
 * chunks) x 1.10, rounded up to 10 bytes, so that a readability change does not fail on 15 bytes. Raise one only
 * with a reason, say in the commit what moved it, and take the new value from `pnpm size -- --budgets`.
 */
export interface SizeEntry {
  readonly name: string;
  /** The entry module's source (ES module), bundled as the user's own file. */
  readonly code: string;
  /** Imports left out of the bundle (the client itself: it is the user's, a peer dependency). */
  readonly external: readonly string[];
  /** A package's default import, one feature on one, or a reference measured only (no budget). */
  readonly kind: 'default' | 'feature' | 'reference';
  /**
   * The build a bundler makes of our packages: `process.env.NODE_ENV` replaced by `'production'` (short error
   * messages, a link to docs/errors.md) or `'development'` (every message in full).
   */
  readonly mode: 'production' | 'development';
  /** The default entry this one adds a feature to: its added cost is the difference. */
  readonly base?: string;
  /** min+gzip bytes the entry and its static chunks may weigh; entries without one are measured only. */
  readonly budget?: number;
}

/** A package's default import, and how a user of it passes options (`OPTIONS` is replaced by the feature's). */
interface Client {
  readonly name: string;
  readonly external: readonly string[];
  readonly imports: string;
  readonly code: (names: string, options: string) => string;
}

const CLIENTS: readonly Client[] = [
  {
    name: 'withBackoff',
    external: [],
    imports: 'withBackoff',
    code: (names, options) =>
      `import { ${names} } from 'backoff-core';\nexport default withBackoff(fetch${options});`,
  },
  {
    name: 'axiosBackoff',
    external: ['axios'],
    imports: 'axiosBackoff',
    code: (names, options) =>
      `import axios from 'axios';\nimport { ${names} } from 'axios-backoff';\n` +
      `axiosBackoff(axios${options});\nexport default axios;`,
  },
  {
    name: 'kyBackoff',
    external: ['ky'],
    imports: 'kyBackoff',
    code: (names, options) =>
      `import ky from 'ky';\nimport { ${names} } from 'ky-backoff';\nexport default kyBackoff(ky${options});`,
  },
];

/** Each opt-in feature as a user turns it on: what it imports (from the package) and the option it sets. */
interface FeatureUse {
  readonly name: string;
  readonly imports?: string;
  /** Other modules the user's file imports for it (external: the user's own dependency). */
  readonly preamble?: string;
  readonly external?: readonly string[];
  readonly option: string;
}

const FEATURES: readonly FeatureUse[] = [
  { name: 'Hedge', imports: 'Hedge', option: 'hedge: new Hedge({ delay: 100 })' },
  { name: 'Pacer', imports: 'Pacer', option: 'pacer: new Pacer()' },
  { name: 'CircuitBreaker', imports: 'CircuitBreaker', option: 'circuitBreaker: new CircuitBreaker()' },
  { name: 'BackoffMetrics', imports: 'BackoffMetrics', option: 'metrics: new BackoffMetrics()' },
  { name: 'resume', option: 'resume: true' },
  {
    name: 'tracer',
    preamble: "import { trace } from '@opentelemetry/api';\n",
    external: ['@opentelemetry/api'],
    option: "tracer: trace.getTracer('app')",
  },
];

/** The budgets, by entry name: measured x 1.10, rounded up to 10 bytes (see the top of this file). */
export const BUDGETS: Readonly<Record<string, number>> = {
  withBackoff: 16_070,
  axiosBackoff: 18_890,
  kyBackoff: 20_520,
  'withBackoff + Hedge': 17_170,
  'withBackoff + Pacer': 20_330,
  'withBackoff + CircuitBreaker': 19_340,
  'withBackoff + BackoffMetrics': 17_930,
  'withBackoff + resume': 16_070,
  'withBackoff + tracer': 16_110,
  'axiosBackoff + Hedge': 19_980,
  'axiosBackoff + Pacer': 23_170,
  'axiosBackoff + CircuitBreaker': 22_160,
  'axiosBackoff + BackoffMetrics': 20_750,
  'axiosBackoff + resume': 18_890,
  'axiosBackoff + tracer': 18_930,
  'kyBackoff + Hedge': 21_610,
  'kyBackoff + Pacer': 24_850,
  'kyBackoff + CircuitBreaker': 23_850,
  'kyBackoff + BackoffMetrics': 22_380,
  'kyBackoff + resume': 20_530,
  'kyBackoff + tracer': 20_570,
  'withBackoff (development)': 17_830,
  'axiosBackoff (development)': 21_080,
  'kyBackoff (development)': 22_630,
  'withBackoff + Hedge (development)': 18_930,
  'withBackoff + Pacer (development)': 22_110,
  'withBackoff + CircuitBreaker (development)': 21_110,
  'withBackoff + BackoffMetrics (development)': 19_690,
  'withBackoff + resume (development)': 17_840,
  'withBackoff + tracer (development)': 17_870,
  'axiosBackoff + Hedge (development)': 22_170,
  'axiosBackoff + Pacer (development)': 25_590,
  'axiosBackoff + CircuitBreaker (development)': 24_550,
  'axiosBackoff + BackoffMetrics (development)': 22_930,
  'axiosBackoff + resume (development)': 21_080,
  'axiosBackoff + tracer (development)': 21_120,
  'kyBackoff + Hedge (development)': 23_740,
  'kyBackoff + Pacer (development)': 26_970,
  'kyBackoff + CircuitBreaker (development)': 25_960,
  'kyBackoff + BackoffMetrics (development)': 24_540,
  'kyBackoff + resume (development)': 22_630,
  'kyBackoff + tracer (development)': 22_670,
};

/** The name of an entry in the development build: the production one's, marked. */
export const development = (name: string): string => `${name} (development)`;

function entry(
  kind: SizeEntry['kind'],
  name: string,
  code: string,
  external: readonly string[],
  base?: string,
  mode: SizeEntry['mode'] = 'production',
): SizeEntry {
  const budget = kind === 'reference' ? undefined : BUDGETS[name];
  return { name, code, external, kind, mode, ...(base && { base }), ...(budget !== undefined && { budget }) };
}

/** The default import of each package and each feature on each, as a production build bundles them. */
const OURS: readonly SizeEntry[] = [
  ...CLIENTS.map((client) => entry('default', client.name, client.code(client.imports, ''), client.external)),
  ...CLIENTS.flatMap((client) =>
    FEATURES.map((feature) =>
      entry(
        'feature',
        `${client.name} + ${feature.name}`,
        (feature.preamble ?? '') +
          client.code(
            feature.imports ? `${client.imports}, ${feature.imports}` : client.imports,
            `, { ${feature.option} }`,
          ),
        [...client.external, ...(feature.external ?? [])],
        client.name,
      ),
    ),
  ),
];

/**
 * Ours in both builds (production first, then development), then the measured-only references: the peers have no
 * development build of their own, their messages are as short in both.
 */
export const SIZE_ENTRIES: readonly SizeEntry[] = [
  ...OURS,
  ...OURS.map((ours) =>
    entry(
      ours.kind,
      development(ours.name),
      ours.code,
      ours.external,
      ours.base && development(ours.base),
      'development',
    ),
  ),
  // Everything the core exports: every feature at once.
  entry('reference', 'backoff-core (every export)', "export * from 'backoff-core';", []),
  // The adapters' own code alone: what they weigh on top of a core the page already has.
  entry('reference', 'axios-backoff alone (core external)', "export * from 'axios-backoff';", [
    'axios',
    'backoff-core',
  ]),
  entry('reference', 'ky-backoff alone (core external)', "export * from 'ky-backoff';", [
    'ky',
    'backoff-core',
  ]),
  entry(
    'reference',
    'axios-retry 4.5.0',
    "import axios from 'axios';\nimport axiosRetry from 'axios-retry';\naxiosRetry(axios);\nexport default axios;",
    ['axios'],
  ),
  entry(
    'reference',
    'retry-axios 4.0.3',
    "import axios from 'axios';\nimport * as rax from 'retry-axios';\nrax.attach(axios);\nexport default axios;",
    ['axios'],
  ),
  // Retry for any promise, not HTTP: what a fetch user might pick instead of withBackoff.
  entry(
    'reference',
    'p-retry 9.0.0',
    "import pRetry from 'p-retry';\nexport default (run) => pRetry(run, { retries: 3 });",
    [],
  ),
  entry(
    'reference',
    'cockatiel 4.0.0',
    "import { ExponentialBackoff, handleAll, retry } from 'cockatiel';\n" +
      'export default retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() });',
    [],
  ),
  // The client kyBackoff adds to, with its own retry: what a ky user already ships.
  entry('reference', 'ky 2.1.0', "export { default } from 'ky';", []),
];

/**
 * Source modules of the opt-in features, by path under backoff-core/src: a default entry must hold none of them
 * (everything under `features/`: hedging, the pacer, the breaker, the metrics, the tab store, body resume, tracing;
 * and the runner's continuation of a cut body). Two exceptions, each a few lines every policy holds:
 * `features/resume/options.ts`, the `resume` option's validation (an option the core declares is checked by the
 * core, so that its error names it); and `features/resume/errors.ts`, the `ResumeError` class the package exports
 * (a caller's `instanceof` must not load the rest).
 */
export const FEATURE_MODULES: readonly RegExp[] = [
  /backoff-core\/src\/features\/(?!resume\/(options|errors)\.ts$)/,
  /backoff-core\/src\/run\/continue/,
];

/**
 * Words of each opt-in feature's code that a minifier keeps (error names and messages, header and attribute names,
 * registered symbols' keys), none of which the rest of the core says: a default entry's code (the entry and its
 * static chunks) may hold none of them. Reading the code, not the modules, finds a feature's part that sits in a
 * module of the core.
 */
export const FEATURE_WORDS: Readonly<Record<string, readonly string[]>> = {
  Hedge: ['CopyNotSentError', 'Another copy of this request answered first'],
  Pacer: ['PacerDeadlineError'],
  CircuitBreaker: ['CircuitOpenError'],
  BackoffMetrics: ['backoff.call.attempts'],
  // The runner's continuation of a cut body, and the live result the caller's response then carries.
  resume: ['Last-Event-ID', 'If-Range', 'nodejs.util.inspect.custom'],
  tracer: ['@opentelemetry/api', 'backoff-core attempt attributes', 'backoff.hedge.copy'],
};

/**
 * The esbuild options of every measured bundle: what a user's bundler does for a browser (bundle, minify,
 * tree-shake, split the lazily imported code into chunks), workspace packages resolved to their TypeScript sources.
 */
export const ESBUILD_OPTIONS = {
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  conditions: ['@backoff/source'],
} as const;
