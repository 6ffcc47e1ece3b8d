import type { BackoffOptions } from 'backoff-core';
import { type HerdConfig, type HerdResult, type HerdStrategy, runHerd } from './herd.js';

/** The fleet sizes and outages of the matrix, and what every cell shares. */
export interface HerdMatrixConfig {
  /** Fleet sizes: independent clients, one GET each. */
  readonly clients: readonly number[];
  /** Outages, in s: the server answers 503 with `Retry-After` = the seconds until it is back. */
  readonly outages: readonly number[];
  /** Requests per second the server serves once it is back (a token bucket; 503 `Retry-After: 1` above it). */
  readonly capacity: number;
  readonly latency: number;
  readonly seed: number;
  /** The clients' first sends are spread over this many ms. */
  readonly startSpread: number;
  /** What each client passes to `createBackoff` (the defaults plus a deadline). */
  readonly options: BackoffOptions;
}

/** One cell: a fleet size against an outage, and the targets it is held to. */
export interface HerdMatrixCell {
  readonly clients: number;
  /** The outage, in ms. */
  readonly outage: number;
  readonly result: HerdResult;
  /** The busiest 100 ms slot after recovery, as a multiple of what the server serves in one. */
  readonly peakRatio: number;
  /** At most this many times capacity: 2.5x up to 1,000 clients, 10x above. */
  readonly peakTarget: number;
  /** p99 completion at most T + 1.5 x N / capacity + 2 s (the time to serve them all at capacity, plus slack). */
  readonly p99Target: number;
}

/** The targets: a fleet of up to 1,000 at 2.5x capacity at worst, a larger one at 10x. */
export function peakTarget(clients: number): number {
  return clients <= 1000 ? 2.5 : 10;
}

/** T + 1.5 x N / capacity + 2 s, in ms. */
export function p99Target(clients: number, outage: number, capacity: number): number {
  return outage + (1.5 * clients * 1000) / capacity + 2000;
}

/** The matrix's client: each its own policy, the defaults plus `options`, against a server with Retry-After. */
export function matrixStrategy(options: BackoffOptions): HerdStrategy {
  return { id: 'matrix', label: 'backoff defaults + deadline', options, retryAfter: true };
}

/** Runs every cell: each fleet size against each outage (row by row), deterministic for a seed. */
export function runHerdMatrix(
  config: HerdMatrixConfig,
  onProgress?: (done: number, total: number) => void,
): HerdMatrixCell[] {
  const cells: HerdMatrixCell[] = [];
  const total = config.clients.length * config.outages.length;
  const strategy = matrixStrategy(config.options);
  for (const clients of config.clients) {
    for (const seconds of config.outages) {
      const outage = seconds * 1000;
      const herd: HerdConfig = {
        clients,
        downFor: outage,
        capacity: config.capacity,
        latency: config.latency,
        seed: config.seed,
        startSpread: config.startSpread,
      };
      const result = runHerd(herd, strategy);
      cells.push({
        clients,
        outage,
        result,
        peakRatio: result.peakAfterRecovery.count / result.capacityPer100ms,
        peakTarget: peakTarget(clients),
        p99Target: p99Target(clients, outage, config.capacity),
      });
      onProgress?.(cells.length, total);
    }
  }
  return cells;
}

/** Whether a cell meets every target: nobody gave up, the peak and the p99 within theirs. */
export function meetsTargets(cell: HerdMatrixCell): boolean {
  const p99 = cell.result.completion.p99;
  return (
    cell.result.gaveUp === 0 &&
    cell.peakRatio <= cell.peakTarget &&
    p99 !== undefined &&
    p99 <= cell.p99Target
  );
}
