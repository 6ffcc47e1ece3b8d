// Every code block of the READMEs is type-checked (```ts, ```cjs), parsed (```json) or explicitly exempt (```sh,
// ```text), so that the docs cannot drift from the code. The conventions are in src/readme-code.ts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blockName,
  CHECKED,
  CHECKED_CJS,
  type CodeBlock,
  type FailureKey,
  PARSED,
  parseJsonBlock,
  parseReadme,
  type Readme,
  typecheckReadmes,
} from '../src/readme-code.ts';
import { ROOT } from '../src/repo.ts';

const READMES = [
  'README.md',
  'packages/backoff-core/README.md',
  'packages/axios-backoff/README.md',
  'packages/axios-backoff/MIGRATING.md',
  'packages/ky-backoff/README.md',
  'packages/backoff-redis/README.md',
  'packages/ky-backoff/MIGRATING.md',
];
const TSC = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
// Inside the repo (gitignored), so that the blocks' imports resolve to the workspace packages.
const WORK_ROOT = join(import.meta.dirname, '../.readme-code');

const readmes = READMES.map((path) => parseReadme(path, readFileSync(join(ROOT, path), 'utf8')));
let work = '';
let failures = new Map<FailureKey, string[]>();

beforeAll(async () => {
  mkdirSync(WORK_ROOT, { recursive: true });
  work = mkdtempSync(join(WORK_ROOT, 'run-'));
  failures = await typecheckReadmes(readmes, work, TSC);
}, 60_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

it('runs tsc without a failure outside the blocks', () => {
  expect(failures.get('tsc') ?? []).toEqual([]);
});

describe.each(readmes)('$path', (readme) => {
  it('has only checked, parsed or exempt code blocks', () => {
    expect(readme.problems).toEqual([]);
  });

  if (readme.given !== undefined) {
    it('has given declarations that type-check', () => {
      expect(failures.get(readme) ?? []).toEqual([]);
    });
  }

  const checked = readme.blocks.filter(
    (block) => CHECKED.has(block.lang) || CHECKED_CJS.has(block.lang) || PARSED.has(block.lang),
  );
  if (checked.length > 0) {
    it.each(checked)('block $index (line $line, $lang)', (block) => {
      const found = PARSED.has(block.lang) ? parseJsonBlock(block) : (failures.get(block) ?? []);
      expect(found, blockName(block)).toEqual([]);
    });
  }
});

// The checker itself, on a README made to fail: a test that cannot fail is a defect.
describe('the checker', () => {
  const fixture = [
    '# fixture',
    '',
    '<!-- docs:given',
    "import type { Backoff } from 'backoff-core';",
    'const policy: Backoff;',
    '-->',
    '',
    '```ts',
    "import { createBackoff } from 'backoff-core';",
    'createBackoff({ retries: 2 });',
    '```',
    '',
    '```ts',
    "const n: number = 'not a number';",
    '```',
    '',
    '```ts',
    '// Given `policy`:',
    'policy.extend();',
    '```',
    '',
    '```ts',
    'policy.extend(); // no "Given" line: `policy` is not declared here',
    '```',
    '',
    '```sh',
    'pnpm test',
    '```',
    '',
    '```js',
    'console.log(1);',
    '```',
    '',
    '```cjs',
    "const { createBackoff } = require('backoff-core');",
    "createBackoff({ retries: 'three' });",
    '```',
  ].join('\n');
  let readme: Readme;
  let found = new Map<FailureKey, string[]>();
  let dir = '';

  beforeAll(async () => {
    mkdirSync(WORK_ROOT, { recursive: true });
    dir = mkdtempSync(join(WORK_ROOT, 'fixture-'));
    readme = parseReadme('FIXTURE.md', fixture);
    found = await typecheckReadmes([readme], dir, TSC);
  }, 60_000);

  afterAll(() => {
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  const block = (index: number) => readme.blocks[index - 1] as CodeBlock;

  it('finds every block with its language, line and partial marker', () => {
    expect(readme.blocks.map(({ index, line, lang, partial }) => ({ index, line, lang, partial }))).toEqual([
      { index: 1, line: 8, lang: 'ts', partial: false },
      { index: 2, line: 13, lang: 'ts', partial: false },
      { index: 3, line: 17, lang: 'ts', partial: true },
      { index: 4, line: 22, lang: 'ts', partial: false },
      { index: 5, line: 26, lang: 'sh', partial: false },
      { index: 6, line: 30, lang: 'js', partial: false },
      { index: 7, line: 34, lang: 'cjs', partial: false },
    ]);
    expect(readme.given?.code).toContain('const policy: Backoff;');
  });

  it('reports a wrong block by README, block number and README line', () => {
    expect(found.get(block(1))).toBeUndefined();
    expect(found.get(block(2))).toEqual([
      "FIXTURE.md block 2 (line 13), README line 14:7: TS2322 Type 'string' is not assignable to type 'number'.",
    ]);
  });

  it('gives the declarations to "Given" blocks only', () => {
    expect(found.get(block(3))).toBeUndefined();
    expect(found.get(block(4))?.[0]).toMatch(/^FIXTURE\.md block 4 \(line 22\), README line 23:1: TS2304 /);
  });

  it('rejects a block that is neither checked nor exempt', () => {
    expect(readme.problems).toEqual([
      'block 6 (line 30): language "js" is neither checked nor exempt: use ```ts or ```cjs (type-checked), ```json (parsed), or ```sh / ```text (exempt)',
    ]);
  });

  it('type-checks a CommonJS block as a .cjs file: `require` gives the package its types', () => {
    expect(found.get(block(7))).toEqual([
      "FIXTURE.md block 7 (line 34), README line 36:17: TS2322 Type 'string' is not assignable to type 'number'.",
    ]);
  });
});
