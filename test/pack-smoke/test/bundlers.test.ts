// The production build as users get it: the packed packages installed from their tarballs, an app bundled by
// esbuild, Vite and webpack 5 in production mode, then run in Node against a server on 127.0.0.1 (one real retry
// per package). A production bundle takes each package's `dist/bundler/` (the `module` condition), where the bundler
// replaced `process.env.NODE_ENV`: the messages are short and the long ones are not in the bundle. Node itself
// takes `dist/` (it ignores `module`), with NODE_ENV read through `globalThis.process?.`, in ESM and in CommonJS.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build as esbuild } from 'esbuild';
import { build as vite } from 'vite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FlakyServer, startFlakyServer } from '../src/flaky-server.ts';
import { packPublished } from '../src/pack.ts';
import { describeRun, npmEnv, PUBLISHED, packageDir, run } from '../src/repo.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures');
const readJson = (path: string) =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, string>>;
const AXIOS = readJson(join(packageDir('axios-backoff'), 'package.json')).devDependencies?.axios;
const KY = readJson(join(packageDir('ky-backoff'), 'package.json')).devDependencies?.ky;
// webpack is installed in the app's own project by npm, not in the workspace: there its terser would make pnpm give
// vite a second copy (resolved with its optional terser peer), and the workspace's vitest configs would not agree.
const WEBPACK = '5.113.0';

/** The part of webpack's Node API this test calls (its types are not installed in the workspace). */
type Webpack = (
  config: Record<string, unknown>,
  done: (error: Error | null, stats?: { hasErrors(): boolean; toString(preset: string): string }) => void,
) => void;

const SHORT =
  /^`retries` got 200 \(bad-option\): https:\/\/github\.com\/backoff\/backoff\/blob\/main\/docs\/errors\.md#bad-option$/;
const FULL =
  'Expected `retries` to be an integer from 0 to 100, got 200: bound a long retry by time with `deadline`.';
// Text only the development build holds: a peer's name for an option, the did-you-mean, a check's long detail.
const DEVELOPMENT_TEXT = ["axios-retry's name", 'did you mean', 'bound a long retry by time'];

let work = '';
let project = '';
let server: FlakyServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'backoff-bundlers-'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = await packPublished(tarballs);
  project = join(work, 'app');
  mkdirSync(project);
  const dependencies: Record<string, string> = { axios: AXIOS ?? '', ky: KY ?? '', webpack: WEBPACK };
  for (const name of PUBLISHED) dependencies[name] = `file:${packed[name].tarball}`;
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'backoff-bundled-app', private: true, type: 'module', dependencies }, null, 2),
  );
  copyFileSync(join(FIXTURES, 'bundled-app.js'), join(project, 'app.js'));
  const install = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel=error'],
    { cwd: project, timeout: 90_000, env: npmEnv() },
  );
  if (install.code !== 0) throw new Error(describeRun('npm install (bundled app)', install));
  server = await startFlakyServer(1);
}, 110_000);

