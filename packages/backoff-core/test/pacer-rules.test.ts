import { describe, expect, it } from 'vitest';
import { parseRateQuota } from '../src/decide/server-timing.ts';
import {
  type Answer,
  BARE_PAUSE,
  confirm,
  type Hold,
  type Lane,
  learn,
  newLane,
  type PaceLimits,
  release,
  reserve,
  waitOf,
} from '../src/features/pacer/rules.ts';
import { MemoryPacerStore } from '../src/features/pacer/store.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const LIMITS: PaceLimits = { maxRetryAfter: 60_000, stated: undefined };
const half = () => 0.5;

const answer = (
  status: number,
  headers: Record<string, string> = {},
  {
    serverDelay,
    sentAt = NOW - 5,
    ticket = 0,
  }: { serverDelay?: number; sentAt?: number; ticket?: number } = {},
): Answer => {
  const quota = parseRateQuota(headers, NOW);
  return {
    status,
    ticket,
    sentAt,
    serverDelay,
    remaining: quota?.remaining,
    reset: quota?.reset,
    interval: quota?.interval,
  };
};

/** The hold of a reservation in ms (0: it goes now), or 'refused'. */
const holdOf = (
  lane: Lane,
  now: number,
  within = Number.POSITIVE_INFINITY,
  random = half,
  limits = LIMITS,
) => {
  const reserved = reserve(lane, now, within, random, limits);
  return typeof reserved === 'number' ? 0 : reserved.type === 'refused' ? 'refused' : reserved.delay;
};

describe('reserve and release: slots', () => {
  const spent = { RateLimit: '"q";r=0;t=2', 'RateLimit-Policy': '"q";q=10;w=1' };

  it('a spent quota holds until the reset, then lets sends go at the stated rate, spread within the slot', () => {
    const lane = learn(undefined, answer(200, spent), NOW, LIMITS);
    expect(reserve(lane, NOW, Infinity, () => 0, LIMITS)).toEqual({
      type: 'held',
      ticket: 1,
      slot: NOW + 2000,
      delay: 2000,
      reason: 'rate-limit',
    });
    expect(holdOf(lane, NOW, Infinity, () => 0)).toBe(2105);
    expect(holdOf(lane, NOW, Infinity, () => 0.99)).toBe(2214);
  });

  it('a hold longer than what is left of the deadline reserves nothing', () => {
    const lane = learn(undefined, answer(200, spent), NOW, LIMITS);
    expect(reserve(lane, NOW, 1000, () => 0, LIMITS)).toEqual({
      type: 'refused',
      delay: 2000,
      reason: 'rate-limit',
      limit: 'deadline',
    });
    expect(holdOf(lane, NOW, Infinity, () => 0)).toBe(2000);
  });

  it('a hold longer than maxRetryAfter reserves nothing; the smaller of the two limits is named', () => {
    const lane = learn(undefined, answer(200, spent), NOW, LIMITS);
    const short = { maxRetryAfter: 1000, stated: undefined };
    expect(reserve(lane, NOW, 5000, half, short)).toMatchObject({ type: 'refused', limit: 'maxRetryAfter' });
    expect(reserve(lane, NOW, 500, half, short)).toMatchObject({ type: 'refused', limit: 'deadline' });
    expect(lane.sent).toBe(0);
  });

  it('release gives a slot ahead back: the next send takes the earliest one given back', () => {
    const lane = learn(undefined, answer(200, spent), NOW, LIMITS);
    const held = [0, 1, 2, 3].map(() => reserve(lane, NOW, Infinity, () => 0, LIMITS) as Hold);
    expect(held.map((hold) => hold.delay)).toEqual([2000, 2105, 2210, 2315]);
    release(lane, held[2] as Hold, NOW + 10);
    release(lane, held[1] as Hold, NOW + 10);
    expect(lane.holes).toEqual([NOW + 2105, NOW + 2210]);
    expect(holdOf(lane, NOW + 10, Infinity, () => 0)).toBe(2095);
    expect(holdOf(lane, NOW + 10, Infinity, () => 0)).toBe(2200);
    // Then the end of the queue again.
    expect(holdOf(lane, NOW + 10, Infinity, () => 0)).toBe(2410);
  });

  it('a slot already due gives nothing back, and a slot given back that falls due unused is gone', () => {
    const lane = learn(undefined, answer(200, spent), NOW, LIMITS);
    const first = reserve(lane, NOW, Infinity, () => 0, LIMITS) as Hold;
    const second = reserve(lane, NOW, Infinity, () => 0, LIMITS) as Hold;
    release(lane, first, NOW + 2000);
    expect(lane.holes).toBeUndefined();
    release(lane, second, NOW + 10);
    expect(holdOf(lane, NOW + 2200, Infinity, () => 0)).toBe(10);
    expect(lane.holes).toBeUndefined();
  });

  it("release gives the quota's count back too", () => {
    const lane = learn(
      undefined,
      answer(200, { RateLimit: '"q";r=1;t=5', 'RateLimit-Policy': '"q";q=10;w=5' }),
      NOW,
      LIMITS,
    );
    expect(holdOf(lane, NOW)).toBe(0);
    const held = reserve(lane, NOW, Infinity, half, LIMITS) as Hold;
    expect(held.delay).toBe(5012);
    release(lane, held, NOW + 1);
    expect(lane.left).toBe(0);
  });

  it('waitOf reads the earliest slot and changes nothing', () => {
    const lane = learn(undefined, answer(200, spent), NOW, LIMITS);
    const before = structuredClone(lane);
    expect(waitOf(lane, NOW)).toBe(2000);
    expect(waitOf(lane, NOW + 2500)).toBe(0);
    expect(lane).toEqual(before);
  });

  it('a stated quota paces a new lane from its first send', () => {
    const lane = newLane(NOW, 100);
    expect([0, 1, 2].map(() => holdOf(lane, NOW, Infinity, () => 0))).toEqual([0, 105, 210]);
  });
});

