// The price on the label: each package README states what its import adds to a page (min+gzip, the client itself
// not counted) beside the peers'. The numbers come from the size measure (src/size.ts); this test keeps them true.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSize } from '../src/size.js';

/** Each README's size rows: the label in its first column, and the measured bundle it shows. */
const LABELS: Readonly<Record<string, ReadonlyArray<readonly [label: string, entry: string]>>> = {
  'packages/backoff-core/README.md': [
    ['`withBackoff`', 'withBackoff (backoff-core)'],
    ['the whole package', 'backoff-core'],
  ],
  'packages/axios-backoff/README.md': [
    ['`axiosBackoff`', 'axios-backoff (with backoff-core)'],
    ['with `CircuitBreaker` and `BackoffMetrics`', 'axios-backoff + CircuitBreaker + BackoffMetrics'],
    ['axios-retry 4.5.0', 'axios-retry 4.5.0'],
    ['retry-axios 4.0.3', 'retry-axios 4.0.3'],
  ],
  'packages/ky-backoff/README.md': [
    ['`kyBackoff`', 'ky-backoff (with backoff-core)'],
    ['with `CircuitBreaker` and `BackoffMetrics`', 'ky-backoff + CircuitBreaker + BackoffMetrics'],
  ],
};

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

describe("each package README states its import's size, as measured", async () => {
  const { rows } = await runSize({ sizeLimit: false });
  it.each(Object.entries(LABELS))('%s', (readme, labels) => {
    const text = readFileSync(fileURLToPath(new URL(`../../${readme}`, import.meta.url)), 'utf8');
    for (const [label, entry] of labels) {
      const measured = rows.find((row) => row.entry.name === entry);
      expect(measured, entry).toBeDefined();
      const line = text.split('\n').find((row) => row.startsWith(`| ${label} |`));
      expect(line, `${readme}: a row "| ${label} | ... |"`).toBeDefined();
      expect(line).toContain(`| ${kB(measured?.gzipBytes ?? 0)} |`);
    }
  });
});
