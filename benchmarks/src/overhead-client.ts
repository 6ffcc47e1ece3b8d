/**
 * One client of the overhead measure in a Node process of its own (`OverheadOptions.isolate`, overhead.ts): it
 * builds the variant named on its command line against the in-process mock or the loopback server, then sends
 * the batches it is sent (`BatchOrder`) and answers each with `BatchReply`. Run through tsx (`--import tsx`).
 */
import { Agent } from 'node:http';
import type { Transport } from './clients.js';
import {
  type BatchOrder,
  type BatchReply,
  mockServer,
  OVERHEAD_VARIANTS,
  send,
  timedBatch,
} from './overhead.js';

const [id, mode, url] = process.argv.slice(2);
const variant = OVERHEAD_VARIANTS.find((candidate) => candidate.id === id);
if (variant === undefined || url === undefined) {
  throw new Error(`overhead-client: no variant \`${id}\` (or no URL); usage: overhead-client.ts ID MODE URL`);
}
// Each axios client its own keep-alive agent on the loopback, as in the shared process; fetch keeps
// connections alive by itself.
const agent = mode === 'loopback' ? new Agent({ keepAlive: true }) : undefined;
const transport: Transport = agent === undefined ? mockServer().transport() : { httpAgent: agent };
const client = variant.create(transport);

const answer = (reply: BatchReply) => process.send?.(reply);

process.on('message', (order: BatchOrder) => {
  const done = order.timed
    ? timedBatch(client, url, order.requests, order.concurrency).then((cost) => answer({ cost }))
    : send(client, url, order.requests, order.concurrency).then(() => answer({}));
  done.catch((error: unknown) =>
    answer({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
// The parent ends the run by disconnecting (or dying).
process.on('disconnect', () => {
  agent?.destroy();
  process.exit(0);
});
answer({});
