// The Node outbox against kill -9: writes queued while the server is down, processes killed at seeded points
// while queueing and while replaying, restarted until done. A real server on 127.0.0.1 counts what it receives.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/testing/random.ts';

const CHILD = fileURLToPath(new URL('./support/outbox-child.ts', import.meta.url));
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const WRITES = 100;
const RUNS = 10;

/**
 * Runs the child until it prints `done`, or kills it with SIGKILL once it printed `killAfter` lines (a step
 * finished; the next one is under way). Resolves with the lines it printed and whether it was killed.
 */
function runChild(
  args: string[],
  killAfter: number | undefined,
): Promise<{ lines: string[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@backoff/source', CHILD, ...args],
      {
        cwd: PACKAGE,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const lines: string[] = [];
    let pending = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts);
      if (!killed && killAfter !== undefined && lines.length >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (killed && signal === 'SIGKILL') resolve({ lines, killed: true });
      else if (code === 0 && lines.at(-1) === 'done') resolve({ lines, killed: false });
      else reject(new Error(`child exited with ${code ?? signal}\n${lines.join('\n')}\n${stderr}`));
    });
  });
}

/** A server that applies each key once, as an Idempotency-Key server does, and records every arrival. */
class KeyCountingServer {
  readonly arrivals: string[] = [];
  readonly applied: string[] = [];
  readonly #server: Server = createServer((request, response) => {
    const key = String(request.headers['idempotency-key']);
    request.resume();
    request.on('end', () => {
      this.arrivals.push(key);
      if (!this.applied.includes(key)) this.applied.push(key);
      response.writeHead(201).end();
    });
  });

  listen(port = 0): Promise<number> {
    return new Promise((resolve) => {
      this.#server.listen(port, '127.0.0.1', () => resolve((this.#server.address() as AddressInfo).port));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const task of cleanup.splice(0)) await task();
});

describe('the Node outbox survives kill -9', () => {
  it.each(Array.from({ length: RUNS }, (_, run) => run + 1))(
    'seed %i: every queued write arrives, is applied once per key, in order; none lost',
    async (seed) => {
      const random = seededRandom(seed);
      const directory = await mkdtemp(join(tmpdir(), 'outbox-crash-'));
      cleanup.push(() => rm(directory, { recursive: true, force: true }));
      const server = new KeyCountingServer();
      // A port that refuses connections while the server is down: taken, then given back.
      const port = await server.listen();
      await server.close();
      const origin = `http://127.0.0.1:${port}`;
      const prefix = `seed${seed}`;

      // Queueing, killed at seeded points, restarted until all 100 are queued.
      const confirmed = new Set<string>();
      let kills = 0;
      for (;;) {
        const run = await runChild(
          ['queue', directory, origin, prefix, String(WRITES)],
          kills < 3 ? 1 + Math.floor(random() * 40) : undefined,
        );
        for (const line of run.lines) if (line.startsWith('queued ')) confirmed.add(line.slice(7));
        if (!run.killed) break;
        kills += 1;
      }
      // A write killed after it was stored but before its line was printed is in the store all the same.
      expect(confirmed.size).toBeGreaterThanOrEqual(WRITES - kills);

      // The server is back; replays are killed at seeded points too, and restarted until the outbox is empty.
      const up = new KeyCountingServer();
      await up.listen(port);
      cleanup.push(() => up.close());
      let replayKills = 0;
      for (;;) {
        const run = await runChild(
          ['replay', directory, origin, prefix],
          replayKills < 3 ? 1 + Math.floor(random() * 40) : undefined,
        );
        if (!run.killed) break;
        replayKills += 1;
      }

      const keys = Array.from({ length: WRITES }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
      // Every write applied once, in the order it was queued: none lost (each the caller was told is queued
      // among them), none applied twice.
      expect(up.applied).toEqual(keys);
      expect([...confirmed].filter((key) => !up.applied.includes(key))).toEqual([]);
      // A write sent again after a kill between its answer and its removal carries its key: the server saw it
      // twice and applied it once. Nothing else arrives twice.
      const repeats = up.arrivals.length - new Set(up.arrivals).size;
      console.log(
        `outbox crash seed ${seed}: ${kills} kills queueing, ${replayKills} replaying; ${up.arrivals.length} arrivals, ${repeats} repeated (same key, applied once)`,
      );
      expect(repeats).toBeLessThanOrEqual(replayKills);
      expect(kills + replayKills).toBeGreaterThan(0);
    },
    180_000,
  );
});
