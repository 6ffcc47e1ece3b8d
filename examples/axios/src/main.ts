import { startFlakyServer } from '@backoff/example-kit';
import axios from 'axios';
import { axiosBackoff, getBackoffResult } from 'axios-backoff';

// A local server that fails on purpose (127.0.0.1, nothing leaves the machine); each path answers its script in
// order, then repeats the last step.
const server = await startFlakyServer();
server.script('/items', [{ status: 503 }, { status: 429, headers: { 'retry-after': '1' } }, { status: 200 }]);
server.script('/orders/1', [{ status: 503 }, { status: 201 }]);
server.script('/orders/2', [{ status: 503 }, { status: 201 }]);

const api = axios.create({ baseURL: server.url, timeout: 5_000 });
axiosBackoff(api, {
  baseDelay: 250, // short waits for the example; the default is 1 s
  onRetry: ({ retry, delay, reason, serverDelay }) =>
    console.log(
      `  retry ${retry} in ${delay} ms (${reason}${serverDelay ? `, the server asked ${serverDelay} ms` : ''})`,
    ),
});
const order = { item: 42, quantity: 1 };

// What the retries did, as axios-backoff attaches it to the response or the error.
function report(status: number | undefined, responseOrError: unknown): void {
  const result = getBackoffResult(responseOrError);
  console.log(
    `  -> ${status} after ${result?.attempts} attempt(s), ${result?.totalDelay} ms waited (${result?.reason})`,
  );
}

try {
  console.log('GET /items: 503, then 429 with Retry-After: 1, then 200');
  const items = await api.get('/items');
  report(items.status, items);

  console.log('POST /orders/1 without an Idempotency-Key: 503 is final, the order is not sent twice');
  try {
    await api.post('/orders/1', order);
  } catch (error) {
    if (!axios.isAxiosError(error)) throw error;
    report(error.response?.status, error); // axios's own AxiosError
  }

  console.log('POST /orders/2 with an Idempotency-Key: 503, retried, then 201');
  const headers = { 'Idempotency-Key': `"${crypto.randomUUID()}"` };
  const created = await api.post('/orders/2', order, { headers });
  report(created.status, created);

  console.log(`\nthe server saw ${server.hits.length} requests`);
} finally {
  await server.close();
}
