import { RetryBudget } from 'backoff-core';
import fc from 'fast-check';
import { OPTION_NAMES } from './options-oracle.ts';

const MAX_TIMER = 2_147_483_647;
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Instants at whole seconds between the years 1000 and 9999: what the three HTTP-date forms can write. */
export const instant = fc
  .date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((date) => Math.floor(date.getTime() / 1000) * 1000);

/** `now` as a clock could give it, hostile values included. */
export const anyNow = fc.oneof(
  fc.integer({ min: -8.64e15, max: 8.64e15 }),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -0),
);

/** IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`. */
export const imfFixdate = (ms: number) => new Date(ms).toUTCString();

/** RFC 850, e.g. `Sunday, 06-Nov-94 08:49:37 GMT`. */
export function rfc850(ms: number): string {
  const d = new Date(ms);
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const yy = pad(d.getUTCFullYear() % 100);
  return `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${yy} ${time} GMT`;
}

/** asctime, e.g. `Sun Nov  6 08:49:37 1994` (the day padded with a space). */
export function asctime(ms: number): string {
  const d = new Date(ms);
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const day = String(d.getUTCDate()).padStart(2, ' ');
  return `${DAYS[d.getUTCDay()]?.slice(0, 3)} ${MONTHS[d.getUTCMonth()]} ${day} ${time} ${d.getUTCFullYear()}`;
}

const SERVER_TIMING_NAMES = [
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
];

/** The names the parser reads, in any case, and some it does not (all valid header names). */
export const headerName = fc.oneof(
  { weight: 4, arbitrary: fc.mixedCase(fc.constantFrom(...SERVER_TIMING_NAMES)) },
  { weight: 1, arbitrary: fc.constantFrom('content-type', 'date', 'get', 'constructor', '__proto__') },
);

/** Header values a hostile or broken server (or a client's header object) can produce. */
export const headerText = fc.oneof(
  fc.stringMatching(/^\d{1,25}$/),
  fc.stringMatching(/^[ \t]*0*\d{1,6}(\.\d{1,4})?[ \t]*$/),
  fc.constantFrom('1e12', '-5', '+5', 'Infinity', 'NaN', '0x10', '1.5', '', ' ', '5 s', '1, 120', '0'),
  instant.map(imfFixdate),
  instant.map(rfc850),
  instant.map(asctime),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: -5, max: 1e6 }))
    .map(([r, t]) => `"p";r=${r};t=${t}`),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
);

/** Any value a header object may hold: strings, lists (repeated headers), numbers, odd objects. */
export const headerValue = fc.oneof(
  { weight: 6, arbitrary: headerText },
  { weight: 2, arbitrary: fc.array(headerText, { maxLength: 3 }) },
  {
    weight: 2,
    arbitrary: fc.anything({
      maxDepth: 2,
      withBoxedValues: true,
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
    }),
  },
);

/** A header record (as Node's IncomingHttpHeaders or a custom adapter's object), keys in any case. */
export const headerRecord = fc.dictionary(headerName, headerValue, { maxKeys: 6 });

/** Header containers of every shape `HeadersLike` allows, and some it does not promise anything about. */
export const anyHeaders = fc.oneof(
  headerRecord,
  headerRecord.map((record) => Object.assign(Object.create(null), record) as Record<string, unknown>),
  headerRecord.map((record) => (name: string) => record[name]),
  headerRecord.map((record) => new Map(Object.entries(record))),
  fc
    .dictionary(
      headerName,
      headerText.filter((v) => /^[\t\x20-\x7e\x80-\xff]*$/.test(v)),
      {
        maxKeys: 6,
      },
    )
    .map((record) => new Headers(record)),
  fc.constantFrom(undefined, null),
  fc.anything({ maxDepth: 1 }),
);

const boundaryNumber = fc.constantFrom(
  -1,
  -0,
  0,
  0.5,
  1,
  1.5,
  99.999,
  100,
  100.0001,
  101,
  599,
  600,
  MAX_TIMER,
  MAX_TIMER + 1,
  1e9,
  1e9 + 1,
  2 ** 53,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  Number.NaN,
);

