// A process that queues keyed writes to a server that is down (`queue`), or replays what its outbox holds
// (`replay`), printing one line per step so the test can kill it with SIGKILL at a chosen point.
import { withBackoff } from 'backoff-core';
import { QueuedError, withOutbox } from 'backoff-core/outbox';
import { FileOutboxStore } from 'backoff-core/outbox/node';

const [mode, directory, origin, prefix, countText] = process.argv.slice(2);
if (mode === undefined || directory === undefined || origin === undefined || prefix === undefined) {
  throw new Error('usage: outbox-child queue|replay DIRECTORY ORIGIN PREFIX [COUNT]');
}
const store = new FileOutboxStore(directory);
const fetch = withBackoff(undefined, { retries: 0, budget: false });
const send = withOutbox(fetch, { store, replayOnStart: mode === 'replay' });
send.outbox.on((event) => {
  if (event.type === 'replayed') process.stdout.write(`replayed ${event.entry.key}\n`);
  else if (event.type !== 'queued') process.stdout.write(`${event.type} ${JSON.stringify(event)}\n`);
});

if (mode === 'queue') {
  const count = Number(countText);
  // A restart goes on after the last write it queued: the store says which, even if its line was never printed.
  const queued = (await store.list()).map((entry) => Number(entry.key.slice(prefix.length + 1)));
  const start = Math.max(-1, ...queued) + 1;
  for (let i = start; i < count; i++) {
    const key = `${prefix}-${String(i).padStart(3, '0')}`;
    const error = await send(`${origin}/writes`, {
      method: 'POST',
      headers: { 'Idempotency-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ i }),
    }).catch((caught: unknown) => caught);
    if (!(error instanceof QueuedError))
      throw new Error(`expected ${key} to be queued, got ${String(error)}`);
    process.stdout.write(`queued ${key}\n`);
  }
  send.outbox.close();
  process.stdout.write('done\n');
} else {
  for (;;) {
    const report = await send.outbox.retry();
    if (report.remaining === 0) break;
  }
  send.outbox.close();
  process.stdout.write('done\n');
}
