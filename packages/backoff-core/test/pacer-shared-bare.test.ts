import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Answer,
  confirm,
  type Hold,
  learn,
  newLane,
  type PaceLimits,
  reserve,
} from '../src/features/pacer/rules.ts';
import { MemoryPacerStore } from '../src/features/pacer/store.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const LIMITS: PaceLimits = { maxRetryAfter: 60_000, stated: undefined };

const ok = (at: number): Answer => ({
  status: 200,
  ticket: 0,
  sentAt: at - 2,
  serverDelay: undefined,
  remaining: undefined,
  reset: undefined,
  interval: undefined,
});
const bare = (at: number): Answer => ({ ...ok(at), status: 429 });

describe("a shared lane's rate after bare 429s: what the server accepted", () => {
  it('the first cut is to the successes since the lane began, over at least a second', () => {
    // 20 successes in 400 ms, then a 429: 20 per second (the quota's window is no shorter than a round).
    const lane = learn(undefined, ok(NOW), NOW, LIMITS, true);
    for (let i = 1; i < 20; i++) learn(lane, ok(NOW + i * 20), NOW + i * 20, LIMITS, true);
    learn(lane, bare(NOW + 400), NOW + 400, LIMITS, true);
    expect(lane.rate).toBe(20);
    // A lane of one process cuts by AIMD's guess instead: 0.7 of the rate the successes came at.
    const own = learn(undefined, ok(NOW), NOW, LIMITS);
    for (let i = 1; i < 20; i++) learn(own, ok(NOW + i * 20), NOW + i * 20, LIMITS);
    learn(own, bare(NOW + 400), NOW + 400, LIMITS);
    expect(own.rate).toBeCloseTo(0.7 * 50, 0);
  });

  it('a later cut is to the successes since the last cut, from the first of them', () => {
    const lane = learn(undefined, ok(NOW), NOW, LIMITS, true);
    learn(lane, bare(NOW + 100), NOW + 100, LIMITS, true);
    expect(lane.rate).toBe(1);
    // The pause over, 95 successes from 1 s on, then a 429 5 s after the first: 19 per second.
    for (let i = 0; i < 95; i++) learn(lane, ok(NOW + 1000 + i * 50), NOW + 1000 + i * 50, LIMITS, true);
    learn(lane, bare(NOW + 6000), NOW + 6000, LIMITS, true);
    expect(lane.rate).toBe(19);
  });

  it('no success since the last cut is no news of the rate: the pause holds the lane, the rate stays', () => {
    const lane = learn(undefined, ok(NOW), NOW, LIMITS, true);
    for (let i = 1; i < 20; i++) learn(lane, ok(NOW + i * 20), NOW + i * 20, LIMITS, true);
    learn(lane, bare(NOW + 400), NOW + 400, LIMITS, true);
    // Still spent 2 s on: a repeat widens the pause, the rate is left alone.
    learn(lane, bare(NOW + 2400), NOW + 2400, LIMITS, true);
    expect(lane.rate).toBe(20);
    expect(lane.pause).toBeGreaterThan(0);
  });

  it('successes never take the rate below the cut; it grows past it at most a tenth above the measured rate', () => {
    const lane = newLane(NOW, undefined);
    for (let i = 0; i < 20; i++) learn(lane, ok(NOW + i * 20), NOW + i * 20, LIMITS, true);
    learn(lane, bare(NOW + 400), NOW + 400, LIMITS, true);
    let most = 0;
    // 19 successes a second for 20 s: the rate stays at 20 until the curve passes it, then no further than 1.1x.
    for (let t = 450; t < 20_000; t += 1000 / 19) {
      learn(lane, ok(NOW + t), NOW + t, LIMITS, true);
      expect(lane.rate).toBeGreaterThanOrEqual(20);
      most = Math.max(most, lane.rate as number);
    }
    expect(most).toBeLessThanOrEqual(1.1 * 19 * 1.01);
  });
});

describe("a cut stretches a shared lane's queue", () => {
  /** A shared lane paced at 40/s, 10 sends reserved at once (held at 26.25 ms apart), then cut to 20/s at +20 ms. */
  function cutQueue() {
    const lane = newLane(NOW - 2000, undefined);
    Object.assign(lane, { rate: 40, lastMax: 40, lastThrottle: NOW - 2000 });
    const holds = Array.from({ length: 10 }, () => reserve(lane, NOW, Infinity, () => 0, LIMITS));
    for (let i = 0; i < 20; i++) learn(lane, ok(NOW + i / 2), NOW + i / 2, LIMITS, true);
    learn(lane, bare(NOW + 20), NOW + 20, LIMITS, true);
    return { lane, holds: holds.slice(1) as Hold[] };
  }

  it('a send held before the cut waits for its slot stretched to the new rate, then goes', () => {
    const { lane, holds } = cutQueue();
    expect(lane.rate).toBe(20);
    const last = holds[8] as Hold;
    expect(last.slot).toBe(NOW + 9 * 26.25);
    const again = confirm(lane, last, last.slot, Infinity, () => 0, LIMITS) as Hold;
    expect(again).toMatchObject({ type: 'held', slot: NOW + 20 + (9 * 26.25 - 20) * 2 });
    expect(again.ticket).toBeGreaterThan(last.ticket);
    // Stretched once: it goes when its new slot comes.
    expect(confirm(lane, again, again.slot, Infinity, () => 0, LIMITS)).toBe(again.ticket);
    // New sends queue after the stretched end of the queue.
    expect((reserve(lane, last.slot, Infinity, () => 0, LIMITS) as Hold).slot).toBeGreaterThanOrEqual(
      NOW + 20 + (10 * 26.25 - 20) * 2,
    );
  });

  it("a stretched slot past the caller's deadline is refused; a lane of one process never stretches", () => {
    const { lane, holds } = cutQueue();
    const last = holds[8] as Hold;
    expect(confirm(lane, last, last.slot, 100, () => 0, LIMITS)).toMatchObject({
      type: 'refused',
      limit: 'deadline',
    });
    const own = newLane(NOW - 2000, undefined);
    Object.assign(own, { rate: 40, lastMax: 40, lastThrottle: NOW - 2000 });
    const held = Array.from({ length: 10 }, () => reserve(own, NOW, Infinity, () => 0, LIMITS));
    for (let i = 0; i < 20; i++) learn(own, ok(NOW + i / 2), NOW + i / 2, LIMITS);
    learn(own, bare(NOW + 20), NOW + 20, LIMITS);
    const mine = held[9] as Hold;
    expect(confirm(own, mine, mine.slot, Infinity, () => 0, LIMITS)).toBe(mine.ticket);
  });
});