describe('learn: the server count and the AIMD rules', () => {
  it('an unthrottled key is never held: it only counts its successes', () => {
    for (const headers of [{}, { RateLimit: '"q";r=9;t=1' }]) {
      let lane = learn(undefined, answer(200, headers), NOW, LIMITS);
      for (let i = 1; i < 50; i++) lane = learn(lane, answer(200, headers), NOW + i * 10, LIMITS);
      for (let i = 0; i < 8; i++) expect(holdOf(lane, NOW + 500)).toBe(0);
      expect(lane.rate).toBeUndefined();
    }
  });

  it("the server's remaining count less the sends reserved after the answered one is what is left", () => {
    let lane = learn(undefined, answer(200, { RateLimit: '"q";r=10;t=5' }), NOW, LIMITS);
    for (let i = 0; i < 4; i++) reserve(lane, NOW, Infinity, half, LIMITS);
    expect(lane.left).toBe(6);
    lane = learn(lane, answer(200, { RateLimit: '"q";r=5;t=5' }, { ticket: 2 }), NOW + 1, LIMITS);
    expect(lane.left).toBe(3);
  });

  it("an answer that overtook an older one keeps its count: the older one's quota left is older news", () => {
    let lane = learn(undefined, answer(200, { RateLimit: '"q";r=10;t=5' }), NOW, LIMITS);
    const [first = 0, , third = 0] = [0, 1, 2].map(
      () => reserve(lane, NOW, Infinity, half, LIMITS) as number,
    );
    // The third send's 429 comes first; the first send's success, with 4 left at the time, comes after it.
    lane = learn(
      lane,
      answer(429, { 'Retry-After': '5' }, { serverDelay: 5000, ticket: third }),
      NOW + 1,
      LIMITS,
    );
    lane = learn(lane, answer(200, { RateLimit: '"q";r=4;t=5' }, { ticket: first }), NOW + 2, LIMITS);
    expect(lane.left).toBe(0);
    expect(waitOf(lane, NOW + 2)).toBe(4999);
  });

  it('a count whose reset passed is forgotten: the new window is unknown', () => {
    const lane = learn(undefined, answer(200, { RateLimit: '"q";r=0;t=1' }), NOW, LIMITS);
    expect(holdOf(lane, NOW)).toBe(1000);
    expect(holdOf(lane, NOW + 1000)).toBe(0);
    expect(lane.left).toBeUndefined();
  });

  it('a first 429 without headers cuts to 0.7 of the successes it followed, not below', () => {
    let lane = learn(undefined, answer(200), NOW, LIMITS);
    // 20 successes in 400 ms: the server let 50 a second through.
    for (let i = 1; i < 20; i++) lane = learn(lane, answer(200), NOW + i * 20, LIMITS);
    lane = learn(lane, answer(429, {}, { sentAt: NOW + 399 }), NOW + 400, LIMITS);
    expect(lane.rate).toBeCloseTo(50 * 0.7);
  });

  it("a 429 learns the server's delay uncapped: each caller caps it by its own maxRetryAfter", () => {
    const lane = learn(
      undefined,
      answer(429, { 'Retry-After': '3600' }, { serverDelay: 3_600_000 }),
      NOW,
      LIMITS,
    );
    expect(lane.reset).toBe(NOW + 3_600_000);
    expect(holdOf(lane, NOW, Infinity, half, { maxRetryAfter: 5000, stated: undefined })).toBe('refused');
    expect(holdOf(lane, NOW, Infinity, half, { maxRetryAfter: 4_000_000, stated: undefined })).toBe(
      3_600_000,
    );
  });

  it('without headers, 429s cut the rate multiplicatively (once per round, at most once a second), never to 0; successes raise it', () => {
    let lane = learn(undefined, answer(429, {}, { sentAt: NOW - 10 }), NOW, LIMITS);
    expect(lane.rate).toBeCloseTo(70);
    // A 429 to a send let go before the cut says nothing new.
    lane = learn(lane, answer(429, {}, { sentAt: NOW - 1 }), NOW + 1, LIMITS);
    expect(lane.rate).toBeCloseTo(70);
    // Nor does one within the second: a spent window refuses every send until it resets.
    lane = learn(lane, answer(429, {}, { sentAt: NOW + 10 }), NOW + 500, LIMITS);
    expect(lane.rate).toBeCloseTo(70);
    let at = NOW + 1000;
    for (let i = 0; i < 40; i++, at += 1000)
      lane = learn(lane, answer(429, {}, { sentAt: at - 1 }), at, LIMITS);
    expect(lane.rate).toBe(0.5);
    expect(holdOf(lane, at, Infinity, () => 0)).toBe(0);
    expect(reserve(lane, at, Infinity, () => 0, LIMITS)).toMatchObject({ delay: 2100, reason: 'throttled' });
    const before = lane.rate as number;
    for (let i = 1; i <= 10; i++) lane = learn(lane, answer(200), at + i * 1000, LIMITS);
    expect(lane.rate).toBeGreaterThan(before);
  });

  it('without headers, a cut goes no lower than the successes the server let through cut once', () => {
    let lane = learn(undefined, answer(429, {}, { sentAt: NOW - 10 }), NOW, LIMITS);
    // 30 successes a second for 2 s, then a 429: the limiter allows about that rate.
    let at = NOW;
    for (let i = 0; i < 60; i++) {
      at += 1000 / 30;
      lane = learn(lane, answer(200, {}, { sentAt: at - 5 }), at, LIMITS);
    }
    // It had grown back to 60 a second (twice the successes' rate): the cut goes from the 30 the server let through.
    expect(lane.rate).toBeCloseTo(60, 3);
    lane = learn(lane, answer(429, {}, { sentAt: at }), at + 1, LIMITS);
    expect(lane.measured).toBeCloseTo(30, 3);
    // 0.7 of the larger of that and what the server accepted since the first success: 60 in 1.97 s.
    expect(lane.rate).toBeCloseTo((0.7 * 60_000) / (at + 1 - (NOW + 1000 / 30)), 3);
  });
});

