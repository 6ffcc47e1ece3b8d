import type { BackoffOptions } from 'backoff-core';
import type { ExampleClient, ExampleRequest } from './client.js';
import type { DemoStep, FlakyServer } from './flaky-server.js';
import { Timeline } from './timeline.js';

/** One scripted situation: what the server will answer, and the request the client sends. */
export interface Scenario {
  readonly name: string;
  readonly steps: readonly DemoStep[];
  readonly method: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly backoff?: BackoffOptions;
}

/** The scenarios every client goes through: what is retried, the idempotency gate, Retry-After. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'GET: 503, 503, 429 Retry-After: 1, 200',
    method: 'GET',
    steps: [
      { status: 503 },
      { status: 503 },
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200 },
    ],
  },
  { name: 'GET: socket reset, then 200', method: 'GET', steps: ['reset', { status: 200 }] },
  {
    name: 'POST without an Idempotency-Key: 503 is final',
    method: 'POST',
    json: { item: 42 },
    steps: [{ status: 503 }, { status: 201 }],
  },
  {
    name: "POST with idempotencyKey: 'auto': 503, then 201",
    method: 'POST',
    json: { item: 42 },
    backoff: { idempotencyKey: 'auto' },
    steps: [{ status: 503 }, { status: 201 }],
  },
];

/** One row of a client's summary table. */
export interface SummaryRow {
  readonly scenario: string;
  readonly outcome: string;
  readonly attempts: number;
  readonly waited: number;
  readonly serverHits: number;
  /** Distinct Idempotency-Key values the server saw (1 for a keyed request retried right). */
  readonly keys: number;
}

/** Where examples write, and the options every client shares (tests inject a virtual clock here). */
export interface ExampleContext {
  readonly log: (line: string) => void;
  readonly options: BackoffOptions;
  readonly now: () => number;
}

/**
 * Runs one scenario with one client against the server, printing its timeline as it happens; the rows come from
 * the server's record of each request.
 */
export async function runScenario(
  context: ExampleContext,
  server: FlakyServer,
  client: ExampleClient,
  scenario: Scenario,
  index: number,
): Promise<SummaryRow> {
  const path = `/${client.slug}/${index}`;
  server.script(path, scenario.steps);
  const timeline = new Timeline(
    `${client.name}  ${scenario.method} ${path}  (${scenario.name})`,
    context.log,
    context.now,
  );
  const stop = server.watch((hit) => {
    if (hit.path === path) timeline.answered(hit.answer);
  });
  const request: ExampleRequest = {
    method: scenario.method,
    url: `${server.url}${path}`,
    ...(scenario.headers ? { headers: scenario.headers } : {}),
    ...(scenario.json === undefined ? {} : { json: scenario.json }),
    backoff: { ...scenario.backoff, onRetry: timeline.onRetry },
  };
  try {
    const outcome = await client.send(request);
    const text = outcome.status === undefined ? `failed: ${outcome.error}` : String(outcome.status);
    timeline.finish(text, outcome.result);
    const hits = server.hits.filter((hit) => hit.path === path);
    return {
      scenario: scenario.name,
      outcome:
        outcome.status === undefined ? 'error' : `${outcome.status}${outcome.error ? ' (rejected)' : ''}`,
      attempts: outcome.result?.attempts ?? hits.length,
      waited: outcome.result?.totalDelay ?? 0,
      serverHits: hits.length,
      keys: new Set(hits.flatMap((hit) => (hit.idempotencyKey === undefined ? [] : [hit.idempotencyKey])))
        .size,
    };
  } finally {
    stop();
  }
}

/** Runs every scenario with one client, in order. */
export async function runScenarios(
  context: ExampleContext,
  server: FlakyServer,
  client: ExampleClient,
  scenarios: readonly Scenario[] = SCENARIOS,
): Promise<SummaryRow[]> {
  const rows: SummaryRow[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    rows.push(await runScenario(context, server, client, scenario, index + 1));
  }
  return rows;
}
