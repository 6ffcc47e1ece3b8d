import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * Client and server on different cores (the overhead measure): the bench process on one core, the loopback
 * server's process on another, so neither's work is scheduled onto the other's core mid-round. Linux only,
 * through `taskset` (util-linux); anywhere else, or with one core, nothing is pinned and the report says why.
 */
export interface Pinning {
  readonly pinned: boolean;
  /** The core the bench process (the clients) runs on, when pinned. */
  readonly clientCore?: number;
  /** The core the loopback server runs on, when pinned. */
  readonly serverCore?: number;
  /** What was done, or why nothing was: for RESULTS.md. */
  readonly note: string;
}

/** `taskset -a -p -c LIST PID`: every thread of the process, the ones it starts later included. */
function taskset(pid: number, cores: string): boolean {
  const result = spawnSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
  return result.error === undefined && result.status === 0;
}

/** The cores this process may run on now, as `taskset` lists them (to restore them afterwards). */
function currentCores(): string | undefined {
  const result = spawnSync('taskset', ['-p', '-c', String(process.pid)], { encoding: 'utf8' });
  if (result.error !== undefined || result.status !== 0) return undefined;
  return /:\s*(\S+)\s*$/.exec(result.stdout.trim())?.[1];
}

/**
 * Pins the bench process to core 0 and returns how to pin the server (core 1) and to undo it. Nothing is
 * pinned when the platform is not Linux, the machine has one core, or `taskset` is missing or refused.
 */
export function pinClient(): { pinning: Pinning; pinServer: (pid: number) => boolean; restore: () => void } {
  const none = (note: string) => ({
    pinning: { pinned: false, note },
    pinServer: () => false,
    restore: () => {},
  });
  if (process.platform !== 'linux') return none(`not pinned: taskset is Linux-only (${process.platform})`);
  if (cpus().length < 2) return none('not pinned: one core');
  const before = currentCores();
  if (before === undefined) return none('not pinned: `taskset` is missing or refused');
  if (!taskset(process.pid, '0')) return none('not pinned: `taskset` refused to pin this process');
  return {
    pinning: {
      pinned: true,
      clientCore: 0,
      serverCore: 1,
      note: 'pinned with `taskset`: the clients on core 0, the loopback server on core 1',
    },
    pinServer: (pid) => taskset(pid, '1'),
    restore: () => void taskset(process.pid, before),
  };
}
