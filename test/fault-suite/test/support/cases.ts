import type { SuiteRequest } from '@backoff/test-utils';
import type { BackoffOptions } from 'backoff-core';
import type { FaultDriver, Step, Transport } from '../../src/index.ts';

/** The virtual clock's start: HTTP-dates in the cases are written against it. */
export const START = Date.UTC(2026, 11, 2, 12, 0, 0);

/** How a call must end, for one client. */
export interface Expected {
  /** Requests the server must have seen on the case's path. */
  readonly hits: number;
  /** Attempts on the call's result (refused connections count here but never reach the server). */
  readonly attempts: number;
  /** Every backoff wait, exact (random is fixed at 0.5), as `onRetry` reports it. */
  readonly waits: readonly number[];
  /**
   * `ok`: a 2xx with its whole body. `http`: a final non-2xx (`status`), rejected by axios/ky, resolved by fetch.
   * `network` / `timeout`: the client's own error of that kind. `body`: the call resolved, then reading the body
   * failed with fetch's own TypeError (clients that hand the body to the caller).
   */
  readonly outcome: 'ok' | 'http' | 'network' | 'timeout' | 'body';
  readonly status?: number;
  readonly reason: string;
  readonly serverDelay?: number;
  /** The reason of every retry, in order, when the case names them. */
  readonly retryReasons?: readonly string[];
}

/** One fault, run against every client. */
export interface FaultCase {
  readonly name: string;
  readonly steps: readonly Step[];
  readonly request?: Omit<SuiteRequest, 'path'>;
  readonly options?: BackoffOptions;
  readonly transport?: Transport;
  /**
   * `refuse`: the server is down (its port closed) when the call starts and comes back, on the same port, when
   * the `recoverAt`-th wait starts. `keep-alive`: a first request leaves a kept-alive socket for the call to reuse.
   */
  readonly flow?: { readonly kind: 'refuse'; readonly recoverAt: number } | { readonly kind: 'keep-alive' };
  readonly expect: (driver: FaultDriver) => Expected;
}

const STALL_TIMEOUT = { timeout: 250 } as const;
const POST = { method: 'POST', json: { order: 1 } } as const;
/** A POST that carries its own key: retried, and every attempt must send the same one. */
const KEYED_POST = {
  method: 'POST',
  json: { order: 1 },
  headers: { 'Idempotency-Key': '"order-1"' },
} as const;

const ok = (hits: number, waits: readonly number[], attempts = hits): Expected => ({
  hits,
  attempts,
  waits,
  outcome: 'ok',
  reason: 'success',
});
const failed = (
  outcome: Expected['outcome'],
  hits: number,
  reason: string,
  waits: readonly number[] = [],
  extra: Partial<Expected> = {},
): Expected => ({ hits, attempts: hits, waits, outcome, reason, ...extra });

/**
 * A body cut after the headers: a failed attempt where the client reads the body itself (axios), retried like a
 * reset; where the body is the caller's (fetch, ky), the call has already resolved with the 200 and it is the
 * caller's read that fails. Never a second attempt for those: the caller holds the stream.
 */
const bodyCut = (driver: FaultDriver): Expected =>
  driver.bodyInAttempt ? ok(2, [500]) : failed('body', 1, 'success');

/**
 * A Retry-After the core must ignore as malformed: on a 429 there is then no server delay, so the throttling
 * backoff applies (500 + 0.5 x 500 ms at random 0.5: equal jitter from a 1 s base).
 */
const ignored = (): Expected => ok(2, [750]);

const hostile = (
  name: string,
  value: string | readonly string[],
  expect: FaultCase['expect'],
): FaultCase => ({
  name: `429 with Retry-After ${name}`,
  steps: [{ kind: 'respond', status: 429, headers: { 'retry-after': value } }, 200],
  expect,
});

const YEAR_9999 = 'Fri, 31 Dec 9999 23:59:59 GMT';

