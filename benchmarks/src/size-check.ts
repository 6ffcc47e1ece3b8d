// `pnpm size`: measures every entry of size-entries.ts, prints the sizes and each entry's modules, and fails when
// an entry is over its budget or a default entry holds a feature's module or says a feature's word. `--budgets`
// prints what each budget would be from this measure (x 1.10); `--write` writes the size section of RESULTS.md and
// the size rows of the package READMEs.
import { writeReadmeSizes } from './readme-sizes.js';
import { writeSection } from './results-sections.js';
import {
  budgetFor,
  featureModules,
  featureWords,
  moduleTable,
  overBudget,
  runSize,
  sizeSection,
  sizeTable,
} from './size.js';
import { fixed } from './table.js';

const args = new Set(process.argv.slice(2));
const result = await runSize();

console.log(sizeTable(result));
for (const row of result.rows) {
  if (row.entry.kind === 'reference') continue;
  console.log(`\n${row.entry.name}\n\n${moduleTable(result, row)}`);
}

if (args.has('--budgets')) {
  console.log('\nBudgets from this measure (x 1.10, rounded up to 10 bytes):\n');
  for (const row of result.rows) {
    if (row.entry.kind !== 'reference') {
      console.log(`  '${row.entry.name}': ${fixed(budgetFor(row.gzipBytes)).replace(/,/g, '_')},`);
    }
  }
}
if (args.has('--write')) {
  writeSection('size', sizeSection(result));
  writeReadmeSizes(result);
}

let failed = false;
for (const row of overBudget(result)) {
  failed = true;
  console.error(
    `\n${row.entry.name}: ${fixed(row.gzipBytes)} B min+gzip, over its budget of ${fixed(row.entry.budget ?? 0)} B.`,
  );
}
for (const row of result.rows) {
  const features = row.entry.kind === 'default' ? featureModules(row) : [];
  if (features.length > 0) {
    failed = true;
    console.error(`\n${row.entry.name} holds code of features it does not use: ${features.join(', ')}.`);
  }
  const words = row.entry.kind === 'default' ? featureWords(row.code) : [];
  if (words.length > 0) {
    failed = true;
    console.error(`\n${row.entry.name} says words of features it does not use: ${words.join(', ')}.`);
  }
}
const unbudgeted = result.rows.filter(
  (row) => row.entry.kind !== 'reference' && row.entry.budget === undefined,
);
for (const row of unbudgeted) {
  failed = true;
  console.error(
    `\n${row.entry.name} has no budget in BUDGETS (src/size-entries.ts): ${fixed(budgetFor(row.gzipBytes))}?`,
  );
}
console.log(
  `\n${result.rows.length} entries in ${result.seconds.toFixed(1)} s (esbuild ${result.esbuildVersion}).`,
);
if (failed) process.exitCode = 1;
