import { axiosClient } from '@backoff/example-axios';
import { fetchClient } from '@backoff/example-fetch';
import { duration, type ExampleContext, type FlakyServer } from '@backoff/example-kit';
import { kyClient } from '@backoff/example-ky';
import {
  BackoffMetrics,
  type BackoffMetricsSnapshot,
  CircuitBreaker,
  type CircuitStateChange,
} from 'backoff-core';
import { sleep } from 'backoff-core/adapter';

/** One call of the circuit-breaker part: who sent it, what the caller got, and whether it reached the server. */
export interface CircuitRow {
  readonly client: string;
  readonly outcome: string;
  readonly reason: string;
  readonly attempts: number;
  readonly sent: number;
}

export interface CircuitReport {
  readonly rows: readonly CircuitRow[];
  readonly changes: readonly CircuitStateChange[];
  readonly metrics: BackoffMetricsSnapshot;
  readonly serverHits: number;
}

/**
 * The three clients share one CircuitBreaker and one BackoffMetrics against a backend that is down for a while:
 * the breaker opens after 3 failed calls, the next calls fail at once with nothing sent, a probe after the
 * (shortened) break still fails and doubles it, the next probe succeeds and closes it. Then the metrics snapshot.
 */
export async function runCircuitBreaker(
  context: ExampleContext,
  server: FlakyServer,
): Promise<CircuitReport> {
  const { log, now } = context;
  const started = now();
  const at = () => duration(now() - started).padStart(8);
  const changes: CircuitStateChange[] = [];
  // Shortened for the demo: 3 failed calls in a row trip it; a 500 ms first break, doubling.
  const breaker = new CircuitBreaker({
    consecutiveFailures: 3,
    breakDuration: 500,
    maxBreakDuration: 4000,
    onStateChange: (change) => {
      changes.push(change);
      const probe =
        change.openUntil === undefined ? '' : ` (next probe in ${duration(change.openUntil - change.at)})`;
      log(`  ${at()}  circuit ${change.from} -> ${change.to}${probe}`);
    },
  });
  const metrics = new BackoffMetrics();
  const options = { ...context.options, retries: 1, circuitBreaker: breaker, metrics };
  const clients = [fetchClient(options), axiosClient(options), kyClient(options)];
  const path = '/circuit/items';
  // Down for the first 7 requests (3 calls of 2 attempts, then the first probe), up from then on.
  server.script(path, [...Array.from({ length: 7 }, () => ({ status: 503 })), { status: 200 }]);
  const hits = () => server.hits.filter((hit) => hit.path === path).length;

  log(
    '\ncircuit breaker: fetch, axios and ky share one CircuitBreaker and one BackoffMetrics; GET /circuit/items',
  );
  log(
    '  (the backend answers 503 to its first 7 requests, then 200; breaker: 3 failures trip it, 500 ms break)',
  );
  const rows: CircuitRow[] = [];
  const call = async (index: number) => {
    const client = clients[index % clients.length] as (typeof clients)[number];
    const before = hits();
    const outcome = await client.send({
      method: 'GET',
      url: `${server.url}${path}`,
      backoff: { onRetry: () => {} },
    });
    // An error as its name (axios: its code too), e.g. 'CircuitOpenError' or 'AxiosError ERR_CIRCUIT_OPEN'.
    const name = (outcome.error ?? 'error').split(':')[0] ?? 'error';
    const failedFast = outcome.result?.reason === 'circuit-open' && name === 'AxiosError';
    const row: CircuitRow = {
      client: client.name,
      outcome:
        outcome.status === undefined
          ? `${name}${failedFast ? ' ERR_CIRCUIT_OPEN' : ''}`
          : String(outcome.status),
      reason: outcome.result?.reason ?? '-',
      attempts: outcome.result?.attempts ?? 0,
      sent: hits() - before,
    };
    rows.push(row);
    const sent = row.sent === 0 ? 'nothing sent' : `${row.sent} sent`;
    log(`  ${at()}  ${row.client.padEnd(22)} ${row.outcome.padEnd(28)} ${row.reason}, ${sent}`);
  };
  const pause = async (ms: number) => {
    log(`  ${at()}  ... ${duration(ms)} later`);
    await sleep(ms, undefined, context.options.timers);
  };

  for (let i = 0; i < 5; i++) await call(i); // 3 failures trip it; 2 fail fast
  await pause(500);
  await call(5); // the probe: still down, re-opens with a 1 s break
  await call(6); // fails fast
  await pause(1000);
  await call(7); // the probe succeeds: closed
  await call(8);
  const snapshot = metrics.snapshot();
  log('\nmetrics snapshot (one BackoffMetrics shared by the three clients; ms rounded):');
  for (const [key, value] of Object.entries(snapshot)) {
    log(
      `  ${`${key}:`.padEnd(17)} ${JSON.stringify(value, (_, v) => (typeof v === 'number' ? Math.round(v) : v))}`,
    );
  }
  return { rows, changes, metrics: snapshot, serverHits: hits() };
}