describe('MemoryPacerStore: bounded', () => {
  const limits = LIMITS;

  it('never keeps more than maxKeys keys; idle keys go first', () => {
    const store = new MemoryPacerStore();
    for (let i = 0; i < 5000; i++) store.learn(`https://host-${i}.example`, answer(200), NOW, limits);
    expect(store.size).toBe(1000);
    expect(store.has('https://host-4999.example')).toBe(true);
    expect(store.has('https://host-3999.example')).toBe(false);
    // A minute later every one of them is idle: the next key lets them all go.
    store.learn('https://late.example', answer(200), NOW + 61_000, limits);
    expect(store.size).toBe(1);
  });

  it('idle keys go before busy ones, wherever they are in the order', () => {
    const store = new MemoryPacerStore({ maxKeys: 3 });
    store.learn('a', answer(200), NOW, limits);
    // 'b' has a stated rate: two of its slots past its reset, it is idle.
    store.learn(
      'b',
      answer(200, { RateLimit: '"q";r=5;t=1', 'RateLimit-Policy': '"q";q=1;w=1' }),
      NOW,
      limits,
    );
    store.learn('c', answer(200), NOW + 3500, limits);
    store.learn('d', answer(200), NOW + 3500, limits);
    // 'a', the oldest, stays: 'b' was the idle one.
    expect(['a', 'b', 'c', 'd'].filter((key) => store.has(key))).toEqual(['a', 'c', 'd']);
    // Then, with none idle, the oldest goes.
    store.learn('e', answer(200), NOW + 3500, limits);
    expect(['a', 'c', 'd', 'e'].filter((key) => store.has(key))).toEqual(['c', 'd', 'e']);
  });

  it('a key that holds sends is dropped only when every key does', () => {
    const store = new MemoryPacerStore({ maxKeys: 2 });
    const spent = answer(429, { 'Retry-After': '30' }, { serverDelay: 30_000 });
    store.learn('held', spent, NOW, limits);
    store.learn('free', answer(200), NOW, limits);
    store.learn('new', answer(200), NOW, limits);
    expect(['held', 'free', 'new'].filter((key) => store.has(key))).toEqual(['held', 'new']);
    store.learn('held-too', spent, NOW, limits);
    expect(['held', 'new', 'held-too'].filter((key) => store.has(key))).toEqual(['held', 'held-too']);
    // Every key holds now: the oldest goes.
    store.learn('third', spent, NOW, limits);
    expect(['held', 'held-too', 'third'].filter((key) => store.has(key))).toEqual(['held-too', 'third']);
  });

  it('rejects a bound that is not a positive integer', () => {
    expect(() => new MemoryPacerStore({ maxKeys: 0 })).toThrow(
      'Expected `maxKeys` to be an integer from 1 to 1000000000, got 0.',
    );
  });
});

