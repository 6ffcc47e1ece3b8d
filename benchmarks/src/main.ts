import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { renderResults } from './results.js';
import { keepSections, RESULTS_PATH as RESULTS } from './results-sections.js';
import { FULL, MEASURES, type MeasureId, QUICK, runSuite } from './suite.js';

const USAGE = `Usage: pnpm bench [--quick] [--only LIST]

  --quick       tiny sizes (seconds): checks that everything runs; RESULTS.md is not written
  --only LIST   comma-separated: ${MEASURES.join(', ')}; RESULTS.md is not written

Without flags every measure runs at full size and benchmarks/RESULTS.md is rewritten.`;

function parse(): { quick: boolean; only: MeasureId[] | undefined } {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean' }, only: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const only = values.only?.split(',').map((name) => name.trim());
  for (const name of only ?? []) {
    if (!(MEASURES as readonly string[]).includes(name)) throw new TypeError(`Unknown measure \`${name}\`.`);
  }
  return { quick: values.quick === true, only: only as MeasureId[] | undefined };
}

let options: ReturnType<typeof parse>;
try {
  options = parse();
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}

const flags = process.argv.slice(2).join(' ');
const command = `pnpm bench${flags ? ` ${flags}` : ''}`;
const report = await runSuite(options.quick ? QUICK : FULL, options.only, command, (message) =>
  console.error(`[bench] ${message}`),
);
const markdown = renderResults(report);
console.log(markdown);
if (options.quick || options.only) {
  console.error('[bench] --quick / --only: RESULTS.md left as it was.');
} else {
  // The pacing and hedging sections come from commands of their own: carried over as they were.
  writeFileSync(RESULTS, keepSections(markdown, existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : ''));
  console.error(`[bench] wrote ${RESULTS} (${report.seconds.toFixed(0)} s in all).`);
}
