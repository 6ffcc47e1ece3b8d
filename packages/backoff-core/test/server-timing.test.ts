import { parseRetryAfter } from 'backoff-core';
import { type HeadersLike, parseHttpDate } from 'backoff-core/adapter';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRateQuota } from '../src/decide/server-timing.ts';

// Wed, 02 Dec 2026 12:00:00 GMT: the fixed "now" of every case (a whole second, so epoch seconds are exact).
const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const NOW_S = NOW / 1000;
const MAX = Number.MAX_SAFE_INTEGER;
const until = (...utc: [number, number, number, number?, number?, number?]) => Date.UTC(...utc) - NOW;

type Case = [label: string, headers: HeadersLike | undefined | null, expected: number | undefined];

const retryAfterSeconds: Case[] = [
  ['delay-seconds', { 'Retry-After': '120' }, 120_000],
  ['0 means retry now, not "no retry"', { 'Retry-After': '0' }, 0],
  ['leading zeros', { 'Retry-After': '007' }, 7000],
  ['spaces around the value', { 'Retry-After': '  30  ' }, 30_000],
  ['a tab before the value', { 'Retry-After': '\t5' }, 5000],
  ['1.5 (not 1*DIGIT)', { 'Retry-After': '1.5' }, undefined],
  ['-1', { 'Retry-After': '-1' }, undefined],
  ['+5', { 'Retry-After': '+5' }, undefined],
  ['1e3', { 'Retry-After': '1e3' }, undefined],
  ['0x10', { 'Retry-After': '0x10' }, undefined],
  ['5s', { 'Retry-After': '5s' }, undefined],
  ['empty', { 'Retry-After': '' }, undefined],
  ['only whitespace', { 'Retry-After': '   ' }, undefined],
  // A repeated header joined by fetch: every member valid -> the longest (never earlier than the server asked).
  ['a list "120, 30" (the longest wins)', { 'Retry-After': '120, 30' }, 120_000],
  ['a list with a malformed member "120, soon"', { 'Retry-After': '120, soon' }, undefined],
  ['a list with an empty member "120,"', { 'Retry-After': '120,' }, undefined],
  [
    'a list of two IMF-fixdates (the later wins)',
    { 'Retry-After': 'Wed, 02 Dec 2026 12:00:10 GMT, Wed, 02 Dec 2026 12:00:30 GMT' },
    30_000,
  ],
  // Fetch joins a seconds line and a date line; the split no longer depends on the first character.
  [
    'a list mixing seconds then a date (the later wins)',
    { 'Retry-After': '5, Wed, 02 Dec 2026 12:00:10 GMT' },
    10_000,
  ],
  [
    'a list mixing seconds then an earlier date',
    { 'Retry-After': '20, Wed, 02 Dec 2026 12:00:10 GMT' },
    20_000,
  ],
  ['a list mixing a date then seconds', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:10 GMT, 30' }, 30_000],
  [
    'a list of seconds, RFC 850 and asctime dates',
    { 'Retry-After': '2, Wednesday, 02-Dec-26 12:00:40 GMT, Wed Dec  2 12:00:50 2026' },
    50_000,
  ],
  ['a list with a lone day name', { 'Retry-After': '2, Wed' }, undefined],
  ['a list with a day name and no date', { 'Retry-After': 'Wed, 5' }, undefined],
  [
    'seconds and a past date: "2, Wed, 21 Oct 2026 07:28:00 GMT"',
    { 'Retry-After': '2, Wed, 21 Oct 2026 07:28:00 GMT' },
    2000,
  ],
  ['digits with a space inside', { 'Retry-After': '1 2' }, undefined],
  [
    'the largest exact value below MAX_SAFE_INTEGER',
    { 'Retry-After': '9007199254740' },
    9_007_199_254_740_000,
  ],
  ['one second more: clamped to MAX_SAFE_INTEGER', { 'Retry-After': '9007199254741' }, MAX],
  ['300 digits: a huge finite number, not undefined', { 'Retry-After': `1${'0'.repeat(299)}` }, MAX],
  ['400 digits (Number() is Infinity): still MAX_SAFE_INTEGER', { 'Retry-After': '9'.repeat(400) }, MAX],
];

const retryAfterDates: Case[] = [
  ['IMF-fixdate', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:30 GMT' }, 30_000],
  // A lenient extra: the same instant; axios-retry and retry-axios read it (their own suite sends it).
  ['IMF-fixdate with UTC instead of GMT', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:30 UTC' }, 30_000],
  ['RFC 850', { 'Retry-After': 'Wednesday, 02-Dec-26 12:00:30 GMT' }, 30_000],
  ['asctime with the double-space day', { 'Retry-After': 'Wed Dec  2 12:00:30 2026' }, 30_000],
  ['asctime with a two-digit day', { 'Retry-After': 'Thu Dec 10 00:00:00 2026' }, until(2026, 11, 10)],
  [
    'asctime with a single space before a one-digit day',
    { 'Retry-After': 'Wed Dec 2 12:00:30 2026' },
    undefined,
  ],
  [
    'a leap second (:60) lands on the next second',
    { 'Retry-After': 'Thu, 31 Dec 2026 23:59:60 GMT' },
    until(2027, 0, 1),
  ],
  ['29 Feb of a leap year', { 'Retry-After': 'Tue, 29 Feb 2028 00:00:00 GMT' }, until(2028, 1, 29)],
  ['exactly now', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:00 GMT' }, 0],
  ['one second in the past', { 'Retry-After': 'Wed, 02 Dec 2026 11:59:59 GMT' }, 0],
  ['a past IMF-fixdate', { 'Retry-After': 'Sun, 06 Nov 1994 08:49:37 GMT' }, 0],
  ['a past RFC 850 date', { 'Retry-After': 'Sunday, 06-Nov-94 08:49:37 GMT' }, 0],
  ['a past asctime date', { 'Retry-After': 'Sun Nov  6 08:49:37 1994' }, 0],
  [
    '31 Feb (rolled over by Date.UTC, so malformed)',
    { 'Retry-After': 'Wed, 31 Feb 2027 12:00:00 GMT' },
    undefined,
  ],
  ['29 Feb of a common year', { 'Retry-After': 'Mon, 29 Feb 2027 12:00:00 GMT' }, undefined],
  ['day 00', { 'Retry-After': 'Wed, 00 Dec 2026 12:00:00 GMT' }, undefined],
  ['hour 24', { 'Retry-After': 'Wed, 02 Dec 2026 24:00:00 GMT' }, undefined],
  ['minute 60', { 'Retry-After': 'Wed, 02 Dec 2026 12:60:00 GMT' }, undefined],
  ['second 61', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:61 GMT' }, undefined],
  ['lowercase gmt', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:30 gmt' }, undefined],
  ['lowercase utc', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:30 utc' }, undefined],
  [
    'RFC 850 with UTC (the lenient extra is in the IMF-fixdate form only)',
    { 'Retry-After': 'Wednesday, 02-Dec-26 12:00:30 UTC' },
    undefined,
  ],
  ['a numeric zone', { 'Retry-After': 'Wed, 02 Dec 2026 12:00:30 +0000' }, undefined],
  ['ISO 8601', { 'Retry-After': '2026-12-02T12:00:30Z' }, undefined],
  ['RFC 850 with a short day name', { 'Retry-After': 'Wed, 02-Dec-26 12:00:30 GMT' }, undefined],
  ['an unknown month', { 'Retry-After': 'Wed, 02 Dez 2026 12:00:30 GMT' }, undefined],
];

// RFC 9110 §5.6.7: an RFC 850 date that appears more than 50 years in the future is in the past century.
// Relative to NOW the boundary is Wed, 02 Dec 2076 12:00:00 GMT.
const twoDigitYears: Case[] = [
  ['RFC 850 "27": next year', { 'Retry-After': 'Thursday, 02-Dec-27 00:00:00 GMT' }, until(2027, 11, 2)],
  ['RFC 850 "25": last year, so 0', { 'Retry-After': 'Tuesday, 02-Dec-25 00:00:00 GMT' }, 0],
  [
    'RFC 850 "76", 1 Jan: 49.9 years ahead',
    { 'Retry-After': 'Wednesday, 01-Jan-76 00:00:00 GMT' },
    until(2076, 0, 1),
  ],
  [
    'RFC 850 "76", exactly 50 years ahead: still this century',
    { 'Retry-After': 'Wednesday, 02-Dec-76 12:00:00 GMT' },
    until(2076, 11, 2, 12),
  ],
  [
    'RFC 850 "76", 50 years and 1 s ahead: 1976, so 0',
    { 'Retry-After': 'Wednesday, 02-Dec-76 12:00:01 GMT' },
    0,
  ],
  [
    'RFC 850 "76", 31 Dec: more than 50 years ahead, so 1976',
    { 'Retry-After': 'Thursday, 31-Dec-76 00:00:00 GMT' },
    0,
  ],
  ['RFC 850 "77": 1977, so 0', { 'Retry-After': 'Friday, 01-Jan-77 00:00:00 GMT' }, 0],
];

const rateLimit: Case[] = [
  ['RateLimit r=0;t=30', { RateLimit: '"default";r=0;t=30' }, 30_000],
  ['RateLimit r=5;t=30: quota left, no wait', { RateLimit: '"default";r=5;t=30' }, undefined],
  ['RateLimit with a token policy name', { RateLimit: 'default;r=0;t=30' }, 30_000],
  ['RateLimit with spaces around parameters', { RateLimit: '"default"; r=0; t=30' }, 30_000],
  ['RateLimit r=0;t=0', { RateLimit: '"default";r=0;t=0' }, 0],
  [
    'RateLimit: two exhausted items, the longest wins',
    { RateLimit: '"burst";r=0;t=5, "day";r=0;t=60' },
    60_000,
  ],
  ['RateLimit: only the exhausted item counts', { RateLimit: '"burst";r=0;t=5, "day";r=100;t=3600' }, 5000],
  [
    'RateLimit: a non-exhausted item before an exhausted one',
    { RateLimit: '"burst";r=9;t=5, "day";r=0;t=60' },
    60_000,
  ],
  ['RateLimit with t=1.5 (not delay-seconds)', { RateLimit: '"default";r=0;t=1.5' }, undefined],
  ['RateLimit r=0 without t', { RateLimit: '"default";r=0' }, undefined],
  [
    'RateLimit without a policy item ("r=0;t=30" is not a Structured Field item)',
    { RateLimit: 'r=0;t=30' },
    undefined,
  ],
];

const resetHeaders: Case[] = [
  ['RateLimit-Reset as a delta', { 'RateLimit-Reset': '30' }, 30_000],
  [
    'RateLimit-Reset with RateLimit-Remaining 0',
    { 'RateLimit-Reset': '30', 'RateLimit-Remaining': '0' },
    30_000,
  ],
  [
    'RateLimit-Reset ignored when RateLimit-Remaining > 0',
    { 'RateLimit-Reset': '30', 'RateLimit-Remaining': '5' },
    undefined,
  ],
  ['X-RateLimit-Reset as epoch seconds', { 'X-RateLimit-Reset': String(NOW_S + 30) }, 30_000],
  ['X-RateLimit-Reset as past epoch seconds', { 'X-RateLimit-Reset': String(NOW_S - 30) }, 0],
  ['X-RateLimit-Reset as fractional epoch seconds', { 'X-RateLimit-Reset': `${NOW_S + 30}.5` }, 30_500],
  ['X-RateLimit-Reset at 2024-01-01 in epoch seconds: a timestamp', { 'X-RateLimit-Reset': '1704067200' }, 0],
  [
    'X-RateLimit-Reset 1 s below 2024-01-01: a delta',
    { 'X-RateLimit-Reset': '1704067199' },
    1_704_067_199_000,
  ],
  ['X-RateLimit-Reset as epoch ms', { 'X-RateLimit-Reset': String(NOW + 5000) }, 5000],
  [
    'X-RateLimit-Reset at 2024-01-01 in epoch ms: a past ms timestamp',
    { 'X-RateLimit-Reset': '1704067200000' },
    0,
  ],
  [
    'X-RateLimit-Reset 1 below 2024-01-01 in ms: epoch seconds',
    { 'X-RateLimit-Reset': '1704067199999' },
    1_704_067_199_999_000 - NOW,
  ],
  [
    'X-RateLimit-Reset with X-RateLimit-Remaining 0',
    { 'X-RateLimit-Reset': '30', 'X-RateLimit-Remaining': '0' },
    30_000,
  ],
  [
    'X-RateLimit-Reset ignored when X-RateLimit-Remaining > 0',
    { 'X-RateLimit-Reset': '30', 'X-RateLimit-Remaining': '12' },
    undefined,
  ],
  [
    'X-RateLimit-Reset with an unreadable Remaining counts',
    { 'X-RateLimit-Reset': '30', 'X-RateLimit-Remaining': 'n/a' },
    30_000,
  ],
  ['X-RateLimit-Reset as a duration string (6m0s) is ignored', { 'X-RateLimit-Reset': '6m0s' }, undefined],
  ['X-RateLimit-Reset as a fractional delta', { 'X-RateLimit-Reset': '2.5' }, 2500],
  ['X-Rate-Limit-Reset as a delta', { 'X-Rate-Limit-Reset': '45' }, 45_000],
  [
    'X-Rate-Limit-Reset ignored when X-Rate-Limit-Remaining > 0',
    { 'X-Rate-Limit-Reset': '45', 'X-Rate-Limit-Remaining': '1' },
    undefined,
  ],
];

// Symfony's rate limiter sends X-RateLimit-Retry-After (ky reads it too); read with the reset headers' rule.
const rateLimitRetryAfter: Case[] = [
  ['X-RateLimit-Retry-After as seconds from now', { 'X-RateLimit-Retry-After': '2' }, 2000],
  [
    'X-RateLimit-Retry-After as epoch seconds (Symfony sends a timestamp)',
    { 'X-RateLimit-Retry-After': String(NOW_S + 2) },
    2000,
  ],
  ['X-RateLimit-Retry-After in the past means now', { 'X-RateLimit-Retry-After': String(NOW_S - 5) }, 0],
  [
    'X-RateLimit-Retry-After is not cancelled by X-RateLimit-Remaining (it is an explicit retry-after)',
    { 'X-RateLimit-Retry-After': '2', 'X-RateLimit-Remaining': '3' },
    2000,
  ],
  ['X-RateLimit-Retry-After soon is malformed', { 'X-RateLimit-Retry-After': 'soon' }, undefined],
  ['X-RateLimit-Retry-After -1 is malformed', { 'X-RateLimit-Retry-After': '-1' }, undefined],
];

const milliseconds: Case[] = [
  ['retry-after-ms', { 'retry-after-ms': '1500' }, 1500],
  ['retry-after-ms with a fraction', { 'retry-after-ms': '1.5' }, 1.5],
  ['retry-after-ms -5', { 'retry-after-ms': '-5' }, undefined],
  ['retry-after-ms 1e3', { 'retry-after-ms': '1e3' }, undefined],
  ['x-ms-retry-after-ms', { 'x-ms-retry-after-ms': '250' }, 250],
];

const priority: Case[] = [
  [
    'Retry-After beats every other header',
    { 'Retry-After': '10', RateLimit: '"a";r=0;t=30', 'X-RateLimit-Reset': '40', 'retry-after-ms': '50' },
    10_000,
  ],
  ['Retry-After 0 still wins (0 is a value)', { 'Retry-After': '0', 'retry-after-ms': '700' }, 0],
  [
    'a malformed Retry-After falls through to RateLimit',
    { 'Retry-After': 'soon', RateLimit: '"a";r=0;t=30' },
    30_000,
  ],
  [
    'an empty Retry-After falls through to retry-after-ms',
    { 'Retry-After': '', 'retry-after-ms': '700' },
    700,
  ],
  ['RateLimit beats RateLimit-Reset', { RateLimit: '"a";r=0;t=30', 'RateLimit-Reset': '40' }, 30_000],
  [
    'a RateLimit with quota left falls through',
    { RateLimit: '"a";r=5;t=30', 'RateLimit-Reset': '40' },
    40_000,
  ],
  ['RateLimit-Reset beats X-RateLimit-Reset', { 'RateLimit-Reset': '40', 'X-RateLimit-Reset': '50' }, 40_000],
  [
    'RateLimit-Reset beats X-RateLimit-Retry-After',
    { 'RateLimit-Reset': '40', 'X-RateLimit-Retry-After': '2' },
    40_000,
  ],
  [
    'X-RateLimit-Retry-After beats X-RateLimit-Reset and retry-after-ms',
    { 'X-RateLimit-Retry-After': '2', 'X-RateLimit-Reset': '50', 'retry-after-ms': '700' },
    2000,
  ],
  [
    'a malformed X-RateLimit-Retry-After falls through to X-RateLimit-Reset',
    { 'X-RateLimit-Retry-After': 'soon', 'X-RateLimit-Reset': '50' },
    50_000,
  ],
  [
    'X-RateLimit-Reset beats X-Rate-Limit-Reset',
    { 'X-RateLimit-Reset': '50', 'X-Rate-Limit-Reset': '60' },
    50_000,
  ],
  [
    'a reset with quota left falls through to retry-after-ms',
    { 'X-RateLimit-Reset': '50', 'X-RateLimit-Remaining': '3', 'retry-after-ms': '700' },
    700,
  ],
  [
    'retry-after-ms beats x-ms-retry-after-ms',
    { 'retry-after-ms': '700', 'x-ms-retry-after-ms': '800' },
    700,
  ],
];

const containers: Case[] = [
  ['a lowercase name in a plain object', { 'retry-after': '7' }, 7000],
  ['an uppercase name in a plain object', { 'RETRY-AFTER': '7' }, 7000],
  ['a mixed-case name in a plain object', { 'rEtRy-AfTeR': '7' }, 7000],
  ['a fetch Headers', new Headers({ 'Retry-After': '7' }), 7000],
  [
    'a getter (called with lowercase names)',
    (name: string) => (name === 'retry-after' ? '7' : undefined),
    7000,
  ],
  ['any object with get() (a Map)', new Map([['retry-after', '7']]), 7000],
  ['a one-element array value', { 'retry-after': ['7'] }, 7000],
  ['a repeated header (array, joined as a list): the longest', { 'retry-after': ['7', '8'] }, 8000],
  ['an empty array value', { 'retry-after': [] }, undefined],
  ['a number value (Node IncomingHttpHeaders style)', { 'retry-after': 7 }, 7000],
  ['a null value', { 'retry-after': null }, undefined],
  // Found by the fault suite's fuzzing: String() throws on these; a malformed header is ignored instead.
  ['a value with no string form (null prototype)', { 'retry-after': Object.create(null) }, undefined],
  ['no headers at all (empty object)', {}, undefined],
  ['undefined headers', undefined, undefined],
  ['null headers', null, undefined],
];

/**
 * The timing headers of real rate limiters' 429s, captured on 127.0.0.1 from express-rate-limit 8.7.5
 * (`windowMs: 2000, limit: 3`, `legacyHeaders: true`) for each `standardHeaders` draft, and from
 * @fastify/rate-limit 11.2.0 (`max: 3, timeWindow: 2000`), default and `enableDraftSpec`. The fault suite's
 * rate-limiters test runs the same servers live.
 */
const LEGACY = {
  'x-ratelimit-limit': '3',
  'x-ratelimit-remaining': '0',
  'x-ratelimit-reset': String(NOW_S + 2),
};
const REAL_429S: ReadonlyArray<readonly [string, Record<string, string>, Record<string, string>]> = [
  [
    'express-rate-limit draft-6',
    { 'retry-after': '2', ...LEGACY },
    {
      'ratelimit-policy': '3;w=2',
      'ratelimit-limit': '3',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '2',
    },
  ],
  [
    'express-rate-limit draft-7',
    { 'retry-after': '2', ...LEGACY },
    { 'ratelimit-policy': '3;w=2', ratelimit: 'limit=3, remaining=0, reset=2' },
  ],
  [
    'express-rate-limit draft-8',
    { 'retry-after': '2', ...LEGACY },
    {
      'ratelimit-policy': '"3-in-2sec"; q=3; w=2; pk=:MTJjYTE3YjQ5YWYy:',
      ratelimit: '"3-in-2sec"; r=0; t=2',
    },
  ],
  [
    '@fastify/rate-limit',
    { 'retry-after': '2' },
    { 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' },
  ],
  [
    '@fastify/rate-limit enableDraftSpec',
    { 'retry-after': '2' },
    { 'ratelimit-limit': '3', 'ratelimit-remaining': '0', 'ratelimit-reset': '2' },
  ],
];

describe('every draft of the RateLimit fields, as real servers send them', () => {
  it.each(REAL_429S)('%s: the whole 429 asks for 2 s', (_server, others, fields) => {
    expect(parseRetryAfter({ ...others, ...fields }, NOW)).toBe(2000);
  });

  it.each(REAL_429S)('%s: its rate-limit fields alone ask for 2 s', (_server, _others, fields) => {
    expect(parseRetryAfter(fields, NOW)).toBe(2000);
  });

  it.each([
    ['draft-6', { 'ratelimit-limit': '3', 'ratelimit-remaining': '2', 'ratelimit-reset': '2' }],
    ['draft-7', { ratelimit: 'limit=3, remaining=2, reset=2' }],
    ['draft-8', { ratelimit: '"3-in-2sec"; r=2; t=2' }],
  ])('%s with quota left asks for no wait', (_draft, fields) => {
    expect(parseRetryAfter(fields, NOW)).toBeUndefined();
  });

  it.each([
    ['draft-7 with a fractional reset', { ratelimit: 'limit=3, remaining=0, reset=1.5' }],
    ['draft-7 without reset', { ratelimit: 'limit=3, remaining=0' }],
    ['draft-7 without remaining', { ratelimit: 'limit=3, reset=2' }],
    ['draft-7 with a negative reset', { ratelimit: 'limit=3, remaining=0, reset=-2' }],
  ])('malformed %s is ignored', (_label, fields) => {
    expect(parseRetryAfter(fields, NOW)).toBeUndefined();
  });
});

describe('parseRetryAfter: a table of header cases at a fixed now', () => {
  const all = [
    ...retryAfterSeconds,
    ...retryAfterDates,
    ...twoDigitYears,
    ...rateLimit,
    ...resetHeaders,
    ...rateLimitRetryAfter,
    ...milliseconds,
    ...priority,
    ...containers,
  ];

  it('has at least 40 cases', () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
  });

  it.each(all)('%s', (_label, headers, expected) => {
    expect(parseRetryAfter(headers, NOW)).toBe(expected);
  });
});

describe('parseHttpDate', () => {
  it('returns ms since the epoch for all three forms of the same instant', () => {
    const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(expected);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(expected);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toBe(expected);
  });

  it('reads an RFC 850 year relative to the given now, not the wall clock', () => {
    // "79" is 49 years ahead of mid-2030 (so 2079), but 52 years ahead of NOW (so 1979).
    const mid2030 = Date.UTC(2030, 5, 1);
    expect(parseHttpDate('Saturday, 01-Jul-79 00:00:00 GMT', mid2030)).toBe(Date.UTC(2079, 6, 1));
    expect(parseHttpDate('Saturday, 01-Jul-79 00:00:00 GMT', NOW)).toBe(Date.UTC(1979, 6, 1));
  });

  it('reads an RFC 850 year in the next century when the clock is late in this one', () => {
    // In mid-2099, "00" is 2100 (within 50 years), not 2000 (99 years back).
    expect(parseHttpDate('Friday, 01-Jan-00 00:00:00 GMT', Date.UTC(2099, 5, 1))).toBe(Date.UTC(2100, 0, 1));
  });

  it('validates an RFC 850 date in the century it lands in', () => {
    // 29 Feb "00": 2000 was a leap year (valid from 2026); 2100 is not (malformed from 2099).
    expect(parseHttpDate('Tuesday, 29-Feb-00 00:00:00 GMT', NOW)).toBe(Date.UTC(2000, 1, 29));
    expect(parseHttpDate('Monday, 29-Feb-00 00:00:00 GMT', Date.UTC(2099, 5, 1))).toBeUndefined();
  });

  it('returns undefined for anything that is not one of the three forms', () => {
    expect(parseHttpDate('', NOW)).toBeUndefined();
    expect(parseHttpDate('12', NOW)).toBeUndefined();
    expect(parseHttpDate(' Wed, 02 Dec 2026 12:00:30 GMT', NOW)).toBeUndefined();
  });
});

describe('parseRetryAfter properties', () => {
  const names = [
    'retry-after',
    'ratelimit',
    'ratelimit-reset',
    'ratelimit-remaining',
    'x-ratelimit-reset',
    'x-ratelimit-remaining',
    'x-rate-limit-reset',
    'x-rate-limit-remaining',
    'retry-after-ms',
    'x-ms-retry-after-ms',
  ] as const;
  const value = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.stringMatching(/^[0-9.;=, rt"x-]{0,24}$/),
    fc.bigInt({ min: 0n, max: 10n ** 400n }).map(String),
    fc.double().map(String),
    fc.date({ noInvalidDate: true }).map((date) => date.toUTCString()),
  );
  const headers = fc.record(Object.fromEntries(names.map((name) => [name, value])), { requiredKeys: [] });
  const now = fc.integer({ min: 0, max: 8.64e15 });

  it('for arbitrary strings in every header: undefined or a finite number >= 0, never NaN', () => {
    fc.assert(
      fc.property(headers, now, (given, at) => {
        const ms = parseRetryAfter(given, at);
        if (ms !== undefined) {
          expect(Number.isFinite(ms)).toBe(true);
          expect(ms).toBeGreaterThanOrEqual(0);
          expect(ms).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
        }
      }),
    );
  });

  it('delay-seconds round-trips for any non-negative integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Math.floor(Number.MAX_SAFE_INTEGER / 1000) }), (seconds) => {
        expect(parseRetryAfter({ 'Retry-After': String(seconds) }, NOW)).toBe(seconds * 1000);
      }),
    );
  });

  it('an IMF-fixdate round-trips: the wait is the time until it, or 0 when it is past', () => {
    const date = fc
      .integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(9999, 11, 31) })
      .map((ms) => ms - (ms % 1000));
    fc.assert(
      fc.property(date, now, (at, clock) => {
        const value = new Date(at).toUTCString();
        expect(parseRetryAfter({ 'Retry-After': value }, clock)).toBe(Math.max(0, at - clock));
      }),
    );
  });
});

describe('parseRateQuota: what a response says of its quota, for the pacer', () => {
  const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);

  it('draft-8: the spent item binds, with its named policy, among several', () => {
    const quota = parseRateQuota(
      {
        RateLimit: '"burst";r=5;t=30, "second";r=0;t=2',
        'RateLimit-Policy': '"burst";q=100;w=60, "second";q=20;w=1',
      },
      NOW,
    );
    expect(quota).toEqual({ remaining: 0, reset: 2000, interval: 50 });
  });

  it('draft-8 with quota left: the item with the least left binds, and its policy gives the rate', () => {
    const quota = parseRateQuota(
      { RateLimit: '"a";r=50;t=60, "b";r=3;t=1', 'RateLimit-Policy': '"a";q=100;w=60, "b";q=4;w=1' },
      NOW,
    );
    expect(quota).toEqual({ remaining: 3, reset: 1000, interval: 250 });
  });

  it('draft-7: the dictionary, and the policy whose quota is the limit', () => {
    const quota = parseRateQuota(
      { RateLimit: 'limit=10, remaining=0, reset=3', 'RateLimit-Policy': '100;w=60, 10;w=1' },
      NOW,
    );
    expect(quota).toEqual({ remaining: 0, reset: 3000, interval: 100 });
  });

  it('draft-6: separate fields', () => {
    const headers = {
      'RateLimit-Limit': '20',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '1',
      'RateLimit-Policy': '20;w=1',
    };
    expect(parseRateQuota(headers, NOW)).toEqual({ remaining: 0, reset: 1000, interval: 50 });
  });

  it('X-RateLimit: an epoch reset, and the limit spread over the time left (no window stated)', () => {
    const reset = String((NOW + 4000) / 1000);
    const headers = { 'X-RateLimit-Limit': '8', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset };
    expect(parseRateQuota(headers, NOW)).toEqual({ remaining: 0, reset: 4000, interval: 500 });
  });

  it('a count and a reset without a limit or a policy still say the quota is spent', () => {
    expect(parseRateQuota({ 'RateLimit-Remaining': '0', 'RateLimit-Reset': '3' }, NOW)).toEqual({
      remaining: 0,
      reset: 3000,
      interval: undefined,
    });
    const reset = String(NOW / 1000 + 5);
    expect(parseRateQuota({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset }, NOW)).toEqual({
      remaining: 0,
      reset: 5000,
      interval: undefined,
    });
  });

  it('malformed fields are ignored; no field is no quota; a value too large stays finite', () => {
    expect(parseRateQuota({ RateLimit: '"a";r=x;t=soon', 'RateLimit-Policy': '"a";q=x;w=1' }, NOW)).toEqual({
      remaining: undefined,
      reset: undefined,
      interval: undefined,
    });
    expect(parseRateQuota({ 'Content-Type': 'text/plain' }, NOW)).toBeUndefined();
    const huge = `1${'0'.repeat(400)}`;
    expect(
      parseRateQuota({ RateLimit: `"a";r=0;t=${huge}`, 'RateLimit-Policy': `"a";q=1;w=${huge}` }, NOW),
    ).toEqual({ remaining: 0, reset: 2 ** 53 - 1, interval: 2 ** 53 - 1 });
  });
});
