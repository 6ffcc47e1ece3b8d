import { describeCircuitStore, describePacerStore } from '@backoff/test-utils';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll } from 'vitest';
import { type RedisClientLike, RedisStore } from '../src/index.ts';
import { type RedisServer, startRedisServer } from './support/redis-server.ts';

// The same contract as the memory stores, run inside Redis on the caller's clock (the suite's times are its own),
// through each client library the store speaks.
let server: RedisServer;
let nodeRedis: ReturnType<typeof createClient>;
let ioredis: Redis;
let app = 0;

beforeAll(async () => {
  server = await startRedisServer();
  nodeRedis = createClient({ url: server.url });
  nodeRedis.on('error', () => {});
  await nodeRedis.connect();
  ioredis = new Redis(server.url, { lazyConnect: true });
  ioredis.on('error', () => {});
  await ioredis.connect();
});

afterAll(async () => {
  await nodeRedis?.close();
  ioredis?.disconnect();
  await server?.stop();
});

// A prefix per test: each starts from an empty store.
const store = (client: RedisClientLike) =>
  new RedisStore({ client, prefix: `contract${++app}:`, clock: 'caller' });

describePacerStore('RedisStore on node-redis', () => store(nodeRedis).pacer, { shared: true });
describeCircuitStore('RedisStore on node-redis', () => store(nodeRedis).breaker, { snapshots: false });
describePacerStore('RedisStore on ioredis', () => store(ioredis).pacer, { shared: true });
describeCircuitStore('RedisStore on ioredis', () => store(ioredis).breaker, { snapshots: false });
