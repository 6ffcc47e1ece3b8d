// The price on the label: each package README states what its import adds to a page (min+gzip, production build,
// the client itself not counted) and what each opt-in feature adds to it. The numbers come from the size measure
// (src/size.ts); this test keeps them true (`pnpm size -- --write` rewrites them).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { README_ROWS, readmeCell, readmePath } from '../src/readme-sizes.js';
import { runSize } from '../src/size.js';

describe("each package README states its import's size, as measured", async () => {
  const result = await runSize();
  it.each(Object.entries(README_ROWS))('%s', (readme, rows) => {
    const text = readFileSync(readmePath(readme), 'utf8');
    for (const [label, entry, shows] of rows) {
      const line = text.split('\n').find((row) => row.startsWith(`| ${label} |`));
      expect(line, `${readme}: a row "| ${label} | ... |"`).toBeDefined();
      expect(line, `${readme}: ${label}`).toContain(`| ${readmeCell(result, entry, shows)} |`);
    }
  });
});
