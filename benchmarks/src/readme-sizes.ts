// The price on the label: each package README states what its import adds to a page (min+gzip, production build,
// the client itself not counted) and what each opt-in feature adds to it. `pnpm size -- --write` rewrites those
// cells from the measure; the readme-sizes test keeps them true.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { addedBytes, type runSize } from './size.js';

/** A README row: the label in its first column, the entry it shows, and whether it shows the entry's added cost. */
export type ReadmeRow = readonly [label: string, entry: string, shows?: 'added'];

const features = (base: string): ReadmeRow[] =>
  ['Hedge', 'Pacer', 'CircuitBreaker', 'BackoffMetrics'].map((feature) => [
    `with \`${feature}\``,
    `${base} + ${feature}`,
    'added',
  ]);

export const README_ROWS: Readonly<Record<string, readonly ReadmeRow[]>> = {
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

type SizeResult = Awaited<ReturnType<typeof runSize>>;

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

export const readmePath = (readme: string) => fileURLToPath(new URL(`../../${readme}`, import.meta.url));

/** The cell a README row shows for `entry`, as measured. */
export function readmeCell(result: SizeResult, entry: string, shows?: 'added'): string {
  const measured = result.rows.find((row) => row.entry.name === entry);
  if (measured === undefined) throw new Error(`no measured entry ${entry}`);
  return shows === 'added' ? `+${kB(addedBytes(result, measured) ?? 0)}` : kB(measured.gzipBytes);
}

/** Rewrites the size cell of every README row from the measure. */
export function writeReadmeSizes(result: SizeResult): void {
  for (const [readme, rows] of Object.entries(README_ROWS)) {
    let text = readFileSync(readmePath(readme), 'utf8');
    for (const [label, entry, shows] of rows) {
      const prefix = `| ${label} | `;
      text = text
        .split('\n')
        .map((line) => (line.startsWith(prefix) ? `${prefix}${readmeCell(result, entry, shows)} |` : line))
        .join('\n');
    }
    writeFileSync(readmePath(readme), text);
  }
}
