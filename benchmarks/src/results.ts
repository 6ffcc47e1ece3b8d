import { amplificationTable } from './amplification.js';
import { memoryTable } from './memory.js';
import { memoryVerdicts, overheadSection, speedVerdicts } from './results-overhead.js';
import type { BenchReport } from './suite.js';
import { fixed } from './table.js';

/** RESULTS.md: the machine, the targets, then one section per measure. */
export function renderResults(report: BenchReport): string {
  const { machine } = report;
  const versions = Object.entries(machine.versions)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  const out: string[] = [
    '# Benchmarks: results of a real run',
    '',
    'Written by `pnpm bench` (benchmarks/src/main.ts); do not edit by hand, run it again.',
    '',
    `- Command: \`${report.command}\` (${fixed(report.seconds, 0)} s)`,
    `- Date: ${machine.date}`,
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}`,
    `- Node ${machine.node}; ${versions}`,
    `- Load average (1 min) at start / end: ${machine.loadAtStart.toFixed(2)} / ${report.loadAtEnd.toFixed(2)} ` +
      '(other work was running on this machine: noise in measure 1)',
    `- Cores: ${report.pinning?.note ?? 'not pinned (a quick run, or measure 1 not run)'}`,
    '- The backoff packages are measured as built (`dist/`, what npm users get; `pnpm bench` builds them first), ' +
      'the peers as published.',
    '',
    '## Targets',
    '',
    ...speedVerdicts(report),
    ...memoryVerdicts(report),
    '',
  ];
  const overhead = overheadSection(report);
  if (overhead) out.push(overhead, '');
  if (report.amplification) {
    const a = report.amplification;
    out.push(
      '## 2. Amplification',
      '',
      `${fixed(a.requests)} GETs per library and failure rate, one at a time, against an in-process server that ` +
        `answers 503 to each attempt with the given probability (seed ${a.seed}; the draw depends only on the ` +
        'request and the attempt, so the same attempts fail for every library), else 200. Attempts are counted ' +
        'on the server side. A fresh client per cell (a drained budget does not carry over).',
      '',
      '- **Why in-process**: the server is an axios adapter / a fetch function that builds each client’s own ' +
        'response (axios’s `settle` semantics, a fetch `Response`): every interceptor, hook and retry decision ' +
        'of every library runs as it would on a socket, and ' +
        `${a.rows.length * (a.rows[0]?.cells.length ?? 0)} cells × ${fixed(a.requests)} requests took ` +
        `${fixed(a.seconds, 0)} s instead of minutes of loopback traffic.`,
      '- **How waits are made instant, the same way for all**: during the measure `globalThis.setTimeout` is a ' +
        'virtual clock (benchmarks/src/virtual-timers.ts) that fires one timer per event-loop turn, earliest ' +
        'first. Every library keeps its own default delays (backoff: full jitter from 1 s; axios-retry: none; ' +
        'retry-axios: 50/150/350 ms; ky: 300/600/1200 ms); the wait column is what they would have slept.',
      '- Every library here has 3 retries by default except ky (2), which also has a `retry: 3` row: those are ' +
        'the equal-count rows. `budget: false` rows show what the retry budget alone changes.',
      '',
      amplificationTable(a),
      '',
    );
  }
  if (report.memory) {
    const m = report.memory;
    out.push(
      '## 3. Memory',
      '',
      `Retained heap per request, ${fixed(m.requests)} requests parked at once through one client (median of ` +
        `${m.rounds} rounds): \`heapUsed\` after two full GCs, before and after parking, divided by N. A retrying ` +
        'client’s requests got a 503 and sit in their retry wait (the virtual clock holds the timer); the ' +
        'baseline is the bare client with its requests in flight (the server has not answered). 50 requests ' +
        'through the same client first, so code and caches are not counted. The backoff packages run with a ' +
        'budget whose reserve cannot run dry (the default one would refuse all but 20 of the parked retries).',
      '',
      memoryTable(m),
      '',
      '- The mock’s responses carry no socket objects. With axios’s http adapter or undici, whatever a ' +
        'parked request still references from its failed attempt (the response, the error and its request) ' +
        'would weigh more than here; the differences between libraries are what this table shows.',
      '',
    );
  }
  return `${out.join('\n').trimEnd()}\n`;
}
