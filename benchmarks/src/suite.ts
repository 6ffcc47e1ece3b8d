import { loadavg } from 'node:os';
import { type AmplificationOptions, type AmplificationResult, runAmplification } from './amplification.js';
import { describeMachine, type Machine } from './machine.js';
import { type MemoryOptions, type MemoryResult, runMemory } from './memory.js';
import { type OverheadOptions, type OverheadResult, runOverhead } from './overhead.js';
import { type Pinning, pinClient } from './pinning.js';

// Size is measured by `pnpm size` (src/size-check.ts), which writes its own section of RESULTS.md.
export const MEASURES = ['overhead', 'amplification', 'memory'] as const;
export type MeasureId = (typeof MEASURES)[number];

/** The sizes of every measure in one run. */
export interface SuiteSizes {
  readonly overhead: OverheadOptions;
  readonly overheadInProcess: OverheadOptions;
  readonly amplification: AmplificationOptions;
  readonly memory: MemoryOptions;
  /** Pin the clients and the loopback server to cores of their own (pinning.ts) for measure 1. */
  readonly pin: boolean;
}

/** `pnpm bench`: about 10 minutes on the project's shared 2-core machine (pinned to one core, it shares it). */
export const FULL: SuiteSizes = {
  overhead: { rounds: 10, requests: 1000, concurrency: 4, warmup: 2000, isolate: true, processes: 2 },
  overheadInProcess: {
    server: 'in-process',
    rounds: 24,
    requests: 5000,
    concurrency: 4,
    // Per process: a fresh process's JIT is still settling after 2,000 requests (its first rounds read high).
    warmup: 20_000,
    isolate: true,
    // A process's JIT settles on choices that shift a client by several µs for all its rounds (ky's per-process
    // medians ranged from 25 to 32 µs): 8 processes put more of those outcomes into each median than 4 did.
    processes: 8,
  },
  amplification: { requests: 10_000, seed: 7 },
  memory: { requests: 2000, rounds: 3 },
  pin: true,
};

/** `--quick` and the smoke test: every code path, tiny numbers, a few seconds. */
export const QUICK: SuiteSizes = {
  overhead: { rounds: 2, requests: 20, concurrency: 2, warmup: 10 },
  overheadInProcess: { server: 'in-process', rounds: 2, requests: 20, concurrency: 2, warmup: 10 },
  amplification: { requests: 60, seed: 7 },
  memory: { requests: 20, rounds: 1 },
  // Not in the smoke test: pinning its process would slow the other tests running beside it.
  pin: false,
};

export interface BenchReport {
  readonly machine: Machine;
  readonly command: string;
  readonly overhead?: OverheadResult;
  readonly overheadInProcess?: OverheadResult;
  /** Whether the overhead measures ran with client and server pinned to cores of their own. */
  readonly pinning?: Pinning;
  readonly amplification?: AmplificationResult;
  readonly memory?: MemoryResult;
  readonly loadAtEnd: number;
  readonly seconds: number;
}

/**
 * Runs the chosen measures in a fixed order: the overhead measure last, pinned where the machine allows (its
 * clients run in processes of their own).
 */
export async function runSuite(
  sizes: SuiteSizes,
  only: readonly MeasureId[] = MEASURES,
  command = 'pnpm bench',
  onProgress: (message: string) => void = () => {},
): Promise<BenchReport> {
  const machine = describeMachine();
  const started = performance.now();
  const step = async <T>(id: MeasureId, label: string, run: () => Promise<T> | T): Promise<T | undefined> => {
    if (!only.includes(id)) return undefined;
    const begin = performance.now();
    onProgress(`${label}...`);
    const result = await run();
    onProgress(`${label}: ${((performance.now() - begin) / 1000).toFixed(1)} s`);
    return result;
  };
  const amplification = await step('amplification', '2. amplification', () =>
    runAmplification(sizes.amplification),
  );
  const memory = await step('memory', '3. memory', () => runMemory(sizes.memory));
  // The CPU-time measures run pinned (where the machine allows): the clients on one core, the server on another.
  const pin = only.includes('overhead') && sizes.pin ? pinClient() : undefined;
  if (pin) onProgress(pin.pinning.note);
  let overheadInProcess: OverheadResult | undefined;
  let overhead: OverheadResult | undefined;
  try {
    overheadInProcess = await step('overhead', '1. overhead, in-process', () =>
      runOverhead(sizes.overheadInProcess),
    );
    overhead = await step('overhead', '1. overhead, loopback', () =>
      runOverhead({ ...sizes.overhead, pinServer: pin?.pinServer }),
    );
  } finally {
    pin?.restore();
  }
  const report: BenchReport = {
    machine,
    command,
    loadAtEnd: loadavg()[0] ?? 0,
    seconds: (performance.now() - started) / 1000,
    ...(overhead && { overhead }),
    ...(overheadInProcess && { overheadInProcess }),
    ...(pin && { pinning: pin.pinning }),
    ...(amplification && { amplification }),
    ...(memory && { memory }),
  };
  return report;
}
