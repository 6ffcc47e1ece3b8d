import { startFlakyServer } from '@backoff/example-kit';
import { getBackoffResult, withBackoff } from 'backoff-core';

// A local server that fails on purpose (127.0.0.1, nothing leaves the machine); each path answers its script in
// order, then repeats the last step. 'reset' closes the socket before any answer: a network error.
const server = await startFlakyServer();
server.script('/items', [{ status: 503 }, { status: 429, headers: { 'retry-after': '1' } }, { status: 200 }]);
server.script('/flaky-socket', ['reset', { status: 200 }]);
server.script('/orders/1', [{ status: 503 }, { status: 201 }]);
server.script('/orders/2', [{ status: 503 }, { status: 201 }]);

const fetchWithBackoff = withBackoff(fetch, {
  baseDelay: 250, // short waits for the example; the default is 1 s
  onRetry: ({ retry, delay, reason, serverDelay }) =>
    console.log(
      `  retry ${retry} in ${delay} ms (${reason}${serverDelay ? `, the server asked ${serverDelay} ms` : ''})`,
    ),
});

// What the retries did, as withBackoff attaches it to the response.
function report(response: Response): void {
  const result = getBackoffResult(response);
  console.log(
    `  -> ${response.status} after ${result?.attempts} attempt(s), ${result?.totalDelay} ms waited (${result?.reason})`,
  );
}

try {
  console.log('GET /items: 503, then 429 with Retry-After: 1, then 200');
  report(await fetchWithBackoff(`${server.url}/items`));

  console.log('GET /flaky-socket: the connection is reset, then 200');
  report(await fetchWithBackoff(`${server.url}/flaky-socket`));

  const order = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"item":42}' };
  console.log('POST /orders/1 without an Idempotency-Key: 503 is final (it resolves, as fetch does)');
  report(await fetchWithBackoff(`${server.url}/orders/1`, order));

  console.log("POST /orders/2 with idempotencyKey: 'auto': 503, retried with the same key, then 201");
  report(await fetchWithBackoff(`${server.url}/orders/2`, { ...order, backoff: { idempotencyKey: 'auto' } }));

  console.log(`\nthe server saw ${server.hits.length} requests`);
} finally {
  await server.close();
}
