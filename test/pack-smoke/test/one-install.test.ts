// One install is enough: a fresh pnpm project (strict layout: only what it lists is importable) with nothing but an
// adapter and its client runs the adapter README's quick start, pointed at a flaky server on 127.0.0.1. Everything
// the quick start needs comes from the adapter itself; backoff-core arrives as the adapter's own dependency. The
// same projects run every "after" block of the MIGRATING.md guides (axios-retry's, retry-axios's, ky's), as a user
// would paste it, against a flaky server on 127.0.0.1.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFlakyServer } from '../src/flaky-server.ts';
import { type Packed, packPublished } from '../src/pack.ts';
import { blockAfter } from '../src/readme-code.ts';
import { describeRun, npmEnv, type PublishedName, packageDir, run } from '../src/repo.ts';

type Adapter = 'axios-backoff' | 'ky-backoff';

const CLIENT: Record<Adapter, string> = { 'axios-backoff': 'axios', 'ky-backoff': 'ky' };

// The quick start of each adapter's README, with its base URL taken from the command line and short waits.
const QUICK_START: Record<Adapter, string> = {
  'axios-backoff': `import axios from 'axios';
import { axiosBackoff, getBackoffResult, RetryBudget } from 'axios-backoff';

const api = axios.create({ baseURL: process.argv[2], timeout: 5_000 });
axiosBackoff(api, { retries: 3, deadline: 20_000, baseDelay: 10, budget: new RetryBudget() });
const response = await api.get('/items');
console.log(JSON.stringify({ data: response.data, status: response.status, attempts: getBackoffResult(response).attempts }));
`,
  'ky-backoff': `import ky from 'ky';
import { getBackoffResult, kyBackoff, RetryBudget } from 'ky-backoff';

const api = kyBackoff(ky.create({ prefix: process.argv[2], timeout: 5_000 }), {
  retries: 3,
  deadline: 20_000,
  baseDelay: 10,
  budget: new RetryBudget(),
});
const response = await api.get('items');
const data = await response.json();
console.log(JSON.stringify({ data, status: response.status, attempts: getBackoffResult(response).attempts }));
`,
};

/** The URL the guides' blocks call; the test points it at the local server. */
const EXAMPLE_URL = 'https://api.example.com';

/** The ```ts block right after `<!-- migrating:NAME -->` in a MIGRATING.md: a section's "after" code, unchanged. */
function guideAfterBlock(guide: string, name: string): string {
  const block = blockAfter(guide, `<!-- migrating:${name} -->`);
  expect(block?.lang, `a \`\`\`ts block right after <!-- migrating:${name} --> in ${guide}`).toBe('ts');
  return block?.code ?? '';
}

/** The block with its base URL pointed at `base`, after checking it names that URL `times` times and no other. */
function pointedAt(code: string, base: string, times: number): string {
  // Only the base URL changes, so the block must name it exactly so (else it would call the internet).
  expect(code.split(EXAMPLE_URL).length - 1, `${EXAMPLE_URL} in the block`).toBe(times);
  return code.replaceAll(EXAMPLE_URL, base);
}

let work = '';
let packed: Record<PublishedName, Packed>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'backoff-one-install-'));
  packed = await packPublished(work);
}, 120_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

/** A fresh pnpm project with only `adapter` (packed) and its client, installed once and shared by the tests. */
const projects = new Map<Adapter, string>();
async function freshProject(adapter: Adapter): Promise<string> {
  const made = projects.get(adapter);
  if (made !== undefined) return made;
  const dir = join(work, adapter);
  mkdirSync(dir);
  const client = CLIENT[adapter];
  // The client at exactly the version the adapter's own tests run.
  const clientVersion = JSON.parse(readFileSync(join(packageDir(adapter), 'package.json'), 'utf8'))
    .devDependencies[client];
  const manifest = {
    name: `one-install-${adapter}`,
    private: true,
    type: 'module',
    dependencies: { [adapter]: `file:${packed[adapter].tarball}`, [client]: clientVersion },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // The core the adapter depends on is the one packed with it, not a registry version.
  writeFileSync(
    join(dir, 'pnpm-workspace.yaml'),
    `overrides:\n  backoff-core: "file:${packed['backoff-core'].tarball}"\n`,
  );
  const install = await run(
    'pnpm',
    ['install', '--ignore-scripts', '--prefer-offline', '--reporter=silent'],
    {
      cwd: dir,
      timeout: 120_000,
      env: npmEnv(),
    },
  );
  expect(install.code, describeRun('pnpm install', install)).toBe(0);
  projects.set(adapter, dir);
  return dir;
}

describe.each(['axios-backoff', 'ky-backoff'] as const)(
  'a fresh pnpm project with only %s and its client',
  (adapter) => {
    it('runs the README quick start against a flaky server, importing nothing but the adapter', async () => {
      const dir = await freshProject(adapter);
      writeFileSync(join(dir, 'main.mjs'), QUICK_START[adapter]);

      // Strict layout: the core is not importable from the project, only through the adapter.
      const core = await run('node', ['--input-type=module', '-e', "await import('backoff-core')"], {
        cwd: dir,
        timeout: 30_000,
      });
      expect(core.code).not.toBe(0);

      const server = await startFlakyServer(2);
      const { base } = server;
      try {
        const result = await run('node', ['main.mjs', base], { cwd: dir, timeout: 30_000 });
        expect(result.code, describeRun('node main.mjs', result)).toBe(0);
        const output = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '');
        expect(output).toMatchObject({ data: { ok: true }, status: 200, attempts: 3 });
      } finally {
        await server.close();
      }
    }, 150_000);
  },
);

