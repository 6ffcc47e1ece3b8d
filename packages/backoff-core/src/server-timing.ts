import { type HeadersLike, headerGetter } from './headers.js';
import { parseHttpDate } from './http-date.js';

// Legacy reset headers have no standard: GitHub sends epoch seconds, others seconds remaining. As ky 2.1 does,
// a value at or above 2024-01-01T00:00:00Z in epoch seconds is a timestamp, below it a delta. Values at or above
// the same instant in epoch milliseconds are millisecond timestamps.
const EPOCH_SECONDS_2024 = 1_704_067_200;
const EPOCH_MS_2024 = EPOCH_SECONDS_2024 * 1000;

const DIGITS = /^\d+$/;
const DECIMAL = /^\d+(?:\.\d+)?$/;

// Where a list of HTTP-dates splits: the comma before a day name (IMF-fixdate has a comma of its own).
const DATE_LIST_SPLIT = /,\s*(?=(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun))/;

/** One Retry-After value: `delay-seconds` (1*DIGIT, nothing else) or an HTTP-date. A past date means "now". */
function retryAfterValue(value: string, now: number): number | undefined {
  if (DIGITS.test(value)) return Number(value) * 1000;
  const date = parseHttpDate(value, now);
  return date === undefined ? undefined : Math.max(0, date - now);
}

/**
 * Retry-After. The header is a single value, but a repeated header reaches fetch joined as a list ("1, 120"):
 * when every member is valid, the longest wins, so no wait is ever shorter than a value the server sent. One
 * malformed member makes the whole header malformed (ignored).
 */
function retryAfter(value: string, now: number): number | undefined {
  const single = retryAfterValue(value, now);
  if (single !== undefined || !value.includes(',')) return single;
  const members = /^\d/.test(value) ? value.split(',') : value.split(DATE_LIST_SPLIT);
  let longest: number | undefined;
  for (const member of members) {
    const ms = retryAfterValue(member.trim(), now);
    if (ms === undefined) return undefined;
    longest = Math.max(longest ?? 0, ms);
  }
  return longest;
}

/**
 * RateLimit (draft-ietf-httpapi-ratelimit-headers): a list of `"policy";r=remaining;t=seconds` items. Only an
 * exhausted item (`r=0`) asks for a wait; with several, the longest wait wins. Malformed items are ignored.
 */
function rateLimit(value: string): number | undefined {
  let wait: number | undefined;
  for (const item of value.split(',')) {
    const params = new Map<string, string>();
    for (const part of item.split(';').slice(1)) {
      const eq = part.indexOf('=');
      if (eq > 0) params.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    const r = params.get('r');
    const t = params.get('t');
    if (r === '0' && t !== undefined && DIGITS.test(t)) wait = Math.max(wait ?? 0, Number(t) * 1000);
  }
  return wait;
}

/** A legacy reset header: epoch seconds, epoch ms, or seconds from now (see the rule above). */
function resetHeader(value: string, now: number): number | undefined {
  if (!DECIMAL.test(value)) return undefined;
  const n = Number(value);
  if (n >= EPOCH_MS_2024) return Math.max(0, n - now);
  if (n >= EPOCH_SECONDS_2024) return Math.max(0, n * 1000 - now);
  return n * 1000;
}

/**
 * Applies `parse` to a present header. A value too large to represent (hundreds of digits) becomes the largest
 * safe integer, so it still means "longer than any maxRetryAfter" rather than "no header".
 */
function parseWith(
  value: string | undefined,
  parse: (value: string) => number | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const ms = parse(value);
  return ms === undefined || Number.isNaN(ms) ? undefined : Math.min(ms, Number.MAX_SAFE_INTEGER);
}

function milliseconds(value: string): number | undefined {
  return DECIMAL.test(value) ? Number(value) : undefined;
}

/** A reset header counts only when its quota is spent or unknown: `remaining > 0` means "not throttled". */
function spent(remaining: string | undefined): boolean {
  return remaining === undefined || !DECIMAL.test(remaining) || Number(remaining) === 0;
}

/**
 * The delay the server asked for, in ms, read from (in priority order): Retry-After, RateLimit (`t` of an item
 * with `r=0`), RateLimit-Reset, X-RateLimit-Reset / X-Rate-Limit-Reset, retry-after-ms / x-ms-retry-after-ms.
 * A malformed header is ignored (the next one is tried). A reset header is ignored when its matching
 * `*-Remaining` header says quota is left.
 *
 * @param headers a `Headers`, a plain object with keys in any case, or a getter.
 * @param now the current time in ms since the epoch (HTTP-dates and epoch resets are relative to it).
 * @returns ms >= 0, or `undefined` when no header gives a usable delay. Never NaN, never negative.
 */
export function parseRetryAfter(
  headers: HeadersLike | undefined | null,
  now: number = Date.now(),
): number | undefined {
  const get = headerGetter(headers);
  const read = (name: string) => get(name)?.trim() || undefined;
  const reset = (name: string, remaining: string) =>
    spent(read(remaining)) ? parseWith(read(name), (v) => resetHeader(v, now)) : undefined;

  // Read lazily: most responses carry Retry-After or nothing, so the later headers are rarely looked at.
  return (
    parseWith(read('retry-after'), (v) => retryAfter(v, now)) ??
    parseWith(read('ratelimit'), rateLimit) ??
    reset('ratelimit-reset', 'ratelimit-remaining') ??
    reset('x-ratelimit-reset', 'x-ratelimit-remaining') ??
    reset('x-rate-limit-reset', 'x-rate-limit-remaining') ??
    parseWith(read('retry-after-ms'), milliseconds) ??
    parseWith(read('x-ms-retry-after-ms'), milliseconds)
  );
}
