import { type HeadersLike, headerGetter } from './headers.js';
import { parseHttpDate } from './http-date.js';

// Legacy reset headers have no standard: GitHub sends epoch seconds, others seconds remaining. As ky 2.1 does,
// a value at or above 2024-01-01T00:00:00Z in epoch seconds is a timestamp, below it a delta. Values at or above
// the same instant in epoch milliseconds are millisecond timestamps.
const EPOCH_SECONDS_2024 = 1_704_067_200;
const EPOCH_MS_2024 = EPOCH_SECONDS_2024 * 1000;

const DIGITS = /^\d+$/;
const DECIMAL = /^\d+(?:\.\d+)?$/;

// A list member that is one word: the day name of an IMF-fixdate or RFC 850 date, cut off by the date's own comma.
const DAY_NAME = /^\s*[A-Za-z]+\s*$/;

/** One Retry-After value: `delay-seconds` (1*DIGIT, nothing else) or an HTTP-date. A past date means "now". */
function retryAfterValue(value: string, now: number): number | undefined {
  if (DIGITS.test(value)) return Number(value) * 1000;
  const date = parseHttpDate(value, now);
  return date === undefined ? undefined : Math.max(0, date - now);
}

/**
 * Retry-After. The header is a single value, but a repeated header reaches fetch joined as a list ("1, 120", or
 * "2, Wed, 21 Oct 2026 07:28:00 GMT" from a seconds line and a date line): when every member is valid, the longest
 * wins, so no wait is ever shorter than a value the server sent. One malformed member makes the whole header
 * malformed (ignored). The list is split at every comma, and a lone day name is joined again with the rest of its
 * date, so seconds and dates may come in any order.
 */
function retryAfter(value: string, now: number): number | undefined {
  const single = retryAfterValue(value, now);
  if (single !== undefined || !value.includes(',')) return single;
  const parts = value.split(',');
  let longest: number | undefined;
  for (let i = 0; i < parts.length; i++) {
    let member = parts[i] as string;
    if (DAY_NAME.test(member) && i + 1 < parts.length) member = `${member},${parts[++i]}`;
    const ms = retryAfterValue(member.trim(), now);
    if (ms === undefined) return undefined;
    longest = Math.max(longest ?? 0, ms);
  }
  return longest;
}

/** The wait an exhausted quota asks for: `reset` seconds when `remaining` is 0, else none. */
function exhausted(remaining: string | undefined, reset: string | undefined): number | undefined {
  return remaining === '0' && reset !== undefined && DIGITS.test(reset) ? Number(reset) * 1000 : undefined;
}

/**
 * RateLimit (draft-ietf-httpapi-ratelimit-headers), in the two shapes servers send:
 * - draft-8 and later: a list of `"policy";r=remaining;t=seconds` items (express-rate-limit `draft-8`:
 *   `"3-in-2sec"; r=0; t=2`); with several exhausted items, the longest wait wins;
 * - draft-7: one dictionary `limit=3, remaining=0, reset=2` (express-rate-limit `draft-7`).
 * Only an exhausted quota (remaining 0) asks for a wait. Malformed items are ignored.
 */
function rateLimit(value: string): number | undefined {
  let wait: number | undefined;
  // draft-7's dictionary members, collected across the list.
  let remaining: string | undefined;
  let reset: string | undefined;
  for (const item of value.split(',')) {
    const parts = item.split(';');
    if (parts.length === 1) {
      const eq = item.indexOf('=');
      const key = item.slice(0, eq).trim().toLowerCase();
      if (key === 'remaining') remaining = item.slice(eq + 1).trim();
      else if (key === 'reset') reset = item.slice(eq + 1).trim();
      continue;
    }
    const params = new Map<string, string>();
    for (const part of parts.slice(1)) {
      const eq = part.indexOf('=');
      if (eq > 0) params.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
    const ms = exhausted(params.get('r'), params.get('t'));
    if (ms !== undefined) wait = Math.max(wait ?? 0, ms);
  }
  const dictionary = exhausted(remaining, reset);
  return dictionary === undefined ? wait : Math.max(wait ?? 0, dictionary);
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
 * with `r=0`, or draft-7's `reset` with `remaining=0`), RateLimit-Reset (draft-6's separate fields),
 * X-RateLimit-Reset / X-Rate-Limit-Reset, retry-after-ms / x-ms-retry-after-ms.
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
