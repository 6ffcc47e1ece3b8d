import { loadavg } from 'node:os';
import { type AmplificationOptions, type AmplificationResult, runAmplification } from './amplification.js';
import { type DecisionOptions, type DecisionResult, runDecision } from './decision.js';
import { describeMachine, type Machine } from './machine.js';
import { type MemoryOptions, type MemoryResult, runMemory } from './memory.js';
import { type OverheadOptions, type OverheadResult, runOverhead } from './overhead.js';
import { runSize, type SizeOptions, type SizeResult } from './size.js';

export const MEASURES = ['overhead', 'decision', 'amplification', 'size', 'memory'] as const;
export type MeasureId = (typeof MEASURES)[number];

/** The sizes of every measure in one run. */
export interface SuiteSizes {
  readonly overhead: OverheadOptions;
  readonly overheadInProcess: OverheadOptions;
  readonly decision: DecisionOptions;
  readonly amplification: AmplificationOptions;
  readonly size: SizeOptions;
  readonly memory: MemoryOptions;
}

/** `pnpm bench`: sized to finish in about two minutes on the project's 2-core machine. */
export const FULL: SuiteSizes = {
  overhead: { rounds: 10, requests: 1000, concurrency: 4, warmup: 1000 },
  overheadInProcess: { server: 'in-process', rounds: 10, requests: 5000, concurrency: 4, warmup: 2000 },
  decision: { rounds: 25, calls: 5000, warmup: 100_000 },
  amplification: { requests: 10_000, seed: 7 },
  size: { sizeLimit: true },
  memory: { requests: 2000, rounds: 3 },
};

/** `--quick` and the smoke test: every code path, tiny numbers, a few seconds. */
export const QUICK: SuiteSizes = {
  overhead: { rounds: 2, requests: 20, concurrency: 2, warmup: 10 },
  overheadInProcess: { server: 'in-process', rounds: 2, requests: 20, concurrency: 2, warmup: 10 },
  decision: { rounds: 3, calls: 200, warmup: 1000 },
  amplification: { requests: 60, seed: 7 },
  size: { sizeLimit: false },
  memory: { requests: 20, rounds: 1 },
};

export interface BenchReport {
  readonly machine: Machine;
  readonly command: string;
  readonly overhead?: OverheadResult;
  readonly overheadInProcess?: OverheadResult;
  readonly decision?: DecisionResult;
  readonly amplification?: AmplificationResult;
  readonly size?: SizeResult;
  readonly memory?: MemoryResult;
  readonly loadAtEnd: number;
  readonly seconds: number;
}

/**
 * Runs the chosen measures in a fixed order: the pure micro-benchmark first (before the clients' code has made
 * the process's JIT state busy), the socket-heavy overhead measure last.
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
  const decision = await step('decision', '2. decision cost', () => runDecision(sizes.decision));
  const size = await step('size', '4. size', () => runSize(sizes.size));
  const amplification = await step('amplification', '3. amplification', () =>
    runAmplification(sizes.amplification),
  );
  const memory = await step('memory', '5. memory', () => runMemory(sizes.memory));
  const overheadInProcess = await step('overhead', '1b. overhead, in-process', () =>
    runOverhead(sizes.overheadInProcess),
  );
  const overhead = await step('overhead', '1. overhead, loopback', () => runOverhead(sizes.overhead));
  const report: BenchReport = {
    machine,
    command,
    loadAtEnd: loadavg()[0] ?? 0,
    seconds: (performance.now() - started) / 1000,
    ...(overhead && { overhead }),
    ...(overheadInProcess && { overheadInProcess }),
    ...(decision && { decision }),
    ...(amplification && { amplification }),
    ...(size && { size }),
    ...(memory && { memory }),
  };
  return report;
}
