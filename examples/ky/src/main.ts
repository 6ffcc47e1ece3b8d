import { startFlakyServer } from '@backoff/example-kit';
import ky, { isHTTPError } from 'ky';
import { getBackoffResult, kyBackoff } from 'ky-backoff';

// A local server that fails on purpose (127.0.0.1, nothing leaves the machine); each path answers its script in
// order, then repeats the last step.
const server = await startFlakyServer();
server.script('/items', [{ status: 503 }, { status: 429, headers: { 'retry-after': '1' } }, { status: 200 }]);
server.script('/orders/1', [{ status: 503 }, { status: 201 }]);
server.script('/orders/2', [{ status: 503 }, { status: 201 }]);

// kyBackoff returns a new instance with retries; the one you pass is left as it was.
const api = kyBackoff(ky.create({ prefix: server.url, timeout: 5_000 }), {
  baseDelay: 250, // short waits for the example; the default is 1 s
  onRetry: ({ retry, delay, reason, serverDelay }) =>
    console.log(
      `  retry ${retry} in ${delay} ms (${reason}${serverDelay ? `, the server asked ${serverDelay} ms` : ''})`,
    ),
});
const order = { item: 42, quantity: 1 };

// What the retries did, as ky-backoff attaches it to the response or the error.
function report(status: number | undefined, responseOrError: unknown): void {
  const result = getBackoffResult(responseOrError);
  console.log(
    `  -> ${status} after ${result?.attempts} attempt(s), ${result?.totalDelay} ms waited (${result?.reason})`,
  );
}

try {
  console.log('GET items: 503, then 429 with Retry-After: 1, then 200');
  const items = await api.get('items');
  report(items.status, items);

  console.log('POST orders/1 without an Idempotency-Key: 503 is final, the order is not sent twice');
  try {
    await api.post('orders/1', { json: order });
  } catch (error) {
    if (!isHTTPError(error)) throw error;
    report(error.response.status, error); // ky's own HTTPError
  }

  console.log('POST orders/2 with an Idempotency-Key: 503, retried, then 201');
  const headers = { 'Idempotency-Key': `"${crypto.randomUUID()}"` };
  const created = await api.post('orders/2', { json: order, headers });
  report(created.status, created);

  console.log(`\nthe server saw ${server.hits.length} requests`);
} finally {
  await server.close();
}
