// The pack-and-install smoke test: what a user gets from npm, checked the way a user meets it. Each published
// package is packed with `pnpm pack` (as `pnpm publish` would send it), the tarballs are installed with npm into
// a temporary ESM project and a temporary CommonJS project (in os.tmpdir(), far from this repo's node_modules),
// with the peers at the versions this repo tests with, and then in each project: plain Node runs one real retry
// per package against a server on 127.0.0.1, and `tsc` (module nodenext) type-checks a file that uses them.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FlakyServer, startFlakyServer } from '../src/flaky-server.ts';
import { type Packed, packPublished } from '../src/pack.ts';
import { parseReadme } from '../src/readme-code.ts';
import { describeRun, npmEnv, PUBLISHED, type PublishedName, packageDir, ROOT, run } from '../src/repo.ts';

type Kind = 'esm' | 'cjs';

const FIXTURES = join(import.meta.dirname, '../fixtures');
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');

function readJson(path: string): Record<string, Record<string, string>> {
  return JSON.parse(readFileSync(path, 'utf8'));
}

// The peers at exactly the versions the adapters' own tests run (their devDependencies), so they cannot drift.
const AXIOS = readJson(join(packageDir('axios-backoff'), 'package.json')).devDependencies?.axios;
const KY = readJson(join(packageDir('ky-backoff'), 'package.json')).devDependencies?.ky;
const TYPES_NODE = readJson(join(import.meta.dirname, '../package.json')).devDependencies?.['@types/node'];
// The test kit's peer, at the version the core's own tests of it run.
const MSW = readJson(join(packageDir('backoff-core'), 'package.json')).devDependencies?.msw;

let work = '';
let packed: Record<PublishedName, Packed>;
let server: FlakyServer | undefined;
const projects = {} as Record<Kind, string>;
const installs = {} as Record<Kind, { code: number; output: string }>;

/** ky-backoff's README recipe for CommonJS with `await import('ky')`: the ```cjs block that writes it, as written. */
function kyRecipe(): string {
  const readme = 'packages/ky-backoff/README.md';
  const blocks = parseReadme(readme, readFileSync(join(ROOT, readme), 'utf8')).blocks;
  const recipe = blocks.filter((block) => block.lang === 'cjs' && block.code.includes("await import('ky')"));
  expect(recipe, `one \`\`\`cjs block with await import('ky') in ${readme}`).toHaveLength(1);
  return `${recipe[0]?.code}\nmodule.exports = { createApi };\n`;
}

