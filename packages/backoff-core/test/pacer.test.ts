import { createBackoff, Pacer } from 'backoff-core';
import { describe, expect, it } from 'vitest';
import { type Lane, learn, reserve, sweep } from '../src/pacer.ts';
import { parseRateQuota } from '../src/server-timing.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const answer = (
  status: number,
  headers: Record<string, string> = {},
  serverDelay?: number,
  sentAt = NOW - 5,
) => ({
  status,
  sentAt,
  serverDelay,
  quota: parseRateQuota(headers, NOW),
});

describe('parseRateQuota: what a response says of its quota', () => {
  it('draft-8: the spent item and its named policy, among several', () => {
    const quota = parseRateQuota(
      {
        RateLimit: '"burst";r=5;t=30, "second";r=0;t=2',
        'RateLimit-Policy': '"burst";q=100;w=60, "second";q=20;w=1',
      },
      NOW,
    );
    expect(quota).toEqual({ spent: 2000, interval: 50 });
  });

  it('draft-7: the dictionary, and the policy whose quota is the limit', () => {
    const quota = parseRateQuota(
      { RateLimit: 'limit=10, remaining=0, reset=3', 'RateLimit-Policy': '100;w=60, 10;w=1' },
      NOW,
    );
    expect(quota).toEqual({ spent: 3000, interval: 100 });
  });

  it('draft-6: separate fields', () => {
    const headers = {
      'RateLimit-Limit': '20',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1',
      'RateLimit-Policy': '20;w=1',
    };
    expect(parseRateQuota(headers, NOW)).toEqual({ spent: 1000, interval: 50 });
  });

  it('X-RateLimit: an epoch reset, and the limit spread over the time left (no window stated)', () => {
    const reset = String((NOW + 4000) / 1000);
    const headers = { 'X-RateLimit-Limit': '8', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset };
    expect(parseRateQuota(headers, NOW)).toEqual({ spent: 4000, interval: 500 });
  });

  it('quota left is not spent; malformed fields are ignored; no field is no quota', () => {
    expect(parseRateQuota({ RateLimit: '"a";r=3;t=1', 'RateLimit-Policy': '"a";q=4;w=1' }, NOW)).toEqual({
      spent: undefined,
      interval: 250,
    });
    expect(parseRateQuota({ RateLimit: '"a";r=0;t=soon', 'RateLimit-Policy': '"a";q=x;w=1' }, NOW)).toEqual({
      spent: undefined,
      interval: undefined,
    });
    expect(parseRateQuota({ 'Content-Type': 'text/plain' }, NOW)).toBeUndefined();
  });
});

