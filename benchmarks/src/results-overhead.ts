import { CALIBRATION_US, type Family } from './clients.js';
import {
  AXIOS_ADDED_TARGET_US,
  addedRange,
  loopbackTarget,
  type OverheadResult,
  type OverheadRow,
  overheadTable,
  signed,
} from './overhead.js';
import type { OwnWorkResult } from './own-work.js';
import { type ProfileResult, profileFrameTable, profileOwnerTable } from './profile.js';
import type { BenchReport } from './suite.js';
import { fixed, ratio } from './table.js';

// RESULTS.md's measure 1 (success-path overhead): the in-process µs first, what the harness resolves (the A/A
// and calibration controls), where the time goes (the profile), and the loopback ratios last.

const FAMILIES: readonly Family[] = ['axios', 'ky', 'fetch'];

function find(result: OverheadResult | undefined, id: string): OverheadRow | undefined {
  return result?.rows.find((row) => row.variant.id === id);
}

/** The A/A control's spread: no difference closer to 0 than this is resolved by the run. */
export function resolution(result: OverheadResult | undefined, family: Family): number | undefined {
  const control = find(result, `${family}-control`);
  if (control === undefined) return undefined;
  return Math.max(Math.abs(control.addedUs.q1), Math.abs(control.addedUs.q3));
}

/** One line per family: the A/A spread and what the known calibration work reads as. */
function controlLines(result: OverheadResult, unit: 'µs' | 'ratio'): string[] {
  return FAMILIES.flatMap((family) => {
    const control = find(result, `${family}-control`);
    const calibrated = find(result, `${family}-calibration`);
    if (control === undefined || calibrated === undefined) return [];
    if (unit === 'ratio') {
      return [
        `- ${family}: A/A ${ratio(control.ratio.median)} (min–max ${ratio(control.ratio.min)}–` +
          `${ratio(control.ratio.max)}); the ${CALIBRATION_US} µs of calibration work read as ${signed(calibrated.addedUs.median)} µs ` +
          `(IQR ${addedRange(calibrated.addedUs)}).`,
      ];
    }
    return [
      `- ${family}: A/A ${signed(control.addedUs.median, 2)} µs (IQR ${addedRange(control.addedUs)}, min–max ` +
        `${signed(control.addedUs.min)} … ${signed(control.addedUs.max)}); the ${CALIBRATION_US} µs of calibration work ` +
        `read as ${signed(calibrated.addedUs.median, 2)} µs (IQR ${addedRange(calibrated.addedUs)}).`,
    ];
  });
}

function profileSection(profile: ProfileResult): string[] {
  return [
    '### Where the time goes: profile self-time (in-process)',
    '',
    `V8’s sampling profiler (\`node:inspector\`, every ${profile.intervalUs} µs) over ${fixed(profile.requests)} ` +
      'requests per client on the same in-process mock, after a warm-up; each sample’s time is given to the ' +
      'function it was in (self time), summed per owner and divided by the requests. Sampling attributes time ' +
      'rather than timing it, and the profiler slows everything down: compare the shares, not these totals, ' +
      'with the table above. *backoff* is this repository’s packages (as built, `dist/`), *gc* the garbage ' +
      'collector, *harness* the bench’s own code (the mock server included).',
    '',
    profileOwnerTable(profile),
    '',
    'The backoff packages’ own functions, largest self time first:',
    '',
    profileFrameTable(profile),
  ];
}

/** Where the clients ran: each in processes of its own (`isolate`), or all in the bench's process. */
function isolation(result: OverheadResult): string {
  if (!result.isolated) return 'All clients ran in the bench’s own process, sharing the libraries’ code.';
  return (
    `Each client ran in a Node process of its own (${result.processes} in turn, the rounds shared out between ` +
    'them), so that no client is timed on library code that the others’ shapes have made polymorphic, and the ' +
    'median spans several JIT outcomes.'
  );
}

