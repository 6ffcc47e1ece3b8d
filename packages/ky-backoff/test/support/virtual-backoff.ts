import { VirtualClock } from '@backoff/test-utils';
import type { BackoffOptions } from 'backoff-core';
import { kyBackoff } from 'ky-backoff';
import type { LooseKy } from './clients.ts';

/** kyBackoff on a virtual clock, for tests that read the waits it made. */
export interface VirtualBackoff {
  /** The clock of the instance wrapped last. */
  readonly clock: VirtualClock;
  /** `kyBackoff(instance)` on a new virtual clock, `random` fixed at 0.5 (so full jitter waits half the cap). */
  wrap(instance: LooseKy, options?: BackoffOptions): LooseKy;
}

export function virtualBackoff(): VirtualBackoff {
  let clock = new VirtualClock();
  return {
    get clock() {
      return clock;
    },
    wrap(instance, options = {}) {
      clock = new VirtualClock();
      return kyBackoff(instance, {
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
        ...options,
      }) as LooseKy;
    },
  };
}
