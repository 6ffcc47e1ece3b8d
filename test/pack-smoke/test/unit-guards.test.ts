// The unit run's wall-clock guard (test/test-utils/src/no-wall-clock.ts) catches what it says and nothing else.
// Imported here, so that it runs in any run, not only `pnpm test:unit`.
import '../../test-utils/src/no-wall-clock.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { takeViolations } from '../../test-utils/src/unit-violations.ts';

const T = Date.UTC(2026, 11, 2, 12);

afterEach(() => {
  vi.useRealTimers();
});

describe('the wall-clock guard of unit tests', () => {
  it('test code that reads the wall clock is caught, with its line', () => {
    Date.now();
    performance.now();
    new Date();
    Date();
    const caught = takeViolations();
    expect(caught).toHaveLength(4);
    expect(caught[0]).toMatch(
      /^A unit test may not read the wall clock \(Date\.now\(\), .*unit-guards\.test\.ts:15:/,
    );
    expect(caught[1]).toMatch(/\(performance\.now\(\), .*unit-guards\.test\.ts:16:/);
    expect(caught[2]).toMatch(/\(new Date\(\), .*unit-guards\.test\.ts:17:/);
    expect(caught[3]).toMatch(/\(Date\(\), .*unit-guards\.test\.ts:18:/);
  });

  it('a date at a given time, and a fake clock, are not the wall clock', () => {
    expect(new Date(T).toISOString()).toBe('2026-12-02T12:00:00.000Z');
    expect(Date.UTC(2026, 11, 2, 12)).toBe(T);
    expect(new Date(T)).toBeInstanceOf(Date);
    vi.useFakeTimers({ now: T, toFake: ['Date', 'performance'] });
    expect(Date.now()).toBe(T);
    expect(new Date()).toEqual(new Date(T));
    performance.now();
    expect(takeViolations()).toEqual([]);
  });

  it('a real timer of more than 0 ms is caught; a turn of the event loop is not', async () => {
    clearTimeout(setTimeout(() => {}, 5));
    clearInterval(setInterval(() => {}, 10));
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => setImmediate(resolve));
    const caught = takeViolations();
    expect(caught).toHaveLength(2);
    expect(caught[0]).toMatch(
      /^A unit test may not wait on a real timer \(setTimeout of 5 ms, .*unit-guards/,
    );
    expect(caught[1]).toMatch(/\(setInterval of 10 ms, /);
  });

  it("another package's reads are let through", async () => {
    // msw stamps its requests, undici its timings: neither is the test's time.
    await fetch('data:text/plain,ok').then((response) => response.text());
    expect(takeViolations()).toEqual([]);
  });
});
