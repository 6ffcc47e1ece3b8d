import { paceFleet } from '@backoff/test-utils';
import { describe, expect, it } from 'vitest';
import { MemoryPacerStore } from '../src/features/pacer/store.ts';

// 150 calls at once into 20 a second answering bare 429s (each 429 retried 100 ms later, 20 retries), counted by
// the limiter; in virtual time, one event at a time.
const BURST = Array.from({ length: 150 }, () => 5000);
const into20 = (shared: boolean, calls: readonly number[]) =>
  paceFleet({ store: new MemoryPacerStore({ shared }), limit: 20, window: 1000, headers: false, calls });

describe('bare 429s after a quiet spell: the pacer turns away no call the server would take', () => {
  it('a lane of one process: one call, 5 s of nothing, then 150 calls: every call goes, none refused', async () => {
    const fresh = await into20(false, BURST);
    const quiet = await into20(false, [0, ...BURST]);
    expect(fresh).toMatchObject({ ok: 150, refused: 0, exhausted: 0 });
    // Counted over the quiet 5 s, the first cut went to AIMD's floor (0.5 a second): 102 of the 151 were
    // refused, their holds past maxRetryAfter. Cut from what the server accepted, the burst is paced near its
    // rate: fewer 429s than on a fresh key (which probes from far above), the last call within 1.5x the ideal.
    expect(quiet).toMatchObject({ ok: 151, refused: 0, exhausted: 0 });
    expect(quiet.throttled).toBeLessThan(fresh.throttled);
    expect(quiet.longest).toBeLessThanOrEqual(1.5 * 7500);
  });

  it('a shared lane: one call, 5 s of nothing, then 150 calls: paced as on a fresh key', async () => {
    const fresh = await into20(true, BURST);
    const quiet = await into20(true, [0, ...BURST]);
    expect(fresh).toMatchObject({ ok: 150, refused: 0, exhausted: 0 });
    // Counted over the quiet 5 s, the cut went to 4.2 a second: the last call took 33 s, not 8.
    expect(quiet).toMatchObject({ ok: 151, refused: 0, exhausted: 0, longest: fresh.longest });
    expect(quiet.throttled).toBe(fresh.throttled);
  });

  it('a quiet spell shorter than a round: the successes before it count, the quiet time does not hold the burst', async () => {
    // A lane of one process measured 2.2 a second over the bucket the quiet 0.6 s filled, and its last call took
    // 59 s; its cut now counts what the server accepted since the first success, over at least a round.
    const own = await into20(false, [4400, ...BURST]);
    expect(own).toMatchObject({ ok: 151, refused: 0, exhausted: 0 });
    expect(own.longest).toBeLessThanOrEqual(1.5 * 7500);
    const shared = await into20(true, [4400, ...BURST]);
    expect(shared).toMatchObject({ ok: 151, refused: 0, exhausted: 0 });
    expect(shared.longest).toBeLessThanOrEqual((await into20(true, BURST)).longest);
  });
});
