import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';

/** Where and with what a run was made: the header of RESULTS.md. */
export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly date: string;
  /** 1-minute load average when the run started: other work on the machine makes every number noisier. */
  readonly loadAtStart: number;
  readonly versions: Readonly<Record<string, string>>;
}

const LIBRARIES = ['axios', 'ky', 'axios-retry', 'retry-axios', 'esbuild'] as const;

function versionOf(name: string): string {
  // Read from the bench package's own node_modules (the pinned devDependencies), not resolved through exports.
  const file = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()} ${process.arch}`,
    node: process.version,
    date: new Date().toISOString(),
    loadAtStart: loadavg()[0] ?? 0,
    versions: Object.fromEntries(LIBRARIES.map((name) => [name, versionOf(name)])),
  };
}