/** A temporary project that depends on the tarballs and the peers, installed by npm from its cache if it can. */
async function installProject(kind: Kind): Promise<void> {
  const dir = join(work, kind);
  projects[kind] = dir;
  mkdirSync(dir);
  const dependencies: Record<string, string> = { axios: AXIOS ?? '', ky: KY ?? '', msw: MSW ?? '' };
  for (const name of PUBLISHED) dependencies[name] = `file:${packed[name].tarball}`;
  const manifest = {
    name: `backoff-smoke-${kind}`,
    private: true,
    type: kind === 'esm' ? 'module' : 'commonjs',
    dependencies,
    devDependencies: { '@types/node': TYPES_NODE },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(FIXTURES, 'run.cjs'), join(dir, 'run.cjs'));
  for (const name of ['main', 'testing']) {
    const file = `${name}.${kind === 'esm' ? 'mjs' : 'cjs'}`;
    copyFileSync(join(FIXTURES, file), join(dir, file));
  }
  for (const file of ['check.ts', 'check-error-augmentation.ts', 'check-node16.ts', 'check-testing.ts'])
    copyFileSync(join(FIXTURES, file), join(dir, file));
  const compilerOptions = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022'],
    types: ['node'],
    strict: true,
    noEmit: true,
    // The published declarations are checked too, not only their use.
    skipLibCheck: false,
  };
  // `error.backoff` exists with axios's ESM typings only (see fixtures/check-error-augmentation.ts).
  const files = kind === 'esm' ? ['check.ts', 'check-error-augmentation.ts'] : ['check.ts'];
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }, null, 2));
  // A browser app through a bundler: DOM types, no Node types; bundlers take the ESM side of the exports. The test
  // kit's file, with Node's types too (its test runs in Node, with `msw/node`).
  const bundler = {
    ...compilerOptions,
    module: 'preserve',
    moduleResolution: 'bundler',
    lib: ['es2022', 'dom', 'dom.iterable'],
    types: [],
  };
  writeFileSync(
    join(dir, 'tsconfig.bundler.json'),
    JSON.stringify({ compilerOptions: bundler, files: ['check.ts', 'check-error-augmentation.ts'] }, null, 2),
  );
  writeFileSync(
    join(dir, 'tsconfig.testing.json'),
    JSON.stringify(
      { compilerOptions: { ...bundler, types: ['node'] }, files: ['check-testing.ts'] },
      null,
      2,
    ),
  );
  // A CommonJS project on `node16` (no `require` of an ES module): ky-backoff's own recipe, `await import('ky')`,
  // in TypeScript and as the README writes it in JavaScript (checkJs).
  if (kind === 'cjs') {
    writeFileSync(join(dir, 'ky-recipe.cjs'), kyRecipe());
    const node16 = {
      ...compilerOptions,
      module: 'node16',
      moduleResolution: 'node16',
      allowJs: true,
      checkJs: true,
    };
    writeFileSync(
      join(dir, 'tsconfig.node16.json'),
      JSON.stringify({ compilerOptions: node16, files: ['check-node16.ts', 'ky-recipe.cjs'] }, null, 2),
    );
  }

  // --prefer-offline: from npm's cache when it has these versions, from the registry otherwise (a fresh CI cache).
  const result = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel=error'],
    { cwd: dir, timeout: 90_000, env: npmEnv() },
  );
  installs[kind] = { code: result.code, output: describeRun(`npm install (${kind})`, result) };
}