describe('a shared lane: bare 429s pause it, and a hold come due is confirmed', () => {
  const bare = (sentAt: number) => answer(429, {}, { sentAt });

  it('a bare 429 holds a shared lane for BARE_PAUSE; a lane of one process is not held so', () => {
    const shared = learn(undefined, bare(NOW - 5), NOW, LIMITS, true);
    expect(waitOf(shared, NOW)).toBe(BARE_PAUSE);
    expect(reserve(shared, NOW, Infinity, half, LIMITS)).toMatchObject({
      type: 'held',
      slot: NOW + BARE_PAUSE,
    });
    const own = learn(undefined, bare(NOW - 5), NOW, LIMITS);
    expect(waitOf(own, NOW)).toBe(0);
  });

  it('a 429 to a send let go soon after the pause ended widens it by as much again; one much later starts over', () => {
    const lane = learn(undefined, bare(NOW - 5), NOW, LIMITS, true);
    const ended = NOW + BARE_PAUSE;
    learn(lane, bare(ended + 10), ended + 15, LIMITS, true);
    expect(waitOf(lane, ended + 15)).toBe(2 * BARE_PAUSE);
    const again = ended + 15 + 2 * BARE_PAUSE;
    learn(lane, bare(again + 10), again + 15, LIMITS, true);
    expect(waitOf(lane, again + 15)).toBe(3 * BARE_PAUSE);
    // Seconds later: the window it learnt is long gone, the pause starts over.
    const later = again + 10_000;
    learn(lane, bare(later), later + 5, LIMITS, true);
    expect(waitOf(lane, later + 5)).toBe(BARE_PAUSE);
  });

  it('a 429 to a send let go before the pause ended is the same signal: the pause stays as it was', () => {
    const lane = learn(undefined, bare(NOW - 5), NOW, LIMITS, true);
    learn(lane, bare(NOW - 2), NOW + 20, LIMITS, true);
    expect(waitOf(lane, NOW + 20)).toBe(BARE_PAUSE - 20);
  });

  it('a 429 that states its wait, or a lane with a stated rate, is not paused by the rule', () => {
    const told = learn(undefined, answer(429, {}, { serverDelay: 2000 }), NOW, LIMITS, true);
    expect(waitOf(told, NOW)).toBe(2000);
    const stated = learn(undefined, answer(429, {}), NOW, { maxRetryAfter: 60_000, stated: 100 }, true);
    expect(stated.pause).toBe(0);
  });

  it('a hold come due goes with its ticket, unless the lane was paused meanwhile: then a new slot after it', () => {
    // Throttled to 10 per second by 429s: the second send is held for the next slot.
    const lane = newLane(NOW, undefined);
    lane.rate = 10;
    reserve(lane, NOW, Infinity, () => 0, LIMITS);
    const hold = reserve(lane, NOW, Infinity, () => 0, LIMITS) as Hold;
    expect(confirm(lane, hold, hold.slot, Infinity, () => 0, LIMITS)).toBe(hold.ticket);
    // Another process met a bare 429 just before this one's slot came.
    const other = reserve(lane, NOW, Infinity, () => 0, LIMITS) as Hold;
    learn(lane, bare(other.slot - 2), other.slot - 1, LIMITS, true);
    const again = confirm(lane, other, other.slot, Infinity, () => 0, LIMITS);
    expect(again).toMatchObject({ type: 'held' });
    expect((again as Hold).slot).toBeGreaterThanOrEqual(other.slot - 1 + BARE_PAUSE);
  });

  it("a quota's count is no pause: a hold come due on a spent count goes, its slot allowed for it", () => {
    const limits: PaceLimits = { maxRetryAfter: 60_000, stated: undefined };
    const lane = learn(
      undefined,
      answer(200, { ratelimit: '"d";r=0;t=1', 'ratelimit-policy': '"d";q=10;w=1' }),
      NOW,
      limits,
      true,
    );
    const hold = reserve(lane, NOW, Infinity, () => 0, limits) as Hold;
    expect(hold).toMatchObject({ type: 'held', slot: NOW + 1000 });
    expect(confirm(lane, hold, hold.slot, Infinity, () => 0, limits)).toBe(hold.ticket);
  });

  it('the memory store pauses only when shared', () => {
    const key = 'https://api.test';
    const own = new MemoryPacerStore();
    own.learn(key, bare(NOW - 5), NOW, LIMITS);
    expect(own.read(key, NOW)).toBe(0);
    const shared = new MemoryPacerStore({ shared: true });
    shared.learn(key, bare(NOW - 5), NOW, LIMITS);
    expect(shared.read(key, NOW)).toBe(BARE_PAUSE);
  });
});
