import { readFile } from 'node:fs/promises';
import { type BackoffOptions, createBackoff } from 'backoff-core';
import { DEFAULTS, decide, startCall } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';

// The README once described a joined "1, 120" Retry-After as ignored after the code had come to
// read it as its longest member (the case "'1' and '120' (two conflicting lines)" in support/cases.ts).
describe('the fault suite README', () => {
  it('says a joined Retry-After list counts as its longest member, not that it is ignored', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const text = readme.replace(/\s+/g, ' ');
    const sentence = /fetch joins them \(`1, 120`\)[^.]*\./.exec(text)?.[0];
    expect(sentence).toBeDefined();
    expect(sentence).not.toMatch(/ignored/);
    expect(sentence).toMatch(/longest member: 120 s, above `maxRetryAfter`/);
  });
});

/** ms as the guides write them: `150 ms`, `2.5 s`. */
const spoken = (ms: number) => (ms < 1000 ? `${ms} ms` : `${ms / 1000} s`);

/** The waits of one call told the same delay again and again, each retry's wait as the decider gives it. */
function waits(asked: string, options: BackoffOptions, times: number): number[] {
  let at = 0;
  const call = startCall(createBackoff({ budget: false, now: () => at, ...options }), {
    url: 'https://api.test/',
  });
  const found: number[] = [];
  for (let i = 0; i < times; i++) {
    const decision = decide(call, { type: 'response', status: 503, headers: { 'retry-after': asked } });
    if (decision instanceof Promise || !decision.retry) break;
    found.push(decision.delay);
    at += decision.delay;
  }
  return found;
}

/**
 * The rule for waits the server asks for, with the numbers the decider itself gives today: every guide an axios, ky
 * or fetch user reads states it in these words, so a change of the rule that leaves a guide behind fails here.
 */
function serverWaitRule(): string {
  const first = (asked: string, random: number) => waits(asked, { random: () => random }, 1)[0] as number;
  const ratio = (first('1', 1) - 1000) / 1000;
  const cap = first('10', 1) - 10_000;
  const infinite = { maxRetryAfter: Number.POSITIVE_INFINITY, serverRetries: 100, random: () => 1 };
  // Eight asks: the floor on repeated asks stays below the 10 s asked.
  const widest = Math.max(...waits('10', infinite, 8).map((wait) => wait - 10_000));
  const floors = waits('0', { ...infinite, retryAfterSpread: 0 }, 30);
  const cappedAt = waits('0', { random: () => 0 }, 1000).length;
  const doubled = floors[2] === 2 * (floors[1] as number);
  expect(doubled).toBe(true);
  return [
    'A wait the server asks for (`Retry-After`, the `RateLimit` and reset headers) is a floor: the retry goes after it,',
    `plus a random share of a window of ${ratio} x the delay, at most ${spoken(cap)}, doubled each time the same call is`,
    `told again (up to ${spoken(widest)}). Told \`Retry-After: 1\`, it goes between ${first('1', 0) / 1000} and`,
    `${spoken(first('1', 1))} later; told \`Retry-After: 0\` or a past date, within ${spoken(first('0', 1))}. A repeated`,
    `ask waits at least ${spoken(floors[1] as number)}, doubled each time (up to ${spoken(Math.max(...floors))}),`,
    'whatever `retryAfterSpread`. These retries do not count against `retries`: at most `serverRetries`',
    `(${cappedAt}) per call, none above \`maxRetryAfter\` (${spoken(DEFAULTS.maxRetryAfter)}), and without a`,
    '`deadline` none ends later than 2 x `maxRetryAfter` after the first ask.',
  ].join(' ');
}

const GUIDES = [
  'README.md',
  'packages/backoff-core/README.md',
  'packages/axios-backoff/README.md',
  'packages/axios-backoff/MIGRATING.md',
  'packages/ky-backoff/README.md',
  'packages/ky-backoff/MIGRATING.md',
];

describe('one rule for the waits a server asks for, in every guide', () => {
  const rule = serverWaitRule();

  it.each(GUIDES)('%s states it, with the numbers the code gives', async (path) => {
    const text = (await readFile(new URL(`../../../${path}`, import.meta.url), 'utf8')).replace(/\s+/g, ' ');
    expect(text).toContain(rule);
    // What the guides once said instead, measured wrong (a Retry-After: 1 came back after 1.36-2.50 s).
    expect(text).not.toMatch(/up to 20% of it|within 100 ms/);
  });
});
