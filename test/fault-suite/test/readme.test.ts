import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

// The README once described a joined "1, 120" Retry-After as ignored after the code had come to
// read it as its longest member (the case "'1' and '120' (two conflicting lines)" in support/cases.ts).
describe('the fault suite README', () => {
  it('says a joined Retry-After list counts as its longest member, not that it is ignored', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const text = readme.replace(/\s+/g, ' ');
    const sentence = /fetch joins them \(`1, 120`\)[^.]*\./.exec(text)?.[0];
    expect(sentence).toBeDefined();
    expect(sentence).not.toMatch(/ignored/);
    expect(sentence).toMatch(/longest member: 120 s, above `maxRetryAfter`/);
  });
});
