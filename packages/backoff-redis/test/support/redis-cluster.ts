import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type RedisServer, startRedisServer } from './redis-server.ts';

/** A throwaway Redis Cluster on 127.0.0.1: 3 masters, a replica each, free ports, nothing saved to disk. */
export interface RedisCluster {
  readonly nodes: readonly RedisServer[];
  /** The masters' ports, and which master owns `key`'s slot. */
  masters(): number[];
  ownerOf(key: string): number;
  /** `key`'s slot (0 to 16383): \`redis-cli --cluster create\` gives each master a third of them. */
  slotOf(key: string): number;
  /** Runs redis-cli against one node. */
  cli(port: number, ...args: string[]): string;
  stop(): Promise<void>;
}

/** `args`: more options for every node (an ACL user, say); `auth`: what redis-cli logs in with. */
export async function startRedisCluster(
  args: readonly string[] = [],
  auth: readonly string[] = [],
): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'backoff-cluster-'));
  const nodes: RedisServer[] = [];
  const cli = (port: number, ...command: string[]) => {
    const run = spawnSync('redis-cli', ['-p', String(port), ...auth, ...command], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`redis-cli ${command.join(' ')}: ${run.stdout}${run.stderr}`);
    return run.stdout;
  };
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 6; i++) {
      nodes.push(
        await startRedisServer(undefined, [
          '--cluster-enabled',
          'yes',
          // The bus on a free port too (by default the port + 10,000, which may be taken).
          '--cluster-port',
          String(await freePort()),
          '--cluster-config-file',
          join(dir, `nodes-${i}.conf`),
          // Replicas in sync at once (not 5 s on), and a failed master replaced within a few seconds.
          '--repl-diskless-sync-delay',
          '0',
          '--cluster-node-timeout',
          '1000',
          ...args,
        ]),
      );
    }
    cli(
      nodes[0]?.port ?? 0,
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    );
    // Every node agrees the cluster is up.
    for (let tries = 0; ; tries++) {
      if (nodes.every((node) => cli(node.port, 'CLUSTER', 'INFO').includes('cluster_state:ok'))) break;
      if (tries > 200) throw new Error('The cluster did not come up.');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const alive = () => nodes.filter((node) => node.alive());
  const masters = () =>
    alive().flatMap((node) => (cli(node.port, 'ROLE').startsWith('master') ? [node.port] : []));
  const slotOf = (key: string) => Number(cli(alive()[0]?.port ?? 0, 'CLUSTER', 'KEYSLOT', key).trim());
  return {
    nodes,
    masters,
    slotOf,
    ownerOf: (key) => {
      const slot = slotOf(key);
      const shards = cli(alive()[0]?.port ?? 0, '--json', 'CLUSTER', 'SLOTS');
      for (const [from, to, [, port]] of JSON.parse(shards) as Array<[number, number, [string, number]]>) {
        if (slot >= from && slot <= to) return port;
      }
      throw new Error(`No node owns the slot of ${key}.`);
    },
    cli,
    stop,
  };
}
