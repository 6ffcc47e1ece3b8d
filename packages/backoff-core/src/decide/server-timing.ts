import { type HeadersLike, headerGetter } from '../http/headers.js';
import { parseHttpDate } from '../http/http-date.js';

// Legacy reset headers have no standard: GitHub sends epoch seconds, others seconds remaining. As ky 2.1 does,
// a value at or above 2024-01-01T00:00:00Z in epoch seconds is a timestamp, below it a delta. Values at or above
// the same instant in epoch milliseconds are millisecond timestamps.
const EPOCH_SECONDS_2024 = 1_704_067_200;
const EPOCH_MS_2024 = EPOCH_SECONDS_2024 * 1000;

const DIGITS = /^\d+$/;
const DECIMAL = /^\d+(?:\.\d+)?$/;

// A list member that is one word: the day name of an IMF-fixdate or RFC 850 date, cut off by the date's own comma.
const DAY_NAME = /^\s*[A-Za-z]+\s*$/;

/** The longer of two waits, where `undefined` is none. */
const longest = (a: number | undefined, b: number | undefined) => (b === undefined ? a : Math.max(a ?? 0, b));

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
  let wait: number | undefined;
  for (let i = 0; i < parts.length; i++) {
    let member = parts[i] as string;
    if (DAY_NAME.test(member) && i + 1 < parts.length) member = `${member},${parts[++i]}`;
    const ms = retryAfterValue(member.trim(), now);
    if (ms === undefined) return undefined;
    wait = longest(wait, ms);
  }
  return wait;
}

/** The wait an exhausted quota asks for: `reset` seconds when `remaining` is 0, else none. */
function exhausted(remaining: string | undefined, reset: string | undefined): number | undefined {
  return remaining === '0' && reset !== undefined && DIGITS.test(reset) ? Number(reset) * 1000 : undefined;
}

/**
 * RateLimit (draft-ietf-httpapi-ratelimit-headers), in the two shapes servers send:
 * - draft-8 and later: a list of `"policy";r=remaining;t=seconds` items (express-rate-limit `draft-8`:
 *   `"3-in-2sec"; r=0; t=2`); with several exhausted items, the longest wait wins;
 * - draft-7: one dictionary `limit=3, remaining=0, reset=2` (express-rate-limit `draft-7`): its members are the
 *   items without parameters, and their keys are matched in any case.
 * Only an exhausted quota (remaining 0) asks for a wait. Malformed items are ignored.
 */
