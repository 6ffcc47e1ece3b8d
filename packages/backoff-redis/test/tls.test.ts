import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisClientLike, RedisStore } from '../src/index.ts';
import { LIMITS, T } from './support/fixtures.ts';
import { freePort, type RedisServer, startRedisServer } from './support/redis-server.ts';

// `rediss://`: a redis-server that speaks TLS only, with a self-signed certificate made here by openssl, which the
// clients are given as their CA.

let dir: string;
let ca: Buffer;
let server: RedisServer;
let url: string;
const closers: Array<() => unknown> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'backoff-tls-'));
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
  ca = readFileSync(join(dir, 'cert.pem'));
  const port = await freePort();
  // TLS only: the plain port is off.
  server = await startRedisServer(undefined, [
    '--port',
    '0',
    '--tls-port',
    String(port),
    '--tls-cert-file',
    join(dir, 'cert.pem'),
    '--tls-key-file',
    join(dir, 'key.pem'),
    '--tls-ca-cert-file',
    join(dir, 'cert.pem'),
    '--tls-auth-clients',
    'no',
  ]);
  url = `rediss://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const LIBRARIES = {
  'node-redis': (): RedisClientLike => {
    const client = createClient({ url, socket: { tls: true, ca } });
    client.on('error', () => {});
    client.connect().catch(() => {});
    closers.push(() => client.destroy());
    return client;
  },
  ioredis: (): RedisClientLike => {
    const client = new Redis(url, { tls: { ca } });
    client.on('error', () => {});
    closers.push(() => client.disconnect());
    return client;
  },
};

describe.each(Object.entries(LIBRARIES))(
  'RedisStore over TLS (rediss://), through %s',
  (library, connect) => {
    it('two processes share one quota over TLS', async () => {
      const prefix = `${library}-tls:`;
      const one = new RedisStore({ client: connect(), prefix, clock: 'caller' });
      const other = new RedisStore({ client: connect(), prefix, clock: 'caller' });
      expect(await one.check()).toBe('shared');
      expect(await other.check()).toBe('shared');
      await one.pacer.learn(
        'k',
        {
          status: 429,
          ticket: 0,
          sentAt: T,
          serverDelay: undefined,
          remaining: 0,
          reset: 2000,
          interval: 100,
        },
        T,
        LIMITS,
      );
      expect(await other.pacer.read('k', T)).toBe(2000);
      one.close();
      other.close();
    });
  },
);
