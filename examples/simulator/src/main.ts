import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { amplificationReport } from './amplification-report.js';
import type { ScenarioReport } from './chart-file.js';
import { parseCli, type SimulationConfig, USAGE } from './cli.js';
import { contentionReport } from './contention-report.js';
import { deadBackendReport } from './dead-backend-report.js';
import { herdMatrixReport } from './herd-matrix-report.js';
import { herdReport } from './herd-report.js';
import { pacingReport } from './pacing-report.js';
import { progress } from './progress.js';

let config: SimulationConfig | undefined;
try {
  config = parseCli(process.argv.slice(2));
} catch (error) {
  console.error(`${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
if (config === undefined) {
  console.log(USAGE);
  process.exit(0);
}

const started = performance.now();
const reports: ScenarioReport[] = [];
for (const scenario of config.scenarios) {
  const onProgress = progress(scenario);
  if (scenario === 'herd') reports.push(herdReport(config.herd, onProgress));
  if (scenario === 'contention') reports.push(contentionReport(config.contention, onProgress));
  if (scenario === 'amplification') reports.push(amplificationReport(config.amplification, onProgress));
  if (scenario === 'dead-backend') reports.push(await deadBackendReport(config.deadBackend, onProgress));
  if (scenario === 'pacing') reports.push(await pacingReport(config.pacing, onProgress));
  if (scenario === 'herd-matrix') reports.push(herdMatrixReport(config.herdMatrix, onProgress));
}

mkdirSync(config.out, { recursive: true });
const written: string[] = [];
for (const report of reports) {
  console.log(`\n## ${report.title}\n\n${report.text}`);
  for (const chart of report.charts) {
    const path = join(config.out, chart.file);
    writeFileSync(path, chart.svg);
    written.push(path);
  }
}
console.log(`\nCharts (SVG) in ${config.out}:`);
for (const path of written) console.log(`  ${path}`);
console.log(
  `\nseed ${config.seed}; simulated in ${((performance.now() - started) / 1000).toFixed(1)} s of wall time.`,
);
