// One process of a fleet: sends its share of the calls on the wall clock and prints what happened, a JSON line
// per event. Run by fleet.ts as `node --import tsx --conditions=@backoff/source worker.ts '<config>'`.
import { CircuitBreaker, Pacer, withBackoff } from 'backoff-core';
import { RedisStore } from 'backoff-redis';
import { createClient } from 'redis';
import type { WorkerConfig } from './fleet.ts';

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
const print = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);

let store: RedisStore | undefined;
let client: ReturnType<typeof createClient> | undefined;
if (config.redis !== undefined) {
  client = createClient({ url: config.redis, socket: { reconnectStrategy: () => 100 } });
  client.on('error', () => {});
  await client.connect();
  store = new RedisStore({
    client,
    prefix: config.prefix,
    ...config.wait,
    onFallback: ({ error }) => print({ type: 'fallback', at: Date.now(), error: String(error) }),
    onResume: () => print({ type: 'resume', at: Date.now() }),
  });
}

const options =
  config.feature === 'pacer'
    ? { pacer: new Pacer(store === undefined ? {} : { store: store.pacer }) }
    : {
        circuitBreaker: new CircuitBreaker({
          ...(store === undefined ? {} : { store: store.breaker }),
          onStateChange: (change) => print({ type: 'state', to: change.to, at: Date.now() }),
        }),
      };
const send = withBackoff(undefined, { retries: config.retries, deadline: config.deadline, ...options });

// Ready: the fleet starts once every process is (loading and connecting takes each a while).
print({ type: 'ready' });
const start = await new Promise<number>((resolve) => {
  process.stdin.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
});
process.stdin.pause();
const sleepUntil = (at: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
const calls: Promise<unknown>[] = [];
for (let i = 0; i < config.calls; i++) {
  await sleepUntil(start + config.offset + i * config.interval);
  const started = Date.now();
  calls.push(
    send(`${config.url}/work`).then(
      async (response) => {
        await response.text();
        print({ type: 'call', started, ended: Date.now(), status: response.status });
      },
      (error: unknown) =>
        print({
          type: 'call',
          started,
          ended: Date.now(),
          error: (error as Error)?.name ?? String(error),
          code: (error as { code?: string })?.code,
        }),
    ),
  );
}
await Promise.all(calls);
store?.close();
await client?.close();
print({ type: 'done' });