beforeAll(async () => {
  expect(AXIOS, 'axios version from axios-backoff devDependencies').toMatch(/^\d+\.\d+\.\d+$/);
  expect(KY, 'ky version from ky-backoff devDependencies').toMatch(/^\d+\.\d+\.\d+$/);
  work = mkdtempSync(join(tmpdir(), 'backoff-pack-smoke-'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  packed = await packPublished(tarballs);
  await Promise.all([installProject('esm'), installProject('cjs')]);
  server = await startFlakyServer(1);
}, 110_000);

afterAll(async () => {
  await server?.close();
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe('the packed tarballs', () => {
  it.each(PUBLISHED)(
    '%s has a real version (not 0.0.0), the one changesets wrote to its package.json',
    (name) => {
      const { version } = packed[name].manifest;
      expect(semver.valid(version), `version ${version}`).toBe(version);
      expect(semver.gt(version, '0.0.0'), `version ${version}`).toBe(true);
      expect(packed[name].version).toBe(version);
      expect(version).toBe(JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')).version);
    },
  );

  it.each(PUBLISHED.filter((name) => name !== 'backoff-core'))(
    '%s depends on backoff-core by a range whose lowest version is the core packed with it',
    (name) => {
      const core = packed['backoff-core'].manifest.version;
      const range = packed[name].manifest.dependencies?.['backoff-core'] ?? '';
      expect(semver.validRange(range), `range "${range}"`).not.toBeNull();
      expect(semver.satisfies(core, range), `${core} satisfies "${range}"`).toBe(true);
      // Not a range any core would do (`*`, `>=0.0.0`): it names this very version as the least it needs.
      expect(semver.minVersion(range)?.version, `the lowest version in "${range}"`).toBe(core);
    },
  );

  it.each(PUBLISHED)(
    '%s holds dist/, README.md, LICENSE, package.json and, for an adapter, MIGRATING.md only',
    (name) => {
      const files = [...packed[name].files].sort();
      // The core has more entries (`backoff-core/adapter`, `/testing`, `/outbox`, `/outbox/node`), whose shared
      // code the bundler puts in chunks; each adapter has its `outbox` entry.
      const entries =
        name === 'backoff-core'
          ? ['adapter', 'index', 'outbox', 'outbox-node', 'testing']
          : ['index', 'outbox'];
      // Each entry in dist/ (Node, and a page with no bundler) and, as ESM only, in dist/bundler/ (bundlers).
      const built = entries.flatMap((entry) => [
        ...['cjs', 'd.cts', 'd.ts', 'js'].map((ext) => `dist/${entry}.${ext}`),
        `dist/bundler/${entry}.js`,
      ]);
      // The READMEs link the guide for moving over; ky-backoff's CommonJS declarations augment ky from an ES file.
      const more = {
        'backoff-core': [],
        'axios-backoff': ['MIGRATING.md'],
        'ky-backoff': ['MIGRATING.md', 'dist/ky-augmentation.d.mts'],
      }[name];
      expect(
        files.filter((file) => !/^dist\/(?:bundler\/)?[\w-]+-[\w-]{8}\.(?:d\.c?ts|c?js)$/.test(file)),
      ).toEqual(['LICENSE', 'README.md', ...built, ...more, 'package.json'].sort());
    },
  );
});

describe.each(['esm', 'cjs'] as const)('a fresh %s project', (kind) => {
  const installed = (name: string) => join(projects[kind], 'node_modules', name);

  it('installs the tarballs and the peers with npm', () => {
    expect(installs[kind].code, installs[kind].output).toBe(0);
    expect(readJson(join(installed('axios'), 'package.json')).version).toBe(AXIOS);
    expect(readJson(join(installed('ky'), 'package.json')).version).toBe(KY);
  });

  it.each(PUBLISHED)('gets %s with a publishable package.json and the LICENSE', (name) => {
    const manifest = readJson(join(installed(name), 'package.json'));
    // publishConfig.exports replaced the repo's exports: no `@backoff/source` condition pointing at src/.
    expect(JSON.stringify(manifest.exports)).not.toContain('@backoff/source');
    // Bundlers read `module` first (dist/bundler/, where they replace process.env.NODE_ENV); Node ignores it.
    expect(manifest.exports?.['.']).toEqual({
      module: './dist/bundler/index.js',
      import: { types: './dist/index.d.ts', default: './dist/index.js' },
      require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
    });
    expect(Object.keys(manifest.exports?.['.'] ?? {})[0]).toBe('module');
    // pnpm rewrote `workspace:^` into a real range of the core's version.
    for (const range of Object.values(manifest.dependencies ?? {})) expect(range).not.toMatch(/^workspace:/);
    if (name !== 'backoff-core') {
      expect(manifest.dependencies?.['backoff-core']).toBe(`^${packed['backoff-core'].version}`);
    }
    expect(readFileSync(join(installed(name), 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
    );
  });

  it('loads every package with plain Node and makes one real retry with each (503, then 200)', async () => {
    const main = kind === 'esm' ? 'main.mjs' : 'main.cjs';
    const result = await run(process.execPath, [main, `${server?.base}/${kind}`], {
      cwd: projects[kind],
      timeout: 30_000,
    });
    expect(result.code, describeRun(`node ${main}`, result)).toBe(0);
    const output = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '');

    // The server's own count: each client sent exactly two requests.
    for (const client of ['core', 'axios', 'ky'])
      expect(server?.hits.get(`/${kind}/${client}`), client).toBe(2);
    const success = { attempts: 2, totalDelay: 0, reason: 'success', hedges: 0, hedgeWon: false };
    expect(output.core).toEqual({ status: 200, result: success });
    expect(output.axios).toEqual({ status: 200, result: success, viaSymbol: success });
    expect(output.ky).toEqual({ status: 200, result: success });
    expect(output.retries).toEqual([
      'core retry 1: status 503',
      'axios retry 1: status 503',
      'ky retry 1: status 503',
    ]);

    // Each package came from the project's own node_modules, in the module format of the project.
    const file = kind === 'esm' ? 'dist/index.js' : 'dist/index.cjs';
    for (const name of PUBLISHED) {
      expect(output.resolved[name]).toContain(`${projects[kind]}/node_modules/${name}/${file}`);
    }
    // The two builds export the same names.
    expect(output.names['backoff-core']).toContain('withBackoff');
    expect(output.names['axios-backoff']).toEqual([
      'BackoffMetrics',
      'CircuitBreaker',
      'CircuitOpenError',
      'DEFAULT_METHODS',
      'DEFAULT_STATUS_CODES',
      'Hedge',
      'Pacer',
      'ResumeError',
      'RetryBudget',
      'attemptAttributes',
      'axiosBackoff',
      'getBackoffResult',
    ]);
    expect(output.names['ky-backoff']).toEqual([
      'BackoffMetrics',
      'CircuitBreaker',
      'CircuitOpenError',
      'Hedge',
      'Pacer',
      'ResumeError',
      'RetriedResponseError',
      'RetryBudget',
      'attemptAttributes',
      'getBackoffResult',
      'kyBackoff',
    ]);
  });

  it('runs the test kit with MSW, its peer: a flaky endpoint retried on virtual time', async () => {
    const file = kind === 'esm' ? 'testing.mjs' : 'testing.cjs';
    const result = await run(process.execPath, [file], { cwd: projects[kind], timeout: 30_000 });
    expect(result.code, describeRun(`node ${file}`, result)).toBe(0);
    const output = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '');
    expect(output).toMatchObject({
      status: 200,
      result: { attempts: 3, totalDelay: 32_000, reason: 'success' },
      elapsed: 32_000,
      answers: [503, 503, 200],
    });
    expect(output.resolved).toContain(
      `${projects[kind]}/node_modules/backoff-core/dist/testing.${kind === 'esm' ? 'js' : 'cjs'}`,
    );
    expect(output.names).toEqual([
      'chaos',
      'cutBody',
      'down',
      'eventStream',
      'flaky',
      'rateLimited',
      'slow',
      'virtualTime',
    ]);
  });

  it('type-checks with tsc, module and moduleResolution nodenext', async () => {
    const result = await run(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], {
      cwd: projects[kind],
      timeout: 60_000,
    });
    expect(result.code, describeRun(`tsc (${kind}, nodenext)`, result)).toBe(0);
  });

  it.runIf(kind === 'cjs')(
    "type-checks ky-backoff's CommonJS recipe (`await import('ky')`) with module and moduleResolution node16",
    async () => {
      const result = await run(process.execPath, [TSC, '-p', 'tsconfig.node16.json', '--pretty', 'false'], {
        cwd: projects[kind],
        timeout: 60_000,
      });
      expect(result.code, describeRun('tsc (cjs, node16)', result)).toBe(0);
    },
  );

  it('type-checks with tsc, moduleResolution bundler and DOM types', async () => {
    const result = await run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json', '--pretty', 'false'], {
      cwd: projects[kind],
      timeout: 60_000,
    });
    expect(result.code, describeRun(`tsc (${kind}, bundler)`, result)).toBe(0);
  });

  it.runIf(kind === 'esm')('type-checks a test file that uses the test kit and MSW', async () => {
    const result = await run(process.execPath, [TSC, '-p', 'tsconfig.testing.json', '--pretty', 'false'], {
      cwd: projects[kind],
      timeout: 60_000,
    });
    expect(result.code, describeRun('tsc (test kit)', result)).toBe(0);
  });
});

describe('the two builds', () => {
  it('export the same names from ESM and CommonJS', async () => {
    const names = async (kind: Kind) => {
      const main = kind === 'esm' ? 'main.mjs' : 'main.cjs';
      const result = await run(process.execPath, [main, `${server?.base}/names-${kind}`], {
        cwd: projects[kind],
        timeout: 30_000,
      });
      expect(result.code, describeRun(`node ${main}`, result)).toBe(0);
      return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '').names;
    };
    const [esm, cjs] = await Promise.all([names('esm'), names('cjs')]);
    expect(cjs).toEqual(esm);
  });
});
