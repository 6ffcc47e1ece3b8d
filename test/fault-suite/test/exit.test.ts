import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVERS, FaultServer } from '../src/index.ts';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./fixtures/exit-child.ts', import.meta.url));
interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the child against `url` and waits for it to end by itself. Every client there has waits aborted an hour
 * before they would end: a timer left behind keeps the process alive until it is killed at 60 s (a SIGKILL, and
 * so a failure), however busy the machine. Start-up (tsx compiling the sources) takes seconds.
 */
function runChild(url: string): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@backoff/source', CHILD, url], {
      cwd: PACKAGE,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('the process can exit by itself', () => {
  const server = new FaultServer();
  beforeAll(() => server.listen());
  afterAll(() => server.close());

  it('a child running 200 requests per client (retries, resets, timeouts, aborted hour-long waits) exits on its own', {
    timeout: 90_000,
  }, async () => {
    const exit = await runChild(server.url);
    expect(exit.stderr).toBe('');
    expect(exit).toMatchObject({ code: 0, signal: null });

    const summary = JSON.parse(exit.stdout) as Record<string, Record<string, number>>;
    expect(Object.keys(summary)).toEqual(DRIVERS.map((driver) => driver.name));
    for (const counts of Object.values(summary)) {
      // 200 requests in 8 roles: 25 per role slot; every aborted wait ended as an abort, the rest succeeded.
      expect(counts).toEqual({
        'retry:ok': 50,
        'reset:ok': 50,
        'ok:ok': 50,
        'timeout:ok': 25,
        'abort-in-wait:abort': 25,
      });
    }
    // The requests really reached this server (which stays up, connections and all, while the child exits).
    expect(server.hits.length).toBeGreaterThanOrEqual(DRIVERS.length * 200);
  });
});