describe('learn and reserve: the pacing rules', () => {
  const spent = { RateLimit: '"q";r=0;t=2', 'RateLimit-Policy': '"q";q=10;w=1' };

  it('an unthrottled key is never held: it only counts its successes', () => {
    for (const headers of [{}, { RateLimit: '"q";r=9;t=1' }]) {
      let lane = learn(undefined, answer(200, headers), NOW, 60_000);
      for (let i = 1; i < 50; i++) lane = learn(lane, answer(200, headers), NOW + i * 10, 60_000);
      for (let i = 0; i < 50; i++) expect(reserve(lane, NOW + 500, Infinity, () => 0.5)).toBeUndefined();
      expect(lane.rate).toBeUndefined();
    }
  });

  it('a first 429 without headers cuts to 0.7 of the successes it followed, not below', () => {
    let lane = learn(undefined, answer(200), NOW, 60_000);
    // 20 successes in 400 ms: the server let 50 a second through.
    for (let i = 1; i < 20; i++) lane = learn(lane, answer(200), NOW + i * 20, 60_000);
    lane = learn(lane, answer(429, {}, undefined, NOW + 399), NOW + 400, 60_000);
    expect(lane.rate).toBeCloseTo(50 * 0.7);
  });

  it('a spent quota holds until the reset, then lets sends go at the stated rate, spread within the slot', () => {
    const lane = learn(undefined, answer(200, spent), NOW, 60_000) as Lane;
    expect(reserve(lane, NOW, Infinity, () => 0)).toEqual({ delay: 2000, reason: 'rate-limit' });
    expect(reserve(lane, NOW, Infinity, () => 0)).toEqual({ delay: 2105, reason: 'rate-limit' });
    expect(reserve(lane, NOW, Infinity, () => 0.99)).toEqual({ delay: 2214, reason: 'rate-limit' });
  });

  it('a hold longer than what is left of the deadline reserves nothing', () => {
    const lane = learn(undefined, answer(200, spent), NOW, 60_000) as Lane;
    expect(reserve(lane, NOW, 1000, () => 0)).toEqual({ delay: 2000, reason: 'rate-limit' });
    expect(reserve(lane, NOW, Infinity, () => 0)).toEqual({ delay: 2000, reason: 'rate-limit' });
  });

  it('maxRetryAfter bounds the reset the pacer learns', () => {
    const lane = learn(undefined, answer(429, { 'Retry-After': '3600' }, 3_600_000), NOW, 5000) as Lane;
    expect(lane.next).toBe(NOW + 5000);
  });

  it('without headers, 429s cut the rate multiplicatively (once per round, at most once a second), never to 0; successes raise it', () => {
    let lane = learn(undefined, answer(429, {}, undefined, NOW - 10), NOW, 60_000) as Lane;
    expect(lane.rate).toBeCloseTo(70);
    // A 429 to a send let go before the cut says nothing new.
    lane = learn(lane, answer(429, {}, undefined, NOW - 1), NOW + 1, 60_000) as Lane;
    expect(lane.rate).toBeCloseTo(70);
    // Nor does one within the second: a spent window refuses every send until it resets.
    lane = learn(lane, answer(429, {}, undefined, NOW + 10), NOW + 500, 60_000) as Lane;
    expect(lane.rate).toBeCloseTo(70);
    let at = NOW + 1000;
    for (let i = 0; i < 40; i++, at += 1000)
      lane = learn(lane, answer(429, {}, undefined, at - 1), at, 60_000) as Lane;
    expect(lane.rate).toBe(0.5);
    expect(reserve(lane, at, Infinity, () => 0)).toEqual(undefined);
    expect(reserve(lane, at, Infinity, () => 0)).toEqual({ delay: 2100, reason: 'throttled' });
    const before = lane.rate as number;
    for (let i = 1; i <= 10; i++) lane = learn(lane, answer(200), at + i * 1000, 60_000) as Lane;
    expect(lane.rate).toBeGreaterThan(before);
  });

  it('without headers, a cut goes no lower than the successes the server let through cut once', () => {
    let lane = learn(undefined, answer(429, {}, undefined, NOW - 10), NOW, 60_000) as Lane;
    // 30 successes a second for 2 s, then a 429: the limiter allows about that rate.
    let at = NOW;
    for (let i = 0; i < 60; i++) {
      at += 1000 / 30;
      lane = learn(lane, answer(200, {}, undefined, at - 5), at, 60_000) as Lane;
    }
    // It had grown back to 60 a second (twice the successes' rate): the cut goes from the 30 the server let through.
    expect(lane.rate).toBeCloseTo(60, 3);
    lane = learn(lane, answer(429, {}, undefined, at), at + 1, 60_000) as Lane;
    expect(lane.measured).toBeCloseTo(30, 3);
    expect(lane.rate).toBeCloseTo(21, 3);
  });

  it('an idle key forgets its state', () => {
    const pacer = new Pacer();
    const backoff = createBackoff({ pacer, now: () => NOW, retries: 0 });
    const state = backoff.start({ url: 'https://api.example/x' });
    state.next({ type: 'response', status: 429, headers: { 'Retry-After': '1' } });
    expect(pacer.nextSend('https://api.example', NOW)).toBe(1000);
    expect(pacer.nextSend('https://api.example', NOW + 61_001)).toBe(0);
  });

  it('a pacer shared across many keys stays bounded: idle keys go first, and never more than 1,000 are kept', () => {
    const lanes = new Map<string, Lane>();
    const add = (key: string, at: number) => {
      sweep(lanes, at);
      lanes.set(key, learn(undefined, answer(200), at, 60_000));
    };
    for (let i = 0; i < 5000; i++) add(`https://host-${i}.example`, NOW);
    expect(lanes.size).toBe(1000);
    expect(lanes.has('https://host-4999.example')).toBe(true);
    // A minute later every one of them is idle: the next key lets them all go.
    add('https://late.example', NOW + 61_000);
    expect([...lanes.keys()]).toEqual(['https://late.example']);
  });
});

describe('ready()', () => {
  it('without a pacer answers undefined at once: no promise on the normal path', () => {
    const state = createBackoff().start({ url: 'https://api.example/x' });
    expect(state.ready()).toBeUndefined();
    const paced = createBackoff({ pacer: new Pacer() }).start({ url: 'https://api.example/x' });
    expect(paced.ready()).toBeUndefined();
  });

  it('rejects a pacer that is not one, naming the option', () => {
    expect(() => createBackoff({ pacer: {} as never })).toThrow(
      'Expected `pacer` to be false or a `new Pacer()`, got an object.',
    );
    expect(() => new Pacer({ key: 'origin' as never })).toThrow(/`pacer.key`/);
  });
});
