// What `pnpm demo` (examples/demo) runs for this example, on the kit's scenarios; the example itself is src/main.ts.
import { axiosClient } from '@backoff/example-axios';
import { fetchClient } from '@backoff/example-fetch';
import type { ExampleContext, FlakyServer } from '@backoff/example-kit';
import { RetryBudget } from 'backoff-core';

/** One line per call: which client, what it got, and what is left in the shared budget. */
export interface SharedBudgetRow {
  readonly client: string;
  readonly path: string;
  readonly attempts: number;
  readonly reason: string;
  readonly tokensLeft: number;
}

/**
 * Two clients (axios and fetch) share one small budget (reserve 4) against a backend that always answers 503:
 * the retries one client spends are gone for the other, so together they add at most 4 extra requests, not 3 per
 * call. Then a few successes on a healthy path earn tokens back (0.1 each).
 */
export async function runSharedBudget(
  context: ExampleContext,
  server: FlakyServer,
): Promise<SharedBudgetRow[]> {
  const budget = new RetryBudget({ reserve: 4, ratio: 0.1 });
  const clients = [axiosClient({ ...context.options, budget }), fetchClient({ ...context.options, budget })];
  server.script('/shared/down', [{ status: 503 }]);
  server.script('/shared/ok', [{ status: 200 }]);
  const { log } = context;
  log('\nshared budget: axios + fetch, one RetryBudget({ reserve: 4, ratio: 0.1 }), /shared/down always 503');
  log(
    `  ${'client'.padEnd(24)}${'path'.padEnd(15)}${'attempts'.padEnd(10)}${'reason'.padEnd(20)}tokens left`,
  );
  const rows: SharedBudgetRow[] = [];
  const paths = ['/shared/down', '/shared/down', '/shared/down', '/shared/down', '/shared/ok', '/shared/ok'];
  for (const [index, path] of paths.entries()) {
    const client = clients[index % 2] as (typeof clients)[number];
    const outcome = await client.send({
      method: 'GET',
      url: `${server.url}${path}`,
      backoff: { onRetry: () => {} },
    });
    const row: SharedBudgetRow = {
      client: client.name,
      path,
      attempts: outcome.result?.attempts ?? 1,
      reason: outcome.result?.reason ?? '-',
      tokensLeft: budget.snapshot().tokens,
    };
    rows.push(row);
    log(
      `  ${row.client.padEnd(24)}${path.padEnd(15)}${String(row.attempts).padEnd(10)}${row.reason.padEnd(20)}${row.tokensLeft}`,
    );
  }
  const downHits = server.hits.filter((hit) => hit.path === '/shared/down').length;
  log(
    `  -> /shared/down saw ${downHits} requests for 4 calls: 4 first attempts + the 4 retries of the shared reserve`,
  );
  return rows;
}
