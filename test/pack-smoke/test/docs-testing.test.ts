// docs/testing.md shows only code that runs: each of its ```ts and ```js blocks is an excerpt, verbatim, of the
// example file named in the `<!-- example: path -->` line above it (a test of examples/testing-vitest or
// examples/testing-jest, or the app they test), so the page cannot drift from the suites CI runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXEMPT, parseReadme } from '../src/readme-code.ts';
import { ROOT } from '../src/repo.ts';

const PAGE = 'docs/testing.md';
const text = readFileSync(join(ROOT, PAGE), 'utf8');
const lines = text.split('\n');
const { blocks, problems } = parseReadme(PAGE, text);
const excerpts = blocks.filter((block) => !EXEMPT.has(block.lang));

describe(PAGE, () => {
  it('has well-formed code blocks, most of them excerpts of the examples', () => {
    // Any language is fine here: every block that is not ```sh or ```text is checked as an excerpt.
    expect(problems.filter((problem) => !problem.includes('is neither checked nor exempt'))).toEqual([]);
    expect(excerpts.length).toBeGreaterThan(10);
  });

  it.each(excerpts.map((block) => [block.line, block] as const))(
    'the block at line %i is an excerpt of the example it names',
    (_line, block) => {
      const marker = /^<!-- example: (examples\/testing-[\w-]+\/[\w./-]+) -->$/.exec(
        lines[block.line - 2] ?? '',
      );
      expect(marker?.[1], `the line above the block names its file: <!-- example: path -->`).toBeDefined();
      const source = readFileSync(join(ROOT, marker?.[1] ?? ''), 'utf8');
      expect(source.includes(block.code), `${marker?.[1]} holds the block verbatim`).toBe(true);
    },
  );
});