export function overheadSection(report: BenchReport): string {
  const loop = report.overhead;
  const inProc = report.overheadInProcess;
  const lines: string[] = ['## 1. Success-path overhead', ''];
  if (inProc !== undefined) {
    lines.push(
      `Client CPU time (\`process.cpuUsage()\`, user + system) per successful GET, **in-process**: the server is ` +
        'an axios adapter / a fetch answering 200 at once through each client’s own response objects (the mock of ' +
        'measure 3), so only JavaScript is timed and the added µs are each library’s own work. ' +
        isolation(inProc) +
        ` One family (axios, ky, fetch) at a time: ${fixed(inProc.warmup)} untimed requests per client (per ` +
        `process), then ${inProc.rounds} rounds in which every client of the family sends ` +
        `${fixed(inProc.requests)} requests (${inProc.concurrency} in flight), in a freshly shuffled order ` +
        '(seeded), a full GC before each batch. The added µs and ratios are taken per round against the bare ' +
        'client of the family in that round; medians over rounds, with the IQR.',
      '',
      overheadTable(inProc),
      '',
      '**What this run resolves.** *A/A control*: the bare client measured again as if it were another library; ' +
        'its spread is the resolution limit (a difference inside it is noise). *Calibration*: the bare client plus ' +
        `a known ${CALIBRATION_US} µs of CPU work per request (a WebAssembly spin loop timed once against \`process.cpuUsage()\`); ` +
        'what it reads as shows how faithfully the harness reports a cost of that size.',
      '',
      ...controlLines(inProc, 'µs'),
      '',
      '*pass-through adapter* / *no-op hooks*: the least any retry plugin of that shape costs — an async wrapper ' +
        'around axios’s adapter, or a `beforeRequest` and a `beforeError` hook and a pass-through `fetch` for ky.',
      '',
    );
  }
  if (report.ownWork !== undefined) lines.push(...ownWorkSection(report.ownWork));
  if (report.profile !== undefined) lines.push(...profileSection(report.profile), '');
  if (loop !== undefined) {
    lines.push(
      '### On the loopback',
      '',
      'The same clients against a keep-alive `node:http` server on 127.0.0.1 in a child process ' +
        `(${loop.serverPinned ? 'pinned to a core of its own' : 'not pinned'}), ${loop.rounds} rounds of ` +
        `${fixed(loop.requests)}. ${isolation(loop)} Only the client’s CPU is counted, but that includes the kernel’s socket work and ` +
        'the HTTP parser: a library’s few µs sit on top of ~300 µs, and the controls below show that this run does ' +
        'not resolve them. Its ratios are reported for completeness; the in-process µs are the measure.',
      '',
      overheadTable(loop),
      '',
      ...controlLines(loop, 'ratio'),
    );
  }
  return lines.join('\n').trimEnd();
}

/** Measure 1d in the Targets line of axios-backoff: its own functions, timed without axios around them. */
function ownWorkNote(own: OwnWorkResult | undefined): string {
  if (own === undefined) return '';
  return (
    ` Of that, axios-backoff’s own functions take ${signed(own.addedUs.median, 2)} µs (IQR ` +
    `${addedRange(own.addedUs, 2)}), timed alone (measure 1d); the rest is axios running a request interceptor ` +
    'and an adapter other than its own.'
  );
}

/** Measure 1d's paragraph. */
function ownWorkSection(own: OwnWorkResult): string[] {
  return [
    '### axios-backoff’s own functions, alone (1d)',
    '',
    'The request interceptor axiosBackoff registers and the adapter it sets, called directly on a config shaped ' +
      'as axios builds one (an instance’s defaults, a GET, AxiosHeaders), against calling the same mock adapter ' +
      `directly: ${own.rounds} rounds of ${fixed(own.calls)} calls each way, in alternating order, a full GC ` +
      'before each batch, in the bench’s own process. Without axios’s ~30 µs around it, a fraction of a µs is ' +
      'resolved.',
    '',
    `- mock adapter alone: ${fixed(own.bareUs.median, 2)} µs per call; through axios-backoff: ` +
      `${signed(own.addedUs.median, 2)} µs more (IQR ${addedRange(own.addedUs, 2)}, min–max ` +
      `${signed(own.addedUs.min, 2)} … ${signed(own.addedUs.max, 2)}).`,
    '',
  ];
}