/** Values no option is documented to take (a few of them valid for some option, by chance: that is tested too). */
export const junk = fc.oneof(
  boundaryNumber,
  fc.double(),
  fc.integer(),
  fc.constantFrom('full', 'AUTO', 'auto', '3', '1e3', '', 'GET', 'Idempotency Key', 'true', 'false'),
  fc.array(fc.oneof(boundaryNumber, fc.string({ maxLength: 6 }), fc.constant(null)), { maxLength: 4 }),
  fc.anything({
    maxDepth: 2,
    withBoxedValues: true,
    withNullPrototype: true,
    withSparseArray: true,
    withBigInt: true,
    withMap: true,
    withSet: true,
    withDate: true,
  }),
  fc.func(fc.anything({ maxDepth: 1 })),
  fc.constant(null),
);

const delay = fc.oneof(
  fc.integer({ min: 0, max: MAX_TIMER }),
  fc.double({ min: 0, max: MAX_TIMER, noNaN: true }),
);
const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,12}$/);
/** Timers whose waits end on the next turn of the loop: a fuzzed policy may retry, it must never sleep. */
export const immediateTimers = {
  setTimeout: (callback: () => void) => setImmediate(callback),
  clearTimeout: (handle: unknown) => clearImmediate(handle as NodeJS.Immediate),
};
const timers = fc.constant(immediateTimers);

/** A valid value for each option, as the docs allow it. */
export const VALID: Record<(typeof OPTION_NAMES)[number], fc.Arbitrary<unknown>> = {
  retries: fc.integer({ min: 0, max: 100 }),
  baseDelay: delay,
  maxDelay: delay,
  factor: fc.double({ min: 1, max: 100, noNaN: true }),
  jitter: fc.constantFrom('full', 'equal', 'decorrelated', 'none'),
  statusCodes: fc.array(fc.integer({ min: 100, max: 599 }), { maxLength: 8 }),
  methods: fc.array(token, { maxLength: 5 }),
  idempotencyKeyHeader: token,
  idempotencyKey: fc.constantFrom('auto', false, () => 'key-1'),
  maxRetryAfter: delay,
  deadline: delay,
  retryOnTimeout: fc.boolean(),
  budget: fc.oneof(
    fc.constant(false),
    fc.record(
      {
        reserve: fc.integer({ min: 0, max: 1e9 }),
        ratio: fc.double({ min: 0, max: 1, noNaN: true }),
        throttlingCost: fc.double({ min: 0, max: 1, noNaN: true }),
      },
      { requiredKeys: [] },
    ),
    fc.constant(null).map(() => new RetryBudget({ reserve: 3 })),
  ),
  shouldRetry: fc.func(fc.constantFrom(true, false, undefined)),
  onRetry: fc.func(fc.constant(undefined)),
  random: fc.func(fc.double()),
  now: fc.constant(() => Date.UTC(2026, 11, 2)),
  timers,
};

/** An options object: each option absent, valid, or junk; sometimes an unknown key too. */
export const anyOptions = fc
  .tuple(
    fc.record(
      Object.fromEntries(
        OPTION_NAMES.map((name) => [
          name,
          fc.oneof({ weight: 3, arbitrary: VALID[name] }, { weight: 1, arbitrary: junk }),
        ]),
      ) as Record<string, fc.Arbitrary<unknown>>,
      { requiredKeys: [] },
    ),
    fc.oneof(
      { weight: 9, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.dictionary(
          // Not `__proto__`, `constructor` or `prototype`: axios's config merge drops those keys before any
          // interceptor sees them (options.test.ts shows it), so axios-backoff cannot name them.
          fc.constantFrom('retry', 'maxRetries', 'retryDelay', 'limit', 'timeout', 'toString', 'valueOf'),
          junk,
          { minKeys: 1, maxKeys: 2 },
        ),
      },
    ),
  )
  .map(([known, unknown]) => ({ ...known, ...(unknown ?? {}) }) as Record<string, unknown>);
