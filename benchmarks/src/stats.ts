/** Small order statistics for repeated rounds: the median is what every table reports. */

function sorted(values: readonly number[]): number[] {
  if (values.length === 0) throw new RangeError('Expected at least one value.');
  return [...values].sort((a, b) => a - b);
}

/** The q-quantile (0..1) by linear interpolation between the closest ranks. */
export function quantile(values: readonly number[], q: number): number {
  const s = sorted(values);
  const position = (s.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const a = s[low] as number;
  const b = s[high] as number;
  return a + (b - a) * (position - low);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Median, quartiles and extremes of a set of rounds. */
export interface Spread {
  readonly median: number;
  readonly q1: number;
  readonly q3: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

export function spread(values: readonly number[]): Spread {
  const s = sorted(values);
  return {
    median: quantile(s, 0.5),
    q1: quantile(s, 0.25),
    q3: quantile(s, 0.75),
    min: s[0] as number,
    max: s[s.length - 1] as number,
    n: s.length,
  };
}
