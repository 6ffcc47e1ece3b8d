import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A free TCP port on 127.0.0.1, as the OS hands one out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Whether `redis-server` can be run here (the root `postinstall` installs Debian's package). */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

/** A throwaway redis-server: on 127.0.0.1, a free port, nothing saved to disk. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Whether it runs (not killed nor stopped). */
  alive(): boolean;
  /** Kills it (SIGKILL: as a crash would). */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing was saved). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function ready(port: number, child: ChildProcess): Promise<void> {
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis-server did not start on ${port}: ${out}`)),
      10_000,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${out}`));
    });
  });
}

/** `port`: a port of its own choosing (else a free one); `args`: more of redis-server's options. */
export async function startRedisServer(port?: number, args: readonly string[] = []): Promise<RedisServer> {
  const chosen = port ?? (await freePort());
  // A directory of its own: a dump.rdb left anywhere else is never loaded, and nothing is written to the repo.
  const dir = mkdtempSync(join(tmpdir(), 'backoff-redis-'));
  let child: ChildProcess;
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(chosen),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--loglevel',
        'notice',
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await ready(chosen, child);
  };
  const end = (signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  await start();
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: () => end('SIGKILL'),
    restart: start,
    stop: async () => {
      await end('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
