import { startFlakyServer } from '@backoff/example-kit';
import axios from 'axios';
import { axiosBackoff, getBackoffResult, RetryBudget, type RetryEvent } from 'axios-backoff';
import { withBackoff } from 'backoff-core';

// A local server (127.0.0.1, nothing leaves the machine): /down always answers 503, /ok always 200.
const server = await startFlakyServer();
server.script('/down', [{ status: 503 }]);
server.script('/ok', [{ status: 200 }]);

// One budget for both clients: the retries one spends are gone for the other. A reserve of 4 retries, and each
// success earns back 0.1 of one.
const budget = new RetryBudget({ reserve: 4, ratio: 0.1 });
const onRetry = ({ retry, delay }: RetryEvent) => console.log(`  retry ${retry} in ${delay} ms`);
const api = axios.create({ baseURL: server.url });
axiosBackoff(api, { budget, baseDelay: 100, onRetry }); // short waits for the example; the default is 1 s
const fetchWithBackoff = withBackoff(fetch, { budget, baseDelay: 100, onRetry });

// Runs one call, resolved or rejected, and prints what the retries did and what is left in the shared budget.
async function call(label: string, send: () => Promise<unknown>): Promise<void> {
  console.log(label);
  const responseOrError = await send().catch((error: unknown) => error);
  const result = getBackoffResult(responseOrError);
  console.log(
    `  -> ${result?.attempts} attempt(s) (${result?.reason}); budget: ${budget.snapshot().tokens} retries left`,
  );
}

try {
  for (let i = 0; i < 2; i++) {
    await call('axios GET /down', () => api.get('/down'));
    await call('fetch GET /down', () => fetchWithBackoff(`${server.url}/down`));
  }
  await call('axios GET /ok', () => api.get('/ok'));
  await call('fetch GET /ok', () => fetchWithBackoff(`${server.url}/ok`));

  const down = server.hits.filter((hit) => hit.path === '/down').length;
  console.log(
    `\n/down saw ${down} requests for 4 calls: 4 first attempts and the 4 retries of the shared reserve`,
  );
} finally {
  await server.close();
}
