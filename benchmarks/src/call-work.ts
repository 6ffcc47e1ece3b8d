// What the core's runner does for one request, counted rather than timed: reads of the clock and of the headers of
// the attempt as the client sends it, and the result objects it makes. A count that grows here is work every
// request pays for, whatever the machine. Run with `pnpm --filter @backoff/benchmarks call-work` (under a second;
// `-- --write` writes its section of RESULTS.md).
import { fileURLToPath } from 'node:url';
import { type BackoffOptions, createBackoff } from 'backoff-core';
import { type Client, type HeadersLike, type Outcome, runCall } from 'backoff-core/adapter';
import { writeSection } from './results-sections.js';
import { fixed, markdownTable } from './table.js';

export interface CallWorkSpec {
  readonly label: string;
  readonly method: string;
  /** The Idempotency-Key on the request as sent, if any. */
  readonly key?: string;
  /** The statuses the attempts are answered with, in order (the last one ends the call). */
  readonly statuses: readonly number[];
  readonly options?: BackoffOptions;
}

export const CALL_WORK_ROWS: readonly CallWorkSpec[] = [
  { label: 'GET answered 200', method: 'GET', statuses: [200] },
  { label: 'GET answered 200, deadline 10 s', method: 'GET', statuses: [200], options: { deadline: 10_000 } },
  { label: 'GET with a key, answered 200', method: 'GET', key: '"k-1"', statuses: [200] },
  { label: 'GET with a key, answered 409, then 200', method: 'GET', key: '"k-1"', statuses: [409, 200] },
  { label: 'POST with a key, answered 200', method: 'POST', key: '"k-2"', statuses: [200] },
];

export interface CallWorkRow {
  readonly spec: CallWorkSpec;
  /** Calls of the policy's `now` per request. */
  readonly clockReads: number;
  /** Reads of the outgoing headers per request (each name looked up counts one). */
  readonly headerReads: number;
  /** Distinct result objects (what `getBackoffResult` reads) per request: a first-try success shares one. */
  readonly results: number;
}

// Waits end at once: only what the runner reads is counted, never time.
const instant = {
  setTimeout: (callback: () => void) => {
    queueMicrotask(callback);
    return 0;
  },
  clearTimeout: () => {},
};

/** Runs `requests` calls of each row on the runner and counts what they read. */
export async function measureCallWork(
  rows: readonly CallWorkSpec[] = CALL_WORK_ROWS,
  requests = 1000,
): Promise<CallWorkRow[]> {
  const measured: CallWorkRow[] = [];
  for (const spec of rows) {
    let clockReads = 0;
    let headerReads = 0;
    const results = new Set<object>();
    const policy = createBackoff({
      random: () => 0,
      budget: false,
      timers: instant,
      now: () => {
        clockReads++;
        return 0;
      },
      ...spec.options,
    });
    const headers: HeadersLike = (name) => {
      headerReads++;
      return name.toLowerCase() === 'idempotency-key' ? spec.key : undefined;
    };
    for (let i = 0; i < requests; i++) {
      let sent = 0;
      const client: Client<Outcome> = {
        next: () => ({ headers }),
        send: () => Promise.resolve({ type: 'response', status: spec.statuses[sent++] ?? 200 }),
        outcome: (settled) =>
          settled.ok ? settled.value : { type: 'error', kind: 'unknown', error: settled.error },
        signal: () => undefined,
        finish: (settled, result) => {
          results.add(result);
          if (!settled.ok) throw settled.error;
          return settled.value;
        },
      };
      await runCall(policy, { method: spec.method, url: 'https://api.test/items' }, client);
    }
    measured.push({
      spec,
      clockReads: clockReads / requests,
      headerReads: headerReads / requests,
      results: results.size / requests,
    });
  }
  return measured;
}

export function callWorkTable(rows: readonly CallWorkRow[]): string {
  return markdownTable(
    ['request', 'clock reads', 'outgoing header reads', 'result objects made'],
    rows.map((row) => [
      row.spec.label,
      fixed(row.clockReads, 2),
      fixed(row.headerReads, 2),
      fixed(row.results, 3),
    ]),
    ['l', 'r', 'r', 'r'],
  );
}

/** RESULTS.md's call-work section. */
export function callWorkSection(rows: readonly CallWorkRow[], requests: number): string {
  return [
    '## Call work: what one request costs the runner, counted',
    '',
    `\`pnpm --filter @backoff/benchmarks call-work\`: ${fixed(requests)} requests per row through \`runCall\` with ` +
      'a client that answers at once. Per request: calls of the clock (`now`), lookups in the outgoing headers, ' +
      'and distinct result objects made (a request that succeeds at its first attempt shares one frozen result).',
    '',
    callWorkTable(rows),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const requests = 1000;
  const rows = await measureCallWork(CALL_WORK_ROWS, requests);
  console.log(callWorkTable(rows));
  if (process.argv.includes('--write')) writeSection('call-work', callWorkSection(rows, requests));
}
