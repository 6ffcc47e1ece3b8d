/** The q-quantile (0..1) of `values` by the nearest-rank method; `undefined` for no values. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, v) => total + v, 0);
}

/** Counts of events per fixed-width time bucket: `counts[i]` covers [i * width, (i + 1) * width). */
export class Histogram {
  readonly width: number;
  readonly counts: number[] = [];

  constructor(width: number) {
    this.width = width;
  }

  add(time: number, count = 1): void {
    const i = Math.floor(time / this.width);
    while (this.counts.length <= i) this.counts.push(0);
    this.counts[i] = (this.counts[i] ?? 0) + count;
  }

  /** The fullest bucket: its count and its start time (ms). */
  peak(fromTime = 0): { count: number; at: number } {
    let best = { count: 0, at: 0 };
    const start = Math.floor(fromTime / this.width);
    for (let i = start; i < this.counts.length; i++) {
      const count = this.counts[i] ?? 0;
      if (count > best.count) best = { count, at: i * this.width };
    }
    return best;
  }

  /** Counts padded with zeros to `length` buckets (to draw several histograms on one axis). */
  padded(length: number): number[] {
    return Array.from({ length }, (_, i) => this.counts[i] ?? 0);
  }
}