afterAll(async () => {
  await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Bundles app.js into `outDir/app.js` (ESM), axios left to Node (its browser build has no XHR in Node). */
const BUNDLERS: Record<string, (outDir: string) => Promise<void>> = {
  // esbuild's production: `--minify` for a browser, which defines `process.env.NODE_ENV` as "production".
  esbuild: async (outDir) => {
    await esbuild({
      absWorkingDir: project,
      entryPoints: ['app.js'],
      outfile: join(outDir, 'app.js'),
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      external: ['axios'],
      logLevel: 'silent',
    });
  },
  // `vite build`: the mode is 'production' unless NODE_ENV says otherwise, and vitest sets it to 'test' here.
  vite: async (outDir) => {
    vi.stubEnv('NODE_ENV', undefined);
    await vite({
      root: project,
      configFile: false,
      logLevel: 'silent',
      mode: 'production',
      build: {
        outDir,
        emptyOutDir: true,
        rollupOptions: {
          input: join(project, 'app.js'),
          external: ['axios'],
          preserveEntrySignatures: 'strict',
          output: { format: 'es', entryFileNames: 'app.js' },
        },
      },
    }).finally(() => vi.unstubAllEnvs());
  },
  webpack: (outDir) =>
    new Promise((resolve, reject) => {
      const webpack = createRequire(join(project, 'package.json'))('webpack') as Webpack;
      webpack(
        {
          mode: 'production',
          context: project,
          entry: './app.js',
          target: 'web',
          experiments: { outputModule: true },
          output: { path: outDir, filename: 'app.js', library: { type: 'module' } },
          externalsType: 'module',
          externals: { axios: 'axios' },
        },
        (error, stats) => {
          if (error || stats?.hasErrors()) reject(error ?? new Error(stats?.toString('errors-only')));
          else resolve();
        },
      );
    }),
};

describe.each(Object.keys(BUNDLERS))('%s, production mode', (bundler) => {
  let code = '';
  let outDir = '';

  beforeAll(async () => {
    outDir = join(project, `dist-${bundler}`);
    await BUNDLERS[bundler]?.(outDir);
    code = readFileSync(join(outDir, 'app.js'), 'utf8');
  }, 60_000);

  it('the bundle works: one retry per package, and a bad option fails with the short message', async () => {
    const app = (await import(pathToFileURL(join(outDir, 'app.js')).href)) as {
      main: (base: string) => Promise<Record<string, unknown>>;
    };
    const result = await app.main(`${server.base}/${bundler}`);
    expect(result).toMatchObject({ fetch: [200, 2], axios: [200, 2], ky: [200, 2] });
    expect(result.message).toMatch(SHORT);
  });

  it('holds none of the development messages, and no bare `process` (only `globalThis.process?.` reads)', () => {
    for (const text of DEVELOPMENT_TEXT) expect(code).not.toContain(text);
    expect(code).not.toMatch(/(?<![.\w])process\b/);
  });
});

describe('Node takes dist/, where NODE_ENV is read and `process` need not exist', () => {
  const probe = {
    esm: "import { createBackoff } from 'backoff-core';\nconsole.log(import.meta.resolve('backoff-core'));\ntry { createBackoff({ retries: 200 }); } catch (error) { console.log(error.message); }\n",
    cjs: "const { createBackoff } = require('backoff-core');\nconsole.log(require.resolve('backoff-core'));\ntry { createBackoff({ retries: 200 }); } catch (error) { console.log(error.message); }\n",
  };

  it.each([
    ['esm', 'production'],
    ['esm', 'development'],
    ['cjs', 'production'],
    ['cjs', 'development'],
  ] as const)('%s with NODE_ENV=%s', async (kind, mode) => {
    const file = join(project, `probe-${kind}.${kind === 'esm' ? 'mjs' : 'cjs'}`);
    writeFileSync(file, probe[kind]);
    const result = await run(process.execPath, [file], {
      cwd: project,
      timeout: 30_000,
      env: { ...process.env, NODE_ENV: mode },
    });
    expect(result.code, describeRun(`node probe (${kind})`, result)).toBe(0);
    const [resolved, message] = result.stdout.trim().split('\n');
    expect(resolved).toMatch(kind === 'esm' ? /\/dist\/index\.js$/ : /\/dist\/index\.cjs$/);
    if (mode === 'production') expect(message).toMatch(SHORT);
    else expect(message).toBe(FULL);
  });

  it('with no `process` at all (as on a page with no bundler), the full messages and no throw', async () => {
    const file = join(project, 'probe-no-process.mjs');
    writeFileSync(
      file,
      `delete globalThis.process;\nconst { createBackoff } = await import('backoff-core');\ntry { createBackoff({ retries: 200 }); } catch (error) { console.log(error.message); }\n`,
    );
    const result = await run(process.execPath, [file], { cwd: project, timeout: 30_000 });
    expect(result.code, describeRun('node probe (no process)', result)).toBe(0);
    expect(result.stdout.trim()).toBe(FULL);
  });
});
