import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, withBackoff } from 'backoff-core';
import ky from 'ky';
import ky1 from 'ky-1';
import { kyBackoff } from 'ky-backoff';
import { describe, expect, it } from 'vitest';
import { OVERRIDE_TARGETS } from './fuzz/override-targets.ts';

type ErrorClass = typeof TypeError | typeof RangeError;

/**
 * One bad value for every option (the mistake someone would make), and the error it must give. backoff-core's
 * own table (packages/backoff-core/test/validate.test.ts) covers createBackoff in depth; this one runs every row
 * through what users call: each adapter's installation, and each client's per-request override.
 */
const BAD: readonly [label: string, options: Record<string, unknown>, kind: ErrorClass, names: RegExp][] = [
  ['retries -1', { retries: -1 }, RangeError, /`retries`/],
  ["retries '3'", { retries: '3' }, TypeError, /`retries`/],
  ['retries 2.5', { retries: 2.5 }, RangeError, /`retries`/],
  ['baseDelay -5', { baseDelay: -5 }, RangeError, /`baseDelay`/],
  ["maxDelay '30s'", { maxDelay: '30s' }, TypeError, /`maxDelay`/],
  ['baseDelay above maxDelay', { baseDelay: 5000, maxDelay: 1000 }, RangeError, /`baseDelay`.*`maxDelay`/],
  ['factor 0', { factor: 0 }, RangeError, /`factor`/],
  ["jitter 'random'", { jitter: 'random' }, TypeError, /`jitter`/],
  ['statusCodes [503, 600]', { statusCodes: [503, 600] }, RangeError, /`statusCodes`/],
  ["methods 'GET' (not a list)", { methods: 'GET' }, TypeError, /`methods`/],
  [
    "idempotencyKeyHeader 'Idempotency Key'",
    { idempotencyKeyHeader: 'Idempotency Key' },
    TypeError,
    /`idempotencyKeyHeader`/,
  ],
  ['idempotencyKey true', { idempotencyKey: true }, TypeError, /`idempotencyKey`/],
  ['maxRetryAfter -Infinity', { maxRetryAfter: Number.NEGATIVE_INFINITY }, RangeError, /`maxRetryAfter`/],
  ['deadline NaN', { deadline: Number.NaN }, RangeError, /`deadline`/],
  ["retryOnTimeout 'yes'", { retryOnTimeout: 'yes' }, TypeError, /`retryOnTimeout`/],
  ["budget 'x'", { budget: 'x' }, TypeError, /`budget`/],
  ['budget.reserve -1', { budget: { reserve: -1 } }, RangeError, /`budget.reserve`/],
  ['budget.ratio 2', { budget: { ratio: 2 } }, RangeError, /`budget.ratio`/],
  ['budget.burst (unknown)', { budget: { burst: 5 } }, TypeError, /`budget.burst`/],
  ['shouldRetry true', { shouldRetry: true }, TypeError, /`shouldRetry`/],
  ["onRetry 'log'", { onRetry: 'log' }, TypeError, /`onRetry`/],
  ['random 0.5', { random: 0.5 }, TypeError, /`random`/],
  ['now 0', { now: 0 }, TypeError, /`now`/],
  ['timers {}', { timers: {} }, TypeError, /`timers`/],
  ["resume 'yes'", { resume: 'yes' }, TypeError, /`resume`/],
  ['resume.maxEventSize 0', { resume: { maxEventSize: 0 } }, RangeError, /`resume.maxEventSize`/],
  ['the typo retry', { retry: 3 }, TypeError, /Unknown backoff option `retry`/],
  ["ky's own name limit", { limit: 2 }, TypeError, /Unknown backoff option `limit`/],
  ["axios-retry's retryDelay", { retryDelay: () => 100 }, TypeError, /Unknown backoff option `retryDelay`/],
];

/** Each adapter's installation: options are validated there, and nothing is installed. */
const INSTALLS: readonly [name: string, install: (options: BackoffOptions) => unknown][] = [
  ['axiosBackoff(instance, options)', (options) => axiosBackoff(axios.create(), options)],
  ['kyBackoff(ky 2, options)', (options) => kyBackoff(ky.create(), options)],
  ['kyBackoff(ky 1, options)', (options) => kyBackoff(ky1.create(), options)],
  ['withBackoff(fetch, options)', (options) => withBackoff(async () => new Response('ok'), options)],
];

describe.each(INSTALLS)('bad options at installation: %s', (_name, install) => {
  it.each(BAD)('%s throws a %O naming it', (_label, options, kind, names) => {
    expect(() => install(options as BackoffOptions)).toThrow(kind);
    expect(() => install(options as BackoffOptions)).toThrow(names);
  });
});

describe.each(OVERRIDE_TARGETS.map((target) => [target.name, target] as const))(
  'bad per-request override: %s',
  (_name, target) => {
    it.each(BAD)(
      '%s rejects with a %O naming it, and sends nothing',
      async (_label, options, kind, names) => {
        const outcome = await target.send(options);
        expect(outcome.sent).toBe(0);
        expect(outcome.error).toBeInstanceOf(kind);
        expect((outcome.error as Error).message).toMatch(names);
      },
    );

    it.each([null, 'yes', 3, true, []])(
      'backoff: %j (not an options object or false) rejects, naming it',
      async (value) => {
        const outcome = await target.send(value);
        expect(outcome.sent).toBe(0);
        expect(outcome.error).toBeInstanceOf(TypeError);
        expect((outcome.error as Error).message).toMatch(/backoff/);
      },
    );

    it('a good override and `false` still send the request', async () => {
      expect(await target.send({ retries: 1 })).toMatchObject({ sent: 1, status: 200 });
      expect(await target.send(false)).toMatchObject({ sent: 1, status: 200 });
    });
  },
);

describe("keys axios's config merge drops", () => {
  // axios (1.21) merges `config.backoff` into a new object before any interceptor runs, and skips `__proto__`,
  // `constructor` and `prototype` (its prototype-pollution guard): axios-backoff never sees those keys, so it
  // cannot reject them. The other clients hand the object over as it is, and reject them as unknown options.
  const parsed = JSON.parse('{"__proto__": 1, "constructor": 2, "prototype": 3}') as Record<string, unknown>;
  it.each(OVERRIDE_TARGETS.map((target) => [target.name, target] as const))('%s', async (name, target) => {
    const outcome = await target.send(parsed);
    if (name.startsWith('axios')) {
      expect(outcome).toMatchObject({ sent: 1, status: 200 });
    } else {
      expect(outcome.sent).toBe(0);
      expect((outcome.error as Error).message).toMatch(
        /Unknown backoff option `(__proto__|constructor|prototype)`/,
      );
    }
  });
});
