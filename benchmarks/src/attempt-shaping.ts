// The success path of every client with no `beforeAttempt`, no `tracer` and no `attemptTimeout`, against the same
// clients built from an earlier commit, in one run: what letting a hook change each attempt's headers costs a
// request that uses none. Both builds are loaded from folders laid out as node_modules (each package's
// package.json and dist/), with `axios` and `ky` linked in:
//
//   pnpm run build && copy packages/{backoff-core,axios-backoff,ky-backoff}/{package.json,dist} to NEW/node_modules/
//   git checkout BASE -- packages/*/src && pnpm run build && copy them to OLD/node_modules/ && git checkout HEAD -- packages/*/src
//   ln -s "$(realpath benchmarks/node_modules/axios)" OLD/node_modules/axios   (the same for ky, and in NEW)
//   pnpm --filter @backoff/benchmarks attempt-shaping --base OLD --current NEW [--write]
//
// `--write` puts the table in its own section of RESULTS.md (which `pnpm bench` carries over).
// In-process (the mock of measure 1), one process: the baseline of each family is the earlier build, with an A/A
// control of it, so that a difference inside the control's spread reads as none.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import axios, { type AxiosInstance } from 'axios';
import ky, { type KyInstance } from 'ky';
import { axiosClient, control, fetchClient, kyClient, type Variant } from './clients.js';
import { runOverhead } from './overhead.js';
import { writeSection } from './results-sections.js';
import { fixed, markdownTable, ratio } from './table.js';

interface Build {
  readonly withBackoff: (fetch: unknown) => unknown;
  readonly axiosBackoff: (instance: AxiosInstance) => unknown;
  readonly kyBackoff: (instance: KyInstance) => KyInstance;
}

async function load(folder: string): Promise<Build> {
  const entry = (name: string) => pathToFileURL(join(folder, 'node_modules', name, 'dist/index.js')).href;
  const [core, axiosBackoff, kyBackoff] = await Promise.all([
    import(entry('backoff-core')),
    import(entry('axios-backoff')),
    import(entry('ky-backoff')),
  ]);
  return {
    withBackoff: core.withBackoff,
    axiosBackoff: axiosBackoff.axiosBackoff,
    kyBackoff: kyBackoff.kyBackoff,
  };
}

function variants(label: string, build: Build): Variant[] {
  return [
    {
      id: `with-backoff-${label}`,
      name: `fetch + withBackoff, ${label}`,
      family: 'fetch',
      config: 'defaults',
      retries: 3,
      create: (transport) => fetchClient(build.withBackoff(transport.fetch) as never),
    },
    {
      id: `axios-backoff-${label}`,
      name: `axios + axios-backoff, ${label}`,
      family: 'axios',
      config: 'defaults',
      retries: 3,
      create: (transport) => {
        const instance = axios.create(transport.axiosAdapter ? { adapter: transport.axiosAdapter } : {});
        build.axiosBackoff(instance);
        return axiosClient(instance);
      },
    },
    {
      id: `ky-backoff-${label}`,
      name: `ky + ky-backoff, ${label}`,
      family: 'ky',
      config: 'defaults',
      retries: 3,
      create: (transport) => kyClient(build.kyBackoff(ky.create({ fetch: transport.fetch as never }))),
    },
  ];
}

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    current: { type: 'string' },
    rounds: { type: 'string', default: '30' },
    requests: { type: 'string', default: '5000' },
    write: { type: 'boolean' },
    'base-label': { type: 'string' },
  },
});
if (values.base === undefined || values.current === undefined) {
  throw new TypeError(
    'Usage: attempt-shaping --base OLD --current NEW (folders holding node_modules/, see the top).',
  );
}
const base = variants('base', await load(values.base));
const current = variants('this build', await load(values.current));
const ordered = base.flatMap((variant, i) => [variant, control(variant), current[i] as Variant]);
const loadAtStart = loadavg()[0] ?? 0;
const result = await runOverhead({
  server: 'in-process',
  variants: ordered,
  rounds: Number(values.rounds),
  requests: Number(values.requests),
  warmup: 20_000,
});
const table = markdownTable(
  ['client', 'CPU µs/req', 'added µs/req (median)', 'added IQR', 'ratio (median)', 'ratio IQR'],
  result.rows.map((row) => [
    row.variant.name,
    fixed(row.cpuUs.median, 2),
    row.isBaseline ? 'baseline' : fixed(row.addedUs.median, 2),
    row.isBaseline ? '' : `${fixed(row.addedUs.q1, 2)} … ${fixed(row.addedUs.q3, 2)}`,
    row.isBaseline ? '' : ratio(row.ratio.median),
    row.isBaseline ? '' : `${ratio(row.ratio.q1)} … ${ratio(row.ratio.q3)}`,
  ]),
  ['l', 'r', 'r', 'r', 'r', 'r'],
);
// Within the resolution: the added µs of this build inside the A/A control's spread, or below it.
const verdicts = result.rows
  .filter((row) => row.variant.name.endsWith('this build'))
  .map((row) => {
    const aa = result.rows.find(
      (other) => other.variant.family === row.variant.family && other.variant.name.endsWith('(A/A control)'),
    );
    const within = aa !== undefined && row.addedUs.median <= aa.addedUs.q3;
    return `- ${row.variant.name}: ${fixed(row.addedUs.median, 2)} µs (${ratio(row.ratio.median)}); the A/A control read ${fixed(aa?.addedUs.median ?? Number.NaN, 2)} µs (IQR up to ${fixed(aa?.addedUs.q3 ?? Number.NaN, 2)}): ${within ? 'no more than before, within the resolution' : 'more than before'}.`;
  });
const markdown = [
  '## The success path with nothing set per attempt',
  '',
  `- Command: \`pnpm --filter @backoff/benchmarks attempt-shaping\` (${result.seconds.toFixed(0)} s), ${new Date().toISOString()}; load average (1 min) at start: ${loadAtStart.toFixed(2)}`,
  `- Each client with no \`beforeAttempt\`, \`tracer\` or \`attemptTimeout\`, as built now, against the same client built from ${values['base-label'] ?? 'an earlier commit'} (the baseline), in one run: in-process (the mock of measure 1), one process, ${result.rounds} rounds of ${result.requests} requests per client (${result.concurrency} in flight) in a shuffled order, a minor GC before each batch. The added µs are taken per round against the baseline of the same round; medians over rounds, with the IQR.`,
  '',
  table,
  '',
  ...verdicts,
].join('\n');
console.log(markdown);
if (values.write) writeSection('attempt-shaping', markdown);
