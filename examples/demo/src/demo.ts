import { axiosClient } from '@backoff/example-axios';
import { fetchClient } from '@backoff/example-fetch';
import {
  type ExampleClient,
  type ExampleContext,
  runScenarios,
  type SummaryRow,
  startFlakyServer,
  summaryTable,
} from '@backoff/example-kit';
import { kyClient } from '@backoff/example-ky';
import { runSharedBudget, type SharedBudgetRow } from '@backoff/example-shared-budget';
import { type CircuitReport, runCircuitBreaker } from './circuit.js';

/** What the demo run produced, for its test. */
export interface DemoReport {
  readonly summaries: ReadonlyArray<{ readonly client: string; readonly rows: readonly SummaryRow[] }>;
  readonly sharedBudget: readonly SharedBudgetRow[];
  readonly circuit: CircuitReport;
  readonly serverHits: number;
}

/** The clients the demo runs, each built with the demo's shared options. */
export function demoClients(context: ExampleContext): ExampleClient[] {
  return [fetchClient(context.options), axiosClient(context.options), kyClient(context.options)];
}

/**
 * Runs every client through every scenario against one embedded flaky server on 127.0.0.1, printing a timeline
 * per call, then the shared-budget example, the circuit breaker on its timeline with a metrics snapshot, then a
 * summary table per client.
 */
export async function runDemo(context: ExampleContext): Promise<DemoReport> {
  const server = await startFlakyServer();
  const { log } = context;
  try {
    log(`backoff demo: flaky server on ${server.url} (loopback only)`);
    const summaries = [];
    for (const client of demoClients(context)) {
      summaries.push({ client: client.name, rows: await runScenarios(context, server, client) });
    }
    const sharedBudget = await runSharedBudget(context, server);
    const circuit = await runCircuitBreaker(context, server);
    for (const { client, rows } of summaries) {
      for (const line of summaryTable(client, rows)) log(line);
    }
    return { summaries, sharedBudget, circuit, serverHits: server.hits.length };
  } finally {
    await server.close();
  }
}
