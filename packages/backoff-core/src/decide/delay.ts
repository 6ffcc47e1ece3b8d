import type { Jitter } from '../options/options.js';

/** The inputs of a computed delay. */
export interface DelayOptions {
  readonly baseDelay: number;
  readonly maxDelay: number;
  readonly factor: number;
  readonly jitter: Jitter;
}

/** A draw from `random`, forced into [0, 1]; anything else counts as 1, the longest (safest) wait. */
export function unit(random: () => number): number {
  const r = random();
  return r >= 0 && r <= 1 ? r : 1;
}

/** The un-jittered delay before retry `retry` (1-based): `min(maxDelay, baseDelay * factor ** (retry - 1))`. */
export function exponentialDelay(retry: number, { baseDelay, maxDelay, factor }: DelayOptions): number {
  // The cap comes first, so a huge exponent yields maxDelay, never Infinity. A zero base times an exponent that
  // overflowed to Infinity is NaN: a zero base stays zero.
  const raw = baseDelay * factor ** (retry - 1);
  return Math.min(maxDelay, Number.isNaN(raw) ? baseDelay : raw);
}

/**
 * The delay before retry `retry` (1-based), jittered. `previous` is the delay this logical request waited
 * before its previous retry; only decorrelated jitter uses it. The result is always in [0, maxDelay].
 */
export function computeDelay(
  retry: number,
  options: DelayOptions,
  random: () => number,
  previous: number | undefined = undefined,
): number {
  const v = exponentialDelay(retry, options);
  switch (options.jitter) {
    case 'none':
      return v;
    case 'equal':
      // min(): the float sum can round one ulp above v.
      return Math.min(v, v / 2 + unit(random) * (v / 2));
    case 'decorrelated': {
      // AWS's "decorrelated jitter": uniform in [base, 3 x previous sleep], capped; starts from base.
      const low = Math.min(options.baseDelay, options.maxDelay);
      const high = Math.min(options.maxDelay, Math.max(low, (previous ?? low) * 3));
      return Math.min(high, low + unit(random) * (high - low));
    }
    default:
      return unit(random) * v;
  }
}

/** The AWS SDK's base delay for throttling errors (against 50 ms for transient ones), in ms. */
export const THROTTLING_BASE_DELAY = 1000;

/**
 * The delay shape for a throttling answer with no timing header (a 429 from nginx's `limit_req`): the base is at
 * least 1 s (the AWS SDK's throttling base), and full jitter becomes equal jitter, so the retry never comes back
 * sooner than half the backoff value: a throttled client gets no "retry within milliseconds" draw. Other jitters
 * keep their formula on the larger base.
 */
export function throttlingDelayOptions(options: DelayOptions): DelayOptions {
  return {
    baseDelay: Math.min(options.maxDelay, Math.max(options.baseDelay, THROTTLING_BASE_DELAY)),
    maxDelay: options.maxDelay,
    factor: options.factor,
    jitter: options.jitter === 'full' ? 'equal' : options.jitter,
  };
}