/** The Targets lines of measure 1 (axios-backoff's added µs, the loopback ratios) and of measure 5 (memory). */
export function overheadVerdicts(report: BenchReport): string[] {
  const inProc = report.overheadInProcess;
  const loop = report.overhead;
  const lines: string[] = [];
  const axiosBackoff = find(inProc, 'axios-backoff');
  if (axiosBackoff !== undefined) {
    const retry = find(inProc, 'axios-retry');
    const floor = find(inProc, 'axios-pass-through');
    const limit = resolution(inProc, 'axios');
    const calibrated = find(inProc, 'axios-calibration');
    const met = axiosBackoff.addedUs.median <= AXIOS_ADDED_TARGET_US;
    lines.push(
      `- **axios + axios-backoff: ${signed(axiosBackoff.addedUs.median)} µs per successful request over bare ` +
        `axios, in-process (IQR ${addedRange(axiosBackoff.addedUs)}): target ≤ +${AXIOS_ADDED_TARGET_US} µs ` +
        `${met ? 'met' : 'missed'}.** axios-retry: ${retry ? signed(retry.addedUs.median) : '?'} µs; the empty ` +
        `async adapter wrapper (the floor of this design): ${floor ? signed(floor.addedUs.median) : '?'} µs. ` +
        `Resolution: the A/A control’s IQR reaches ±${limit === undefined ? '?' : fixed(limit, 2)} µs, and the ` +
        `${CALIBRATION_US} µs calibration read as ${calibrated ? signed(calibrated.addedUs.median, 2) : '?'} µs.` +
        ownWorkNote(report.ownWork),
    );
  }
  const fetchBackoff = find(inProc, 'with-backoff');
  if (fetchBackoff !== undefined) {
    lines.push(
      `- fetch + withBackoff: ${signed(fetchBackoff.addedUs.median)} µs per successful request over bare fetch, ` +
        `in-process (IQR ${addedRange(fetchBackoff.addedUs)}; A/A ±${fixed(resolution(inProc, 'fetch') ?? 0, 2)} µs).`,
    );
  }
  if (loop !== undefined) {
    const ratios = ['axios-backoff', 'ky-backoff', 'with-backoff'].flatMap((id) => {
      const onLoop = find(loop, id);
      if (onLoop === undefined) return [];
      const target = loopbackTarget(onLoop);
      return [
        `${onLoop.variant.name} ${ratio(onLoop.ratio.median)} (target ≤ ${target}x ` +
          `${onLoop.ratio.median <= target ? 'met' : 'missed'})`,
      ];
    });
    const control = find(loop, 'axios-control');
    lines.push(
      `- Loopback ratios: ${ratios.join('; ')}. Not resolved at this scale: the axios A/A control read ` +
        `${control ? `${ratio(control.ratio.median)} (min–max ${ratio(control.ratio.min)}–${ratio(control.ratio.max)})` : '?'}.`,
    );
  }
  return lines;
}

/** The memory targets: axios-backoff ≤ axios-retry + 1 kB, withBackoff ≤ 3 kB per parked request. */
export const MEMORY_TARGETS = { axiosOverAxiosRetry: 1000, withBackoff: 3000 } as const;

export function memoryVerdicts(report: BenchReport): string[] {
  const rows = report.memory?.rows;
  if (rows === undefined) return [];
  const parked = (id: string) =>
    rows.find((r) => r.subject.variant.id === id && r.subject.parked === 'in retry wait')?.bytesPerRequest;
  const own = parked('axios-backoff');
  const peer = parked('axios-retry');
  const fetchOwn = parked('with-backoff');
  const lines: string[] = [];
  if (own !== undefined && peer !== undefined) {
    const target = peer + MEMORY_TARGETS.axiosOverAxiosRetry;
    lines.push(
      `- **axios-backoff: ${fixed(own)} B per request parked in a retry wait, axios-retry ${fixed(peer)} B: target ≤ ` +
        `${fixed(target)} B (axios-retry + 1 kB) ${own <= target ? 'met' : 'missed'}.**`,
    );
  }
  if (fetchOwn !== undefined) {
    lines.push(
      `- **withBackoff: ${fixed(fetchOwn)} B per parked request: target ≤ ${fixed(MEMORY_TARGETS.withBackoff)} B ` +
        `${fetchOwn <= MEMORY_TARGETS.withBackoff ? 'met' : 'missed'}.**`,
    );
  }
  return lines;
}