/**
 * A fleet on one shared lane in virtual time, into a fixed-window limiter answering bare 429s: `calls` arrive at
 * `demand` per second, each sends when the store lets it (held: its slot, then `confirm`), a 429 is retried 100 ms
 * later. Answers take `latency` ms. Returns the 429s and when the last call succeeded (ms after the start).
 */
function fleet({
  quota,
  demand,
  calls,
  phase,
  latency,
}: {
  quota: number;
  demand: number;
  calls: number;
  phase: number;
  latency: number;
}) {
  const store = new MemoryPacerStore({ shared: true });
  const key = 'https://api.test';
  const events: { at: number; act: () => void }[] = [];
  const at = (time: number, act: () => void) => {
    let i = events.length;
    while (i > 0 && (events[i - 1] as { at: number }).at > time) i--;
    events.splice(i, 0, { at: time, act });
  };
  let window = -1;
  let used = 0;
  let throttled = 0;
  let last = 0;
  const random = () => 0.5;
  const answer = (sentAt: number, done: number): Answer => {
    const index = Math.floor((sentAt - NOW + phase) / 1000);
    if (index !== window) {
      window = index;
      used = 0;
    }
    const status = ++used > quota ? 429 : 200;
    return { ...ok(done), status, sentAt };
  };
  const attempt = (start: number) => {
    const go = (sentAt: number) => {
      const done = sentAt + latency;
      at(done, () => {
        const answered = answer(sentAt, done);
        store.learn(key, answered, done, LIMITS);
        if (answered.status === 429) {
          throttled++;
          at(done + 100, () => attempt(done + 100));
        } else last = Math.max(last, done - NOW);
      });
    };
    const reserved = store.reserve(key, start, Number.POSITIVE_INFINITY, random, LIMITS);
    if (typeof reserved === 'number') return go(start);
    if (reserved.type !== 'held') throw new Error('refused');
    // Each hold over is confirmed, as the runner does; a confirmation that holds again is confirmed in turn.
    const wait = (hold: Hold, due: number) =>
      at(due, () => {
        const again = store.confirm(key, hold, due, Number.POSITIVE_INFINITY, random, LIMITS);
        if (typeof again === 'number') return go(due);
        if (again.type !== 'held') throw new Error(`refused: ${JSON.stringify(again)}`);
        wait(again, due + again.delay);
      });
    wait(reserved, start + reserved.delay);
  };
  for (let i = 0; i < calls; i++) {
    const start = NOW + (i * 1000) / demand;
    at(start, () => attempt(start));
  }
  while (events.length > 0) {
    const next = events.shift() as { at: number; act: () => void };
    next.act();
  }
  return { throttled, last, ideal: (calls / quota) * 1000 };
}

describe('a fleet sharing one lane into a fixed window answering bare 429s', () => {
  it('the measured case: 200 calls at 50/s into 20/s meet the 429s of the first window only', () => {
    // The first 429 and the two that widen its pause until the window's reset; then the quota's own rate.
    const run = fleet({ quota: 20, demand: 50, calls: 200, phase: 0, latency: 2 });
    expect(run.throttled).toBe(3);
    expect(run.last).toBeLessThanOrEqual(1.1 * run.ideal);
  });

  it('any quota, demand, window phase and latency: at most 10 429s and a third of a quota more, the last call within 1.2x and one window', () => {
    // Where the first 429 comes after successes on both sides of a window's edge, its cut is up to twice the
    // quota: the next cut corrects it and stretches the queue reserved meanwhile, a few 429s later. A small quota
    // also ends up to one window late (a quota of 5 finishes its 50 calls up to 0.6 s past 1.2x the ideal). Over
    // 400,000 random fleets the worst were 9 429s above a third of the quota and 0.63 s past 1.2x: the seed is
    // fixed so that the run is the same every time. (Cut by AIMD's guess, the same fleets met up to 55 429s, and
    // their last call up to 1.84x the ideal.)
    fc.assert(
      fc.property(
        fc.integer({ min: 5, max: 50 }),
        fc.double({ min: 1.5, max: 4, noNaN: true }),
        fc.integer({ min: 0, max: 999 }),
        fc.integer({ min: 1, max: 20 }),
        (quota, over, phase, latency) => {
          const run = fleet({ quota, demand: quota * over, calls: quota * 10, phase, latency });
          expect(run.throttled).toBeLessThanOrEqual(10 + quota / 3);
          expect(run.last).toBeLessThanOrEqual(1.2 * run.ideal + 1000);
        },
      ),
      { numRuns: 300, seed: 20261205 },
    );
  });
});