export const CASES: readonly FaultCase[] = [
  // Resets and broken bodies.
  { name: 'reset before the response (GET)', steps: ['reset', 200], expect: () => ok(2, [500]) },
  {
    name: 'reset on every attempt (GET): the last reset, after retries',
    steps: ['reset'],
    options: { retries: 2 },
    expect: () => failed('network', 3, 'retries-exhausted', [500, 1000]),
  },
  {
    name: 'reset before the response (POST without a key): sent once',
    steps: ['reset', 200],
    request: POST,
    // The request was sent (the server read it): a reset proves nothing, so it is never repeated.
    expect: () => failed('network', 1, 'method-not-idempotent'),
  },
  {
    name: 'reset before the response (POST with a key): retried with the same key',
    steps: ['reset', 'reset', 201],
    request: KEYED_POST,
    expect: () => ok(3, [500, 1000]),
  },
  {
    name: "reset before the response (POST, idempotencyKey 'auto')",
    steps: ['reset', 201],
    request: POST,
    options: { idempotencyKey: 'auto' },
    expect: () => ok(2, [500]),
  },
  { name: 'reset mid-body (a 200 cut short)', steps: ['cut-body', 200], expect: bodyCut },
  { name: 'close after the headers (a 200 with no body)', steps: ['headers-only', 200], expect: bodyCut },
  {
    name: 'reset mid-body of a 503: the status decides, for every client',
    steps: [{ kind: 'cut-body', status: 503 }, 200],
    expect: () => ok(2, [500]),
  },
  {
    name: 'close after the headers (POST without a key): sent once',
    steps: ['headers-only', 200],
    request: POST,
    expect: (driver) =>
      driver.bodyInAttempt ? failed('network', 1, 'method-not-idempotent') : failed('body', 1, 'success'),
  },

  // Refused connections: the server is down, then listens again on the same port.
  {
    name: 'refused twice, then back on the same port',
    steps: [200],
    flow: { kind: 'refuse', recoverAt: 2 },
    expect: () => ok(1, [500, 1000], 3),
  },
  // A refused connection proves nothing was sent, so even a keyless POST is retried; the server applies it
  // exactly once (the suite checks that no keyless POST reaches it twice).
  {
    name: 'refused (POST without a key), then back: retried, applied exactly once',
    steps: [201],
    request: POST,
    flow: { kind: 'refuse', recoverAt: 1 },
    expect: () => ({ ...ok(1, [500], 2), retryReasons: ['not-sent'] }),
  },
  {
    name: 'refused on every attempt (POST without a key): retried up to retries, nothing reaches the server',
    steps: [201],
    request: POST,
    options: { retries: 2 },
    flow: { kind: 'refuse', recoverAt: 99 },
    expect: () => ({
      ...failed('network', 0, 'retries-exhausted', [500, 1000]),
      attempts: 3,
      retryReasons: ['not-sent', 'not-sent'],
    }),
  },

  // Stalled headers: the client's own per-attempt timeout (real time) fires. 250 ms, so that the attempt that is
  // answered never meets it, even on a loaded machine.
  {
    name: "headers stalled past the client's timeout, then answered",
    steps: ['stall', 200],
    transport: STALL_TIMEOUT,
    // Every client's wait after its own timeout is the runner's, on the injected timers (ky's too).
    expect: () => ok(2, [500]),
  },
  {
    name: 'headers stalled, retryOnTimeout: false',
    steps: ['stall', 200],
    transport: STALL_TIMEOUT,
    options: { retryOnTimeout: false },
    expect: () => failed('timeout', 1, 'timeout-not-retried'),
  },
  {
    name: 'headers stalled (POST without a key): sent once',
    steps: ['stall', 200],
    transport: STALL_TIMEOUT,
    request: POST,
    expect: () => failed('timeout', 1, 'method-not-idempotent'),
  },

  // 503 for N seconds of the server's clock (the virtual clock the waits run on), then 200.
  {
    name: '503 for 3 s, then recovered: arrivals at 0, 0.5, 1.5, 3.5 s',
    steps: [{ kind: 'unavailable', forMs: 3000 }],
    expect: () => ok(4, [500, 1000, 2000]),
  },
  {
    name: '503 with Retry-After: 2 for 3 s: never back before 2 s',
    steps: [{ kind: 'unavailable', forMs: 3000, retryAfter: '2' }],
    // 2 s plus 0.5 x a 3 s window: back at 3.5 s, when the server is up again.
    expect: () => ok(2, [3500]),
  },
  {
    name: '503 for 10 s with a 5 s deadline: no wait ends past it',
    steps: [{ kind: 'unavailable', forMs: 10_000 }],
    options: { retries: 5, deadline: 5000 },
    expect: () => failed('http', 4, 'deadline', [500, 1000, 2000], { status: 503 }),
  },
  {
    name: '503 for 3 s (POST without a key): sent once',
    steps: [{ kind: 'unavailable', forMs: 3000 }],
    request: POST,
    expect: () => failed('http', 1, 'method-not-idempotent', [], { status: 503 }),
  },

  // Hostile Retry-After values on a 429 (maxRetryAfter is the default 60 s).
  hostile("'1e12' (not delay-seconds)", '1e12', ignored),
  hostile("'1000000000000' (1e12 seconds)", '1000000000000', () =>
    failed('http', 1, 'retry-after-too-long', [], { status: 429, serverDelay: 1e15 }),
  ),
  hostile(`'${YEAR_9999}'`, YEAR_9999, () =>
    failed('http', 1, 'retry-after-too-long', [], {
      status: 429,
      serverDelay: Date.UTC(9999, 11, 31, 23, 59, 59) - START,
    }),
  ),
  hostile("'-5'", '-5', ignored),
  hostile("'soon'", 'soon', ignored),
  hostile("'Infinity'", 'Infinity', ignored),
  hostile("'NaN'", 'NaN', ignored),
  hostile("'0x10'", '0x10', ignored),
  hostile("'1.5'", '1.5', ignored),
  hostile("'' (empty)", '', ignored),
  hostile("'5 s'", '5 s', ignored),
  hostile("'Sun, 31 Feb 2027 00:00:00 GMT' (no such day)", 'Sun, 31 Feb 2027 00:00:00 GMT', ignored),
  // Two header lines. Node's http client keeps the first Retry-After and drops the repeat (as it does for every
  // singleton header); fetch (undici) joins them into '1, 120', whose longest member wins (never earlier than the
  // server asked): 120 s is above maxRetryAfter, so the call gives up at once.
  hostile("'1' and '120' (two conflicting lines)", ['1', '120'], (driver) =>
    driver.name.includes('http adapter')
      ? ok(2, [1750])
      : failed('http', 1, 'retry-after-too-long', [], { status: 429, serverDelay: 120_000 }),
  ),
  hostile("'0' (retry now, not 'never')", '0', () => ok(2, [75])),
  hostile("'59' (within maxRetryAfter): 59 s plus a spread", '59', () => ok(2, [59_500])),
  hostile("'60' (exactly maxRetryAfter): the spread may not exceed it", '60', () => ok(2, [60_000])),
  hostile("'61' (above maxRetryAfter)", '61', () =>
    failed('http', 1, 'retry-after-too-long', [], { status: 429, serverDelay: 61_000 }),
  ),
  hostile('an HTTP-date 3 s ahead', new Date(START + 3000).toUTCString(), () => ok(2, [4750])),
  {
    name: '429 with Retry-After: 45 and a 30 s deadline: gives up at once',
    steps: [{ kind: 'respond', status: 429, headers: { 'retry-after': '45' } }, 200],
    options: { deadline: 30_000 },
    expect: () => failed('http', 1, 'deadline', [], { status: 429, serverDelay: 45_000 }),
  },

  // The server's own word (x-should-retry), on real sockets (Node's http parser, undici's Headers).
  {
    name: "503 with 'x-should-retry: false': not retried",
    steps: [{ kind: 'respond', status: 503, headers: { 'x-should-retry': 'false' } }, 200],
    expect: () => failed('http', 1, 'should-retry-header', [], { status: 503 }),
  },
  {
    name: "400 with 'Stripe-Should-Retry: true': retried",
    steps: [{ kind: 'respond', status: 400, headers: { 'Stripe-Should-Retry': 'true' } }, 200],
    expect: () => ({ ...ok(2, [500]), retryReasons: ['should-retry-header'] }),
  },
  {
    name: "400 with 'x-should-retry: true' (POST without a key): sent once",
    steps: [{ kind: 'respond', status: 400, headers: { 'x-should-retry': 'true' } }, 200],
    request: POST,
    expect: () => failed('http', 1, 'method-not-idempotent', [], { status: 400 }),
  },

  // Kept-alive sockets: the server resets a socket the client reuses (the keep-alive race).
  {
    name: 'a kept-alive socket reset when the client reuses it',
    steps: ['reset-reused'],
    flow: { kind: 'keep-alive' },
    expect: () => ok(2, [500]),
  },
  {
    name: 'a kept-alive socket reset on reuse (POST without a key): sent once',
    steps: ['reset-reused'],
    flow: { kind: 'keep-alive' },
    request: POST,
    expect: () => failed('network', 1, 'method-not-idempotent'),
  },
  {
    name: 'a kept-alive socket reset on reuse (POST with a key): retried on a new connection',
    steps: ['reset-reused'],
    flow: { kind: 'keep-alive' },
    request: KEYED_POST,
    expect: () => ok(2, [500]),
  },
];
