import { describeCircuitStore, describePacerStore } from '@backoff/test-utils';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { RedisStore } from '../src/index.ts';
import { type RedisServer, startRedisServer } from './support/redis-server.ts';

// The same contract as the memory stores, run inside Redis on the caller's clock (the suite's times are its own).
let server: RedisServer;
let client: ReturnType<typeof createClient>;
let app = 0;

beforeAll(async () => {
  server = await startRedisServer();
  client = createClient({ url: server.url });
  client.on('error', () => {});
  await client.connect();
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

// A prefix per test: each starts from an empty store.
const store = () => new RedisStore({ client, prefix: `contract${++app}:`, clock: 'caller' });

describePacerStore('RedisStore', () => store().pacer, { shared: true });
describeCircuitStore('RedisStore', () => store().breaker, { snapshots: false });