function rateLimit(value: string): number | undefined {
  let wait: number | undefined;
  const dictionary: Record<string, string> = {};
  for (const item of value.split(',')) {
    const [member, ...parts] = item.split(';');
    const params: Record<string, string> = {};
    for (const part of parts.length > 0 ? parts : [member as string]) {
      const eq = part.indexOf('=');
      if (eq > 0) params[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
    }
    if (parts.length > 0) wait = longest(wait, exhausted(params.r, params.t));
    else for (const key in params) dictionary[key.toLowerCase()] = params[key] as string;
  }
  return longest(wait, exhausted(dictionary.remaining, dictionary.reset));
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
 * The delay the server asked for, in ms, read from (in priority order): Retry-After, RateLimit (`t` of an item
 * with `r=0`, or draft-7's `reset` with `remaining=0`), RateLimit-Reset (draft-6's separate fields),
 * X-RateLimit-Retry-After, X-RateLimit-Reset / X-Rate-Limit-Reset, retry-after-ms / x-ms-retry-after-ms.
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
  /**
   * `parse` applied to a present header. A value too large to represent (hundreds of digits) becomes the largest
   * safe integer (2 ** 53 - 1), so it still means "longer than any
   * maxRetryAfter" rather than "no header".
   */
  const read = (name: string, parse: (value: string) => number | undefined): number | undefined => {
    const value = get(name)?.trim();
    const ms = value ? parse(value) : undefined;
    return (ms as number) >= 0 ? Math.min(ms as number, 2 ** 53 - 1) : undefined;
  };
  // A reset header counts only when its quota is spent or unknown: `remaining > 0` means "not throttled".
  const reset = (prefix: string) =>
    read(`${prefix}remaining`, (v) => (DECIMAL.test(v) ? Number(v) : undefined))
      ? undefined
      : read(`${prefix}reset`, (v) => resetHeader(v, now));
  const milliseconds = (name: string) => read(name, (v) => (DECIMAL.test(v) ? Number(v) : undefined));

  // Read lazily: most responses carry Retry-After or nothing, so the later headers are rarely looked at.
  return (
    read('retry-after', (v) => retryAfter(v, now)) ??
    read('ratelimit', rateLimit) ??
    reset('ratelimit-') ??
    // Symfony's rate limiter: an explicit "retry after", so no `-Remaining` header can cancel it.
    read('x-ratelimit-retry-after', (v) => resetHeader(v, now)) ??
    reset('x-ratelimit-') ??
    reset('x-rate-limit-') ??
    milliseconds('retry-after-ms') ??
    milliseconds('x-ms-retry-after-ms')
  );
}

/**
 * What a response says of its key's quota, for a client that paces itself: the quota that binds (the one with
 * the least left) and the rate the server allows.
 */
export interface RateQuota {
  /** Requests the binding quota has left (0: spent), when the response counts them. */
  readonly remaining: number | undefined;
  /** Ms until the binding quota resets, when the response says. */
  readonly reset: number | undefined;
  /** Ms between sends at the server's stated rate (window / quota), when it states one. */
  readonly interval: number | undefined;
}

/** One quota a response counts: its policy's name (draft-8 items only), what is left, and when it resets (ms). */
interface Counted {
  readonly name: string | undefined;
  readonly remaining: number;
  readonly reset: number | undefined;
}

/** A quota policy list (`RateLimit-Policy`): each item's name (`"name"` or none) and its ms per request. */
function policies(value: string | undefined): Map<string, number> {
  const found = new Map<string, number>();
  for (const item of value?.split(',') ?? []) {
    const [member = '', ...parts] = item.split(';').map((part) => part.trim());
    const params: Record<string, string> = {};
    for (const part of parts) {
      const eq = part.indexOf('=');
      if (eq > 0) params[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim();
    }
    // draft-8: `"name";q=20;w=1`; drafts 6 and 7: `20;w=1` (the quota is the item itself).
    const quota = params.q ?? (DIGITS.test(member) ? member : undefined);
    const window = params.w;
    if (quota === undefined || !DIGITS.test(quota) || window === undefined || !DECIMAL.test(window)) continue;
    if (Number(quota) > 0)
      found.set(
        member.startsWith('"') ? member.slice(1, -1) : member,
        (Number(window) * 1000) / Number(quota),
      );
  }
  return found;
}

/**
 * The quota a response reports, for a client that paces itself: the RateLimit fields (draft-8 items with
 * `RateLimit-Policy` `q`/`w`, matched by policy name; draft-7's dictionary; draft-6's separate fields) and the
 * `X-RateLimit-*` family (a reset as `parseRetryAfter` reads it). Of several quotas counted, the one with the
 * least left binds (of those, the latest reset). A count with a reset teaches the pace with or without a limit
 * or a policy. Retry-After is not read here: the core already has it. `undefined` when the response says
 * nothing of a quota. Malformed fields are ignored.
 */
export function parseRateQuota(headers: HeadersLike | undefined | null, now: number): RateQuota | undefined {
  const get = headerGetter(headers);
  const field = get('ratelimit');
  const policy = get('ratelimit-policy');
  let limit: string | undefined;
  const counted: Counted[] = [];
  const count = (name: string | undefined, remaining: string | undefined, reset: number | undefined) => {
    if (remaining !== undefined && DIGITS.test(remaining))
      counted.push({ name, remaining: Number(remaining), reset });
  };
  const seconds = (value: string | undefined) =>
    value !== undefined && DIGITS.test(value) ? Number(value) * 1000 : undefined;
  if (field !== undefined) {
    const dictionary: Record<string, string> = {};
    for (const item of field.split(',')) {
      const [member = '', ...parts] = item.split(';').map((part) => part.trim());
      const params: Record<string, string> = {};
      for (const part of parts.length > 0 ? parts : [member]) {
        const eq = part.indexOf('=');
        if (eq > 0) params[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim();
      }
      if (parts.length === 0) Object.assign(dictionary, params);
      else count(member.startsWith('"') ? member.slice(1, -1) : member, params.r, seconds(params.t));
    }
    count(undefined, dictionary.remaining, seconds(dictionary.reset));
    limit = dictionary.limit;
  }
  for (const prefix of ['ratelimit-', 'x-ratelimit-', 'x-rate-limit-']) {
    const reset = get(`${prefix}reset`)?.trim();
    count(
      undefined,
      get(`${prefix}remaining`)?.trim(),
      reset === undefined ? undefined : resetHeader(reset, now),
    );
    limit ??= get(`${prefix}limit`)?.trim();
  }
  if (field === undefined && policy === undefined && limit === undefined && counted.length === 0)
    return undefined;
  let remaining: number | undefined;
  let reset: number | undefined;
  for (const quota of counted) {
    if (remaining === undefined || quota.remaining < remaining) {
      remaining = quota.remaining;
      reset = quota.reset;
    } else if (quota.remaining === remaining) reset = longest(reset, quota.reset);
  }
  const stated = policies(policy);
  // The binding policies' rate (the slowest of them); else the one whose quota is the reported limit, else the
  // fastest stated (a 429 corrects a guess too fast; one too slow would waste the quota).
  let interval: number | undefined;
  for (const quota of counted) {
    if (quota.remaining === remaining && quota.name !== undefined)
      interval = longest(interval, stated.get(quota.name));
  }
  if (interval === undefined && limit !== undefined && DIGITS.test(limit)) interval = stated.get(limit);
  if (interval === undefined && stated.size > 0) interval = Math.min(...stated.values());
  // No window stated (the X-RateLimit family): the limit spread over the time left, at least a second.
  if (interval === undefined && reset !== undefined && limit !== undefined && Number(limit) > 0)
    interval = Math.max(reset, 1000) / Number(limit);
  const far = 2 ** 53 - 1;
  return {
    remaining,
    reset: reset === undefined ? undefined : Math.min(reset, far),
    interval: interval === undefined ? undefined : Math.min(interval, far),
  };
}
