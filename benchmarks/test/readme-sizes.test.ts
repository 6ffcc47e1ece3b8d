// The price on the label: each package README states what its import adds to a page (min+gzip, the client itself
// not counted) and what each opt-in feature adds to it. The numbers come from the size measure (src/size.ts);
// this test keeps them true.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { addedBytes, runSize } from '../src/size.js';

/** A README row: the label in its first column, the entry it shows, and whether it shows the entry's added cost. */
type Row = readonly [label: string, entry: string, shows?: 'added'];

const features = (base: string): Row[] =>
  ['Hedge', 'Pacer', 'CircuitBreaker', 'BackoffMetrics'].map((feature) => [
    `with \`${feature}\``,
    `${base} + ${feature}`,
    'added',
  ]);

const LABELS: Readonly<Record<string, readonly Row[]>> = {
  'packages/backoff-core/README.md': [
    ['`withBackoff`', 'withBackoff'],
    ...features('withBackoff'),
    ['the whole package', 'backoff-core (every export)'],
  ],
  'packages/axios-backoff/README.md': [
    ['`axiosBackoff`', 'axiosBackoff'],
    ...features('axiosBackoff'),
    ['axios-retry 4.5.0', 'axios-retry 4.5.0'],
    ['retry-axios 4.0.3', 'retry-axios 4.0.3'],
  ],
  'packages/ky-backoff/README.md': [['`kyBackoff`', 'kyBackoff'], ...features('kyBackoff')],
};

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

describe("each package README states its import's size, as measured", async () => {
  const result = await runSize();
  it.each(Object.entries(LABELS))('%s', (readme, labels) => {
    const text = readFileSync(fileURLToPath(new URL(`../../${readme}`, import.meta.url)), 'utf8');
    for (const [label, entry, shows] of labels) {
      const measured = result.rows.find((row) => row.entry.name === entry);
      if (measured === undefined) throw new Error(`no measured entry ${entry}`);
      const line = text.split('\n').find((row) => row.startsWith(`| ${label} |`));
      expect(line, `${readme}: a row "| ${label} | ... |"`).toBeDefined();
      const cell = shows === 'added' ? `+${kB(addedBytes(result, measured) ?? 0)}` : kB(measured.gzipBytes);
      expect(line, `${readme}: ${label}`).toContain(`| ${cell} |`);
    }
  });
});