describe('a fresh pnpm project with only axios-backoff and axios, moving over', () => {
  it('runs MIGRATING.md\'s axios-retry "after" block as written: the server sees a 503, a 503, then the retry that succeeds', async () => {
    const code = guideAfterBlock('packages/axios-backoff/MIGRATING.md', 'axios-retry-after');
    const dir = await freshProject('axios-backoff');
    const server = await startFlakyServer(2);
    const { base, hits } = server;
    try {
      // As a user would paste it into an ES module: it must run as JavaScript, with no types to strip.
      writeFileSync(join(dir, 'axios-retry-after.mjs'), `${pointedAt(code, base, 1)}\n`);
      const result = await run('node', ['axios-retry-after.mjs'], { cwd: dir, timeout: 30_000 });
      expect(result.code, describeRun('node axios-retry-after.mjs', result)).toBe(0);
      expect(Object.fromEntries(hits)).toEqual({ '/items': 3 });
      // Its onRetry logged both retries.
      expect(result.stderr).toMatch(/retry 1 of .*\/items in \d+ ms: 503/);
      expect(result.stderr).toMatch(/retry 2 of .*\/items in \d+ ms: 503/);
    } finally {
      await server.close();
    }
  }, 150_000);

  it('runs MIGRATING.md\'s retry-axios "after" block as written: two 503s retried, then the retries removed', async () => {
    const code = guideAfterBlock('packages/axios-backoff/MIGRATING.md', 'retry-axios-after');
    const dir = await freshProject('axios-backoff');
    const server = await startFlakyServer(2);
    const { base, hits } = server;
    try {
      // The block ends with `remove()`; a request after it is sent once, as without axios-backoff.
      const after = `${pointedAt(code, base, 1)}\nconsole.log(JSON.stringify({ data, status: (await api.get('/again').catch((error) => error.response)).status }));\n`;
      writeFileSync(join(dir, 'retry-axios-after.mjs'), after);
      const result = await run('node', ['retry-axios-after.mjs'], { cwd: dir, timeout: 30_000 });
      expect(result.code, describeRun('node retry-axios-after.mjs', result)).toBe(0);
      expect(JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '')).toEqual({
        data: { ok: true },
        status: 503,
      });
      expect(Object.fromEntries(hits)).toEqual({ '/items': 3, '/again': 1 });
      expect(result.stderr).toMatch(/retry 1 of .*\/items/);
      expect(result.stderr).toMatch(/retry 2 of .*\/items/);
    } finally {
      await server.close();
    }
  }, 150_000);
});

describe("a fresh pnpm project with only ky-backoff and ky, moving over from ky's retry", () => {
  it('runs MIGRATING.md\'s "after" block as written: both instances, the `retry` kept and the options moved, retry two 503s', async () => {
    const code = guideAfterBlock('packages/ky-backoff/MIGRATING.md', 'ky-after');
    const dir = await freshProject('ky-backoff');
    const server = await startFlakyServer(2);
    const { base, hits } = server;
    try {
      // The block makes two instances; each then sends one request, to a path of its own.
      const calls = `
const results = {};
for (const [name, api] of Object.entries({ kept, moved })) {
  const response = await api.get(name);
  results[name] = { status: response.status, data: await response.json() };
}
console.log(JSON.stringify(results));
`;
      writeFileSync(join(dir, 'ky-after.mjs'), `${pointedAt(code, base, 2)}\n${calls}`);
      const result = await run('node', ['ky-after.mjs'], { cwd: dir, timeout: 30_000 });
      expect(result.code, describeRun('node ky-after.mjs', result)).toBe(0);
      const ok = { status: 200, data: { ok: true } };
      expect(JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '')).toEqual({ kept: ok, moved: ok });
      expect(Object.fromEntries(hits)).toEqual({ '/kept': 3, '/moved': 3 });
    } finally {
      await server.close();
    }
  }, 150_000);
});
