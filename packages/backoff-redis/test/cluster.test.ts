import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisClientLike, RedisStore } from '../src/index.ts';
import { LIMITS, spent, T } from './support/fixtures.ts';
import { type RedisCluster, startRedisCluster } from './support/redis-cluster.ts';

// A Redis Cluster of 3 masters with a replica each, started by the test: every operation touches one key, so any
// key works in any slot; a master killed is replaced by its replica, and the store is shared again.

// A minute: on the caller's clock the keys' TTL is a minute of real time, past the failover.
const MINUTE = 60_000;
// Names far apart, so that their slots spread over every master.
const ORIGINS = Array.from({ length: 30 }, (_, i) => `https://${(i * 7919 + 104_729).toString(36)}.test`);

const closers: Array<() => unknown> = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Each library's cluster client, connecting in the background. */
export const CLUSTER_CLIENTS = {
  'node-redis': (port: number, auth = ''): RedisClientLike => {
    const client = createCluster({
      rootNodes: [{ url: `redis://${auth}127.0.0.1:${port}` }],
      defaults: { socket: { reconnectStrategy: () => 50, connectTimeout: 500 } },
    });
    client.on('error', () => {});
    client.connect().catch(() => {});
    closers.push(() => client.destroy());
    return client;
  },
  ioredis: (port: number, auth = ''): RedisClientLike => {
    const [username, password] = auth === '' ? [] : auth.slice(0, -1).split(':');
    const client = new Cluster([{ host: '127.0.0.1', port }], {
      clusterRetryStrategy: () => 50,
      redisOptions: { username, password, connectTimeout: 500 },
    });
    client.on('error', () => {});
    closers.push(() => client.disconnect());
    return client;
  },
};

let cluster: RedisCluster;
beforeAll(async () => {
  cluster = await startRedisCluster();
  closers.push(() => cluster.stop());
}, 60_000);

/** Waits until `check` passes, trying every 50 ms for at most `ms`. */
async function eventually(check: () => Promise<unknown>, ms = 15_000): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    try {
      await check();
      return;
    } catch (error) {
      if (waited >= ms) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe.each(Object.entries(CLUSTER_CLIENTS))(
  'RedisStore on a Redis Cluster, through %s',
  (library, connect) => {
    it('keys in every slot are shared, and scripts a node lacks are sent to it', {
      timeout: 60_000,
    }, async () => {
      const port = cluster.masters()[0] ?? 0;
      const prefix = `${library}-slots:`;
      const one = new RedisStore({ client: connect(port), prefix, clock: 'caller' });
      const other = new RedisStore({ client: connect(port), prefix, clock: 'caller' });
      await eventually(async () => expect(await one.check()).toBe('shared'));
      await eventually(async () => expect(await other.check()).toBe('shared'));
      // The keys spread over the three masters' thirds of the slots.
      expect(
        new Set(ORIGINS.map((origin) => Math.floor(cluster.slotOf(`${prefix}pace:${origin}`) / 5462))).size,
      ).toBe(3);
      for (const node of cluster.masters()) cluster.cli(node, 'SCRIPT', 'FLUSH');
      for (const origin of ORIGINS) await one.pacer.learn(origin, spent(T, MINUTE), T, LIMITS);
      for (const origin of ORIGINS) expect(await other.pacer.read(origin, T)).toBe(60_000);
      expect(one.stats().fallbacks + other.stats().fallbacks).toBe(0);
      one.close();
      other.close();
    });

    it('a master killed: calls go on, its replica takes over with the data, and the store is shared again', {
      timeout: 60_000,
    }, async () => {
      const prefix = `${library}-failover:`;
      const store = new RedisStore({
        client: connect(cluster.masters()[0] ?? 0),
        prefix,
        clock: 'caller',
        probeInterval: 50,
      });
      await eventually(async () => expect(await store.check()).toBe('shared'));
      for (const origin of ORIGINS) await store.pacer.learn(origin, spent(T, MINUTE), T, LIMITS);
      // A key on a master that has a replica (a replica promoted earlier has none).
      const origin =
        ORIGINS.find((each) =>
          cluster
            .cli(cluster.ownerOf(`${prefix}pace:${each}`), 'INFO', 'replication')
            .includes('connected_slaves:1'),
        ) ?? '';
      const master = cluster.ownerOf(`${prefix}pace:${origin}`);
      // Replicated before the kill: the replica has the writes the master acknowledged.
      await eventually(async () => {
        const offsets = cluster.cli(master, 'INFO', 'replication');
        const own = /master_repl_offset:(\d+)/.exec(offsets)?.[1];
        expect(offsets).toMatch(new RegExp(`slave0:.*offset=${own},`));
      });
      await cluster.nodes.find((node) => node.port === master)?.kill();
      // Every call is answered meanwhile: locally until the replica takes over.
      // The quota spent for a minute, as the store still reads it (shared or, while the node is gone, as learnt
      // here), or nothing learnt yet where the answer is local: never anything else.
      expect([0, 60_000]).toContain(await store.pacer.read(origin, T));
      await eventually(async () => {
        expect(cluster.masters()).toHaveLength(3);
        expect(cluster.masters()).not.toContain(master);
      });
      // Shared again, every key, with what was learnt before the kill.
      await eventually(async () => {
        for (const each of ORIGINS) expect(await store.pacer.read(each, T)).toBe(60_000);
        expect(store.local).toBe(false);
      }, 30_000);
      store.close();
    });
  },
);

describe('RedisStore on a Redis Cluster under the least-privilege ACL', () => {
  /** The store's commands, and the cluster clients' own: CLUSTER SLOTS (both), CLUSTER INFO (ioredis's ready check). */
  const ACL = ['~app:*', '+evalsha', '+eval', '+get', '+set', '+time', '+cluster|slots', '+cluster|info'];
  let secured: RedisCluster;
  beforeAll(async () => {
    secured = await startRedisCluster(['--user', 'store', 'on', '>pw', ...ACL]);
    closers.push(() => secured.stop());
  }, 60_000);

  it.each(Object.keys(CLUSTER_CLIENTS) as Array<keyof typeof CLUSTER_CLIENTS>)(
    'through %s: shared, every slot',
    { timeout: 60_000 },
    async (library) => {
      const connect = CLUSTER_CLIENTS[library];
      const port = secured.masters()[0] ?? 0;
      const one = new RedisStore({
        client: connect(port, 'store:pw@'),
        prefix: `app:${library}:`,
        clock: 'caller',
      });
      const other = new RedisStore({
        client: connect(port, 'store:pw@'),
        prefix: `app:${library}:`,
        clock: 'caller',
      });
      await eventually(async () => expect(await one.check()).toBe('shared'));
      await eventually(async () => expect(await other.check()).toBe('shared'));
      for (const origin of ORIGINS) await one.pacer.learn(origin, spent(T, MINUTE), T, LIMITS);
      for (const origin of ORIGINS) expect(await other.pacer.read(origin, T)).toBe(60_000);
      one.close();
      other.close();
    },
  );
});
