import { type DemoContext, fetchCall } from './fetch-client.js';
import { startFlakyServer } from './flaky-server.js';

/** What the demo run produced, for its test. */
export interface DemoReport {
  readonly statuses: ReadonlyArray<number | undefined>;
  readonly serverHits: number;
}

/**
 * Runs every demo scenario against one embedded flaky server on 127.0.0.1 and prints a timeline per call.
 * `context.options` reaches every client, so a test can inject a virtual clock.
 */
export async function runDemo(context: DemoContext): Promise<DemoReport> {
  const server = await startFlakyServer();
  const { log } = context;
  try {
    log(`backoff demo: flaky server on ${server.url} (loopback only)`);
    server.script('/flaky', [
      { status: 503 },
      { status: 503 },
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 200 },
    ]);
    const statuses = [
      await fetchCall(
        context,
        'withBackoff(fetch)  GET /flaky  (server: 503, 503, 429 Retry-After: 1, 200)',
        `${server.url}/flaky`,
      ),
    ];
    return { statuses, serverHits: server.hits.length };
  } finally {
    await server.close();
  }
}
