import {
  type BackoffOptions,
  createBackoff,
  DEFAULT_METHODS,
  DEFAULT_STATUS_CODES,
  Hedge,
  RetryBudget,
  withBackoff,
} from 'backoff-core';
import { DEFAULTS, startCall } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';
import type { PeerOptionNames } from '../src/options/peer-names.ts';
import { MAX_TIMER_DELAY } from '../src/options/validate.ts';
import { defaultTimers } from '../src/run/sleep.ts';
import { next } from './support/calls.ts';

type ErrorClass = typeof TypeError | typeof RangeError;
const bad = (options: unknown) => () => createBackoff(options as BackoffOptions);

describe('options are validated at createBackoff, naming the option', () => {
  it.each<[label: string, options: Record<string, unknown>, kind: ErrorClass, message: RegExp]>([
    ['retries -1', { retries: -1 }, RangeError, /`retries`/],
    ['retries NaN', { retries: Number.NaN }, RangeError, /`retries`/],
    ['retries 1.5 (not an integer)', { retries: 1.5 }, RangeError, /`retries` to be an integer/],
    ['retries 101 (above 100)', { retries: 101 }, RangeError, /`retries`/],
    ['retries Infinity', { retries: Number.POSITIVE_INFINITY }, RangeError, /`retries`/],
    ["retries '3'", { retries: '3' }, TypeError, /`retries` to be a number/],
    ['serverRetries -1', { serverRetries: -1 }, RangeError, /`serverRetries`/],
    [
      'serverRetries 2.5 (not an integer)',
      { serverRetries: 2.5 },
      RangeError,
      /`serverRetries` to be an integer/,
    ],
    ['serverRetries 101 (above 100)', { serverRetries: 101 }, RangeError, /`serverRetries`/],
    ['serverRetries null', { serverRetries: null }, TypeError, /`serverRetries` to be a number/],
    ['baseDelay -1', { baseDelay: -1 }, RangeError, /`baseDelay`/],
    ['baseDelay NaN', { baseDelay: Number.NaN }, RangeError, /`baseDelay`/],
    [
      'baseDelay above maxDelay',
      { baseDelay: 2000, maxDelay: 1000 },
      RangeError,
      /`baseDelay` to be at most `maxDelay` \(1000\), got 2000/,
    ],
    ['baseDelay above the default maxDelay', { baseDelay: 40_000 }, RangeError, /`baseDelay`.*`maxDelay`/],
    ['baseDelay above 2^31-1', { baseDelay: MAX_TIMER_DELAY + 1 }, RangeError, /`baseDelay`/],
    ['maxDelay -1', { maxDelay: -1 }, RangeError, /`maxDelay`/],
    ['maxDelay above 2^31-1', { maxDelay: MAX_TIMER_DELAY + 1 }, RangeError, /`maxDelay`/],
    ["maxDelay '30s'", { maxDelay: '30s' }, TypeError, /`maxDelay`/],
    ['factor 0.5 (below 1)', { factor: 0.5 }, RangeError, /`factor`/],
    ['factor 0', { factor: 0 }, RangeError, /`factor`/],
    ['factor NaN', { factor: Number.NaN }, RangeError, /`factor`/],
    ['factor 101', { factor: 101 }, RangeError, /`factor`/],
    [
      "jitter 'random'",
      { jitter: 'random' },
      TypeError,
      /`jitter` to be one of 'full', 'equal', 'decorrelated', 'none'/,
    ],
    ['jitter true', { jitter: true }, TypeError, /`jitter`/],
    ['statusCodes with 99', { statusCodes: [503, 99] }, RangeError, /`statusCodes`.*got 99/],
    ['statusCodes with 600', { statusCodes: [600] }, RangeError, /`statusCodes`.*got 600/],
    ["statusCodes with '503'", { statusCodes: ['503'] }, RangeError, /`statusCodes`.*got 503/],
    ['statusCodes with 503.5', { statusCodes: [503.5] }, RangeError, /`statusCodes`/],
    ['statusCodes not an array', { statusCodes: 503 }, TypeError, /`statusCodes`/],
    // Values with no string form (found by the fault suite's fuzzing): the message must still be built.
    [
      'statusCodes with a null-prototype object',
      { statusCodes: [Object.create(null)] },
      RangeError,
      /`statusCodes`/,
    ],
    ['methods with a BigInt', { methods: [1n] }, TypeError, /`methods`.*got \[object BigInt\]/],
    [
      'budget.reserve a null-prototype object',
      { budget: { reserve: Object.create(null) } },
      TypeError,
      /`budget.reserve`/,
    ],
    [
      'budget.ratio a null-prototype object',
      { budget: { ratio: Object.create(null) } },
      TypeError,
      /`budget.ratio`/,
    ],
    ["methods with ''", { methods: ['GET', ''] }, TypeError, /`methods`.*got ""/],
    ["methods with 'GE T'", { methods: ['GE T'] }, TypeError, /`methods`.*got "GE T"/],
    ['methods with a number', { methods: [1] }, TypeError, /`methods`/],
    ["methods 'GET' (not an array)", { methods: 'GET' }, TypeError, /`methods`/],
    ["idempotencyKeyHeader ''", { idempotencyKeyHeader: '' }, TypeError, /`idempotencyKeyHeader`/],
    [
      "idempotencyKeyHeader 'Idempotency Key'",
      { idempotencyKeyHeader: 'Idempotency Key' },
      TypeError,
      /`idempotencyKeyHeader`/,
    ],
    ["idempotencyKeyHeader 'Key:'", { idempotencyKeyHeader: 'Key:' }, TypeError, /`idempotencyKeyHeader`/],
    ['idempotencyKeyHeader 42', { idempotencyKeyHeader: 42 }, TypeError, /`idempotencyKeyHeader`/],
    ["idempotencyKey 'yes'", { idempotencyKey: 'yes' }, TypeError, /`idempotencyKey`/],
    ["idempotencyKey 'AUTO'", { idempotencyKey: 'AUTO' }, TypeError, /`idempotencyKey`/],
    ['idempotencyKey true', { idempotencyKey: true }, TypeError, /`idempotencyKey`/],
    ["retryOnTimeout 'yes'", { retryOnTimeout: 'yes' }, TypeError, /`retryOnTimeout` to be a boolean/],
    [
      'network {} (no isOnline)',
      { network: {} },
      TypeError,
      /`network` to be false or an object with isOnline and onOnline functions/,
    ],
    [
      "shouldRetryHeaders 'off'",
      { shouldRetryHeaders: 'off' },
      TypeError,
      /`shouldRetryHeaders` to be a boolean/,
    ],
    ['shouldRetry true', { shouldRetry: true }, TypeError, /`shouldRetry` to be a function/],
    ["onRetry 'log'", { onRetry: 'log' }, TypeError, /`onRetry` to be a function/],
    ['random 0.5', { random: 0.5 }, TypeError, /`random` to be a function/],
    ['now 0', { now: 0 }, TypeError, /`now` to be a function/],
    ['timers {}', { timers: {} }, TypeError, /`timers`/],
    ['timers null', { timers: null }, TypeError, /`timers`/],
    ['timers without clearTimeout', { timers: { setTimeout } }, TypeError, /`timers`/],
    ['timers as the setTimeout function', { timers: setTimeout }, TypeError, /`timers`/],
    ['tracer {}', { tracer: {} }, TypeError, /`tracer` to be an OpenTelemetry Tracer/],
    [
      'tracer as a TracerProvider',
      { tracer: { getTracer: () => ({}) } },
      TypeError,
      /`tracer`.*getTracer\('my-app'\)/,
    ],
    ["tracer 'my-app'", { tracer: 'my-app' }, TypeError, /`tracer`/],
    [
      "redactQueryParams 'token'",
      { redactQueryParams: 'token' },
      TypeError,
      /^Expected `redactQueryParams` to be an array of query parameter names \(`\['token'\]`\), got "token"\.$/,
    ],
    [
      "redactQueryParams ['token', '']",
      { redactQueryParams: ['token', ''] },
      TypeError,
      /^Expected `redactQueryParams` to be an array of query parameter names \(`\['token'\]`\), got ""\.$/,
    ],
    ['redactQueryParams [1]', { redactQueryParams: [1] }, TypeError, /`redactQueryParams`.*got 1\.$/],
    ['maxRetryAfter -1', { maxRetryAfter: -1 }, RangeError, /`maxRetryAfter`/],
    ['maxRetryAfter above 2^31-1', { maxRetryAfter: MAX_TIMER_DELAY + 1 }, RangeError, /`maxRetryAfter`/],
    [
      'retryAfterSpread -0.5',
      { retryAfterSpread: -0.5 },
      RangeError,
      /^Expected `retryAfterSpread` to be a number from 0 to 10, got -0.5\.$/,
    ],
    ['retryAfterSpread 11', { retryAfterSpread: 11 }, RangeError, /`retryAfterSpread`.*got 11/],
    ['retryAfterSpread NaN', { retryAfterSpread: Number.NaN }, RangeError, /`retryAfterSpread`/],
    [
      "retryAfterSpread '1'",
      { retryAfterSpread: '1' },
      TypeError,
      /^Expected `retryAfterSpread` to be a number, got "1"\.$/,
    ],
    ['retryAfterSpread true', { retryAfterSpread: true }, TypeError, /`retryAfterSpread` to be a number/],
    ['deadline -1', { deadline: -1 }, RangeError, /`deadline`/],
    ['deadline above 2^31-1', { deadline: MAX_TIMER_DELAY + 1 }, RangeError, /`deadline`/],
    ['deadline NaN', { deadline: Number.NaN }, RangeError, /`deadline`/],
    ['attemptTimeout 0', { attemptTimeout: 0 }, RangeError, /`attemptTimeout`/],
    ['attemptTimeout -1', { attemptTimeout: -1 }, RangeError, /`attemptTimeout`/],
    ['attemptTimeout above 2^31-1', { attemptTimeout: MAX_TIMER_DELAY + 1 }, RangeError, /`attemptTimeout`/],
    ["attemptTimeout '200'", { attemptTimeout: '200' }, TypeError, /`attemptTimeout` to be a number/],
    ['beforeAttempt true', { beforeAttempt: true }, TypeError, /`beforeAttempt`/],
    ["budget 'x'", { budget: 'x' }, TypeError, /`budget`/],
    ['budget null', { budget: null }, TypeError, /`budget`/],
    ['budget true', { budget: true }, TypeError, /`budget`/],
    ['budget.reserve -1', { budget: { reserve: -1 } }, RangeError, /`budget.reserve`/],
    ['budget.ratio 2', { budget: { ratio: 2 } }, RangeError, /`budget.ratio`/],
    [
      "resume 'yes'",
      { resume: 'yes' },
      TypeError,
      /`resume` to be true, false or \{ ranges\?, eventStreams\?, replayEvents\?, restart\?, maxEventSize\? \}, got "yes"/,
    ],
    ['resume null', { resume: null }, TypeError, /`resume` to be true, false or \{.*got null/],
    [
      "resume.ranges 'no'",
      { resume: { ranges: 'no' } },
      TypeError,
      /`resume.ranges` to be a boolean, got "no"/,
    ],
    ['resume.restart 0', { resume: { restart: 0 } }, TypeError, /`resume.restart` to be a boolean, got 0/],
    [
      "resume.replayEvents 'yes'",
      { resume: { replayEvents: 'yes' } },
      TypeError,
      /`resume.replayEvents` to be a boolean, got "yes"/,
    ],
    [
      'resume.maxEventSize 0',
      { resume: { maxEventSize: 0 } },
      RangeError,
      /`resume.maxEventSize` to be an integer from 1 to 67108864, got 0/,
    ],
    [
      'resume.maxEventSize 1.5',
      { resume: { maxEventSize: 1.5 } },
      RangeError,
      /`resume.maxEventSize` to be an integer/,
    ],
    [
      'resume.eventStream (a typo)',
      { resume: { eventStream: true } },
      TypeError,
      /Unknown resume option `resume.eventStream`/,
    ],
    ['the typo `retry`', { retry: 3 }, TypeError, /Unknown backoff option `retry`/],
    ['the typo `maxRetries`', { maxRetries: 3 }, TypeError, /Unknown backoff option `maxRetries`/],
    [
      'the axios-retry name `retryDelay`',
      { retryDelay: () => 1 },
      TypeError,
      /Unknown backoff option `retryDelay`/,
    ],
  ])('%s', (_label, options, kind, message) => {
    expect(bad(options)).toThrow(kind);
    expect(bad(options)).toThrow(message);
  });

  it.each([
    [null, 'null'],
    [3, '3'],
    ['fast', '"fast"'],
    [true, 'true'],
    [[], 'an array'],
    [[1, 2], 'an array'],
  ])('options %j (not an object) -> TypeError saying what it got', (options, got) => {
    expect(bad(options)).toThrow(TypeError);
    expect(bad(options)).toThrow(`Expected the backoff options to be an object, got ${got}.`);
  });

  it.each<[string, BackoffOptions, string]>([
    [
      '`maxDelay` below the default `baseDelay`',
      { maxDelay: 500 },
      '`maxDelay` (500) is below the default `baseDelay` (1000): lower `baseDelay` too.',
    ],
    [
      '`baseDelay` above the default `maxDelay`',
      { baseDelay: 60_000 },
      '`baseDelay` (60000) is above the default `maxDelay` (30000): raise `maxDelay` too.',
    ],
    [
      'both set, apart',
      { baseDelay: 2000, maxDelay: 1000 },
      'Expected `baseDelay` to be at most `maxDelay` (1000), got 2000.',
    ],
  ])('%s: the error blames what the caller set and says the fix', (_label, options, message) => {
    expect(() => createBackoff(options)).toThrow(new RangeError(message));
  });

  it.each<[string, string]>([
    [
      'retryCondition',
      "Unknown backoff option `retryCondition`: axios-retry's name: use `shouldRetry`, asked about failures only.",
    ],
    [
      'retryDelay',
      "Unknown backoff option `retryDelay`: axios-retry's and retry-axios's name: use `delay` (a function) or `baseDelay` (ms).",
    ],
    ['httpMethodsToRetry', "Unknown backoff option `httpMethodsToRetry`: retry-axios's name: use `methods`."],
    [
      'onError',
      "Unknown backoff option `onError`: retry-axios's name: use `onRetry`, called before each wait.",
    ],
    ['limit', "Unknown backoff option `limit`: ky's and got's name: use `retries`."],
    [
      'backoffLimit',
      "Unknown backoff option `backoffLimit`: ky's and got's name: use `maxDelay` (`Infinity` is accepted).",
    ],
    ['minTimeout', "Unknown backoff option `minTimeout`: p-retry's name: use `baseDelay`."],
    ['calculateDelay', "Unknown backoff option `calculateDelay`: got's name: use `delay`."],
    [
      'signal',
      "Unknown backoff option `signal`: p-retry's name: give the signal to the request itself (fetch's `signal`, axios's `config.signal`).",
    ],
    [
      'maxAttempts',
      'Unknown backoff option `maxAttempts`: use `retries`, the retries after the first attempt (`maxAttempts - 1`).',
    ],
    [
      'retryOn',
      'Unknown backoff option `retryOn`: use `statusCodes` (statuses) or `shouldRetry` (a function).',
    ],
    ['Retries', 'Unknown backoff option `Retries`: option names are case-sensitive: use `retries`.'],
    ['whatever', 'Unknown backoff option `whatever`.'],
  ])("a peer's option name `%s` says what to write instead", (key, message) => {
    expect(() => createBackoff({ [key]: 1 } as BackoffOptions)).toThrow(new TypeError(message));
  });

  it.each<[string, BackoffOptions, string]>([
    [
      'idempotencyKey',
      { idempotencyKey: 42 as never },
      "Expected `idempotencyKey` to be 'auto', a function or false, got 42.",
    ],
    ['retries', { retries: '3' as never }, 'Expected `retries` to be a number, got "3".'],
    ['shouldRetry', { shouldRetry: {} as never }, 'Expected `shouldRetry` to be a function, got an object.'],
    [
      'jitter',
      { jitter: 'random' as never },
      "Expected `jitter` to be one of 'full', 'equal', 'decorrelated', 'none', got \"random\".",
    ],
    [
      'statusCodes',
      { statusCodes: 503 as never },
      'Expected `statusCodes` to be an array of integers from 100 to 599, got 503.',
    ],
    [
      'idempotencyKeyHeader',
      { idempotencyKeyHeader: 'a key' },
      'Expected `idempotencyKeyHeader` to be a header name, got "a key".',
    ],
    [
      'timers',
      { timers: {} as never },
      'Expected `timers` to be an object with setTimeout and clearTimeout functions, got an object.',
    ],
  ])('`%s`: every error shows what it got', (_label, options, message) => {
    expect(() => createBackoff(options)).toThrow(message);
  });

  it('gives messages that say what was expected and what came', () => {
    expect(bad({ retries: -1 })).toThrow('Expected `retries` to be an integer from 0 to 100, got -1.');
    expect(bad({ retries: 101 })).toThrow(
      'Expected `retries` to be an integer from 0 to 100, got 101: bound a long retry by time with `deadline`.',
    );
    expect(bad({ maxDelay: -1 })).toThrow('Expected `maxDelay` to be a number from 0 to 2147483647, got -1.');
    expect(bad({ serverRetries: Number.POSITIVE_INFINITY })).toThrow(
      'Expected `serverRetries` to be an integer from 0 to 100, got Infinity: this cap can be raised but not removed, or a server that keeps answering `Retry-After: 0` would keep the call going; bound a long call by time with `deadline`.',
    );
    expect(bad({ factor: 0.5 })).toThrow('Expected `factor` to be a number from 1 to 100, got 0.5.');
  });

  it('validates overrides given to extend() the same way', () => {
    const policy = createBackoff();
    expect(() => policy.extend({ retries: -1 })).toThrow(RangeError);
    expect(() => policy.extend({ retry: 1 } as unknown as BackoffOptions)).toThrow(
      /Unknown backoff option `retry`/,
    );
    // baseDelay is checked against the maxDelay it will run with (the inherited one here).
    expect(() => policy.extend({ maxDelay: 500 })).toThrow(
      "`maxDelay` (500) is below the policy's `baseDelay` (1000): lower `baseDelay` too.",
    );
    expect(() => policy.extend(null as unknown as BackoffOptions)).toThrow(TypeError);
  });

  it('withBackoff validates at creation too, and rejects a fetch that is not a function', () => {
    expect(() => withBackoff(undefined, { retries: -1 })).toThrow(RangeError);
    expect(() => withBackoff('fetch' as never)).toThrow(
      new TypeError('Expected `fetch` to be a function, got "fetch".'),
    );
  });
});

describe('options a switcher gets wrong: every problem in one run, each with its fix', () => {
  const thrown = (options: unknown): Error & { errors?: Error[] } => {
    try {
      createBackoff(options as BackoffOptions);
    } catch (error) {
      return error as Error;
    }
    throw new Error('no error');
  };

  it('reports every bad option of a call at once, in the order written, each with its fix', () => {
    const error = thrown({
      retires: 3,
      maxDelays: 5000,
      jitter: true,
      baseDelay: -1,
      budget: { reserve: -1 },
    });
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(
      [
        '5 backoff options are wrong:',
        '- Unknown backoff option `retires`: did you mean `retries`?',
        '- Unknown backoff option `maxDelays`: did you mean `maxDelay`?',
        "- Expected `jitter` to be one of 'full', 'equal', 'decorrelated', 'none', got true: ky's `jitter: true` is `'full'` here (the default).",
        '- Expected `baseDelay` to be a number from 0 to 2147483647, got -1.',
        '- Expected `budget.reserve` to be an integer from 0 to 1000000000, got -1.',
      ].join('\n'),
    );
    // Each one's own error, as it would be thrown alone.
    expect(error.errors?.map((one) => one.constructor)).toEqual([
      TypeError,
      TypeError,
      TypeError,
      RangeError,
      RangeError,
    ]);
  });

  it('is a RangeError when every problem is out of range, and a lone problem is thrown as itself', () => {
    const both = thrown({ retries: -1, factor: 0 });
    expect(both).toBeInstanceOf(RangeError);
    expect(both.message).toMatch(
      /^2 backoff options are wrong:\n- Expected `retries`.*\n- Expected `factor`/,
    );
    const one = thrown({ factor: 0 });
    expect(one).toStrictEqual(new RangeError('Expected `factor` to be a number from 1 to 100, got 0.'));
    expect(one.errors).toBeUndefined();
  });

  it('compares `baseDelay` with `maxDelay` only when both are valid, and lists it with the rest', () => {
    expect(thrown({ baseDelay: 2000, maxDelay: 1000, retries: -1 }).message).toBe(
      [
        '2 backoff options are wrong:',
        '- Expected `retries` to be an integer from 0 to 100, got -1.',
        '- Expected `baseDelay` to be at most `maxDelay` (1000), got 2000.',
      ].join('\n'),
    );
    // A bad `maxDelay` is reported once, not compared too.
    expect(thrown({ baseDelay: 2000, maxDelay: -1 })).toStrictEqual(
      new RangeError('Expected `maxDelay` to be a number from 0 to 2147483647, got -1.'),
    );
  });

  it('reports the problems of a per-request override at once too', () => {
    expect(() => createBackoff().extend({ retires: 1, jitter: 'ful' } as never)).toThrow(
      /^2 backoff options are wrong:\n- Unknown backoff option `retires`: did you mean `retries`\?\n- Expected `jitter`/,
    );
  });

  it.each<[string, string]>([
    ['retires', 'did you mean `retries`?'],
    ['maxDelays', 'did you mean `maxDelay`?'],
    ['basedelay', 'option names are case-sensitive: use `baseDelay`'],
    ['statusCode', 'did you mean `statusCodes`?'],
    ['method', 'did you mean `methods`?'],
    ['jiter', 'did you mean `jitter`?'],
    ['maxRetryAftr', 'did you mean `maxRetryAfter`?'],
    ['idempotencyKeyHeaders', 'did you mean `idempotencyKeyHeader`?'],
    ['onRetyr', 'did you mean `onRetry`?'],
    ['shoudRetry', 'did you mean `shouldRetry`?'],
    [
      'numOfAttempts',
      "exponential-backoff's name: use `retries`, the retries after the first attempt (`numOfAttempts - 1`)",
    ],
    ['startingDelay', "exponential-backoff's name: use `baseDelay`"],
    ['timeMultiple', "exponential-backoff's name: use `factor`"],
    ['raxConfig', "retry-axios's config key: write its fields as options here"],
    ['axios-retry', "axios-retry's config key: write its fields as options here"],
    ['totalTimeout', "ky's name: use `deadline`"],
  ])('a near-miss or peer name `%s` says what to write', (key, advice) => {
    const end = advice.endsWith('?') ? '' : '.';
    expect(() => createBackoff({ [key]: 1 } as BackoffOptions)).toThrow(
      new TypeError(`Unknown backoff option \`${key}\`: ${advice}${end}`),
    );
  });

  it('suggests nothing for a name far from every option, and suggests in nested options too', () => {
    expect(() => createBackoff({ colour: 1 } as BackoffOptions)).toThrow(
      new TypeError('Unknown backoff option `colour`.'),
    );
    expect(() => createBackoff({ budget: { reseve: 5 } } as BackoffOptions)).toThrow(
      new TypeError('Unknown budget option `budget.reseve`: did you mean `reserve`?'),
    );
    expect(() => new Hedge({ dealy: 50 } as never)).toThrow(
      new TypeError('Unknown hedge option `hedge.dealy`: did you mean `delay`?'),
    );
  });

  it('an unknown key that is very long is reported at once (no suggestion is sought)', () => {
    const key = 'r'.repeat(100_000);
    expect(() => createBackoff({ [key]: 1 } as BackoffOptions)).toThrow(`Unknown backoff option \`${key}\`.`);
  });

  describe('"no limit" is spelt Infinity', () => {
    it('`maxDelay: Infinity` caps computed waits only at the longest timer, 2^31 - 1 ms', () => {
      const policy = createBackoff({
        maxDelay: Number.POSITIVE_INFINITY,
        factor: 100,
        jitter: 'none',
        retries: 5,
      });
      expect(policy.options.maxDelay).toBe(MAX_TIMER_DELAY);
      const call = startCall(policy, { method: 'GET' });
      const waits: number[] = [];
      for (let decision = next(call, { type: 'response', status: 503 }); decision.retry; ) {
        waits.push(decision.delay);
        decision = next(call, { type: 'response', status: 503 });
      }
      expect(waits).toEqual([1000, 100_000, 10_000_000, 1_000_000_000, MAX_TIMER_DELAY]);
    });

    it('`maxRetryAfter: Infinity` honours any server delay a timer can wait, and no longer one', () => {
      const policy = createBackoff({ maxRetryAfter: Number.POSITIVE_INFINITY, random: () => 0 });
      expect(policy.options.maxRetryAfter).toBe(MAX_TIMER_DELAY);
      const asked = (seconds: number) =>
        next(startCall(policy, { method: 'GET' }), {
          type: 'response',
          status: 503,
          headers: { 'retry-after': String(seconds) },
        });
      // One day: honoured (the default, 60 s, would end the call).
      expect(asked(86_400)).toMatchObject({ retry: true, delay: 86_400_000, serverDelay: 86_400_000 });
      // Thirty days: longer than any timer can wait.
      expect(asked(2_592_000)).toMatchObject({ retry: false, reason: 'retry-after-too-long' });
    });

    it('`attemptTimeout: Infinity` is no timeout of its own, also over a policy that had one', () => {
      expect(
        createBackoff({ attemptTimeout: Number.POSITIVE_INFINITY }).options.attemptTimeout,
      ).toBeUndefined();
      const policy = createBackoff({ attemptTimeout: 200 });
      expect(policy.options.attemptTimeout).toBe(200);
      expect(
        policy.extend({ attemptTimeout: Number.POSITIVE_INFINITY }).options.attemptTimeout,
      ).toBeUndefined();
      expect(() => createBackoff({ attemptTimeout: 1 })).not.toThrow();
      expect(() => createBackoff({ attemptTimeout: MAX_TIMER_DELAY })).not.toThrow();
    });

    it('`deadline: Infinity` is no deadline, also over a policy that had one', () => {
      expect(createBackoff({ deadline: Number.POSITIVE_INFINITY }).options.deadline).toBeUndefined();
      const policy = createBackoff({ deadline: 5000 });
      expect(policy.extend({ deadline: Number.POSITIVE_INFINITY }).options.deadline).toBeUndefined();
    });

    it.each<[string, Record<string, unknown>, string]>([
      [
        'retries',
        { retries: Number.POSITIVE_INFINITY },
        'Expected `retries` to be an integer from 0 to 100, got Infinity: bound a long retry by time with `deadline`.',
      ],
      [
        'budget.reserve',
        { budget: { reserve: Number.POSITIVE_INFINITY } },
        'Expected `budget.reserve` to be an integer from 0 to 1000000000, got Infinity: for no budget, write `budget: false`.',
      ],
      [
        'baseDelay',
        { baseDelay: Number.POSITIVE_INFINITY },
        'Expected `baseDelay` to be a number from 0 to 2147483647, got Infinity.',
      ],
      [
        'maxDelay -Infinity',
        { maxDelay: Number.NEGATIVE_INFINITY },
        'Expected `maxDelay` to be a number from 0 to 2147483647, got -Infinity.',
      ],
    ])(
      '`%s` where no limit makes no sense: a RangeError that says what to write',
      (_label, options, message) => {
        expect(bad(options)).toThrow(new RangeError(message));
      },
    );
  });

  it.each([
    [true, "ky's `jitter: true` is `'full'` here (the default)"],
    [false, "ky's `jitter: false` is `'none'` here"],
  ])('`jitter: %s` says what ky meant by it', (jitter, advice) => {
    expect(bad({ jitter })).toThrow(
      new TypeError(
        `Expected \`jitter\` to be one of 'full', 'equal', 'decorrelated', 'none', got ${jitter}: ${advice}.`,
      ),
    );
  });

  describe("a callback written for another library's signature is refused when given", () => {
    it("axios-retry's `onRetry(retryCount, error, requestConfig)` says what ours passes and how to write it", () => {
      const onRetry = (retryCount: number, error: Error, requestConfig: { url?: string }) =>
        console.warn(`retry ${retryCount} of ${requestConfig.url}: ${error.message}`);
      expect(bad({ onRetry })).toThrow(
        new TypeError(
          "Expected `onRetry` to be a function of one parameter, the event `{ retry, delay, error, status, url, ... }`, got a function of 3 parameters: axios-retry's `onRetry(retryCount, error, requestConfig)` is written `onRetry: ({ retry, error, url }) => ...`.",
        ),
      );
      // Two of its three parameters are enough to tell.
      expect(bad({ onRetry: (retryCount: number, error: Error) => [retryCount, error] })).toThrow(
        /got a function of 2 parameters: axios-retry's `onRetry/,
      );
    });

    it("axios-retry's `retryDelay(retryCount, error)` given as `delay`", () => {
      expect(bad({ delay: (retryCount: number, _error: unknown) => retryCount * 1000 })).toThrow(
        new TypeError(
          "Expected `delay` to be a function of one parameter, the context `{ retry, status, error, response, serverDelay, computed, ... }`, got a function of 2 parameters: axios-retry's `retryDelay(retryCount, error)` is written `delay: ({ retry, error }) => ms`.",
        ),
      );
    });

    it("exponential-backoff's `retry(error, attemptNumber)` given as `shouldRetry`; two-parameter `onHold` and `onHedge`", () => {
      expect(bad({ shouldRetry: (_error: unknown, attempt: number) => attempt < 3 })).toThrow(
        /^Expected `shouldRetry` to be a function of one parameter, the context .*, got a function of 2 parameters: exponential-backoff's `retry\(error, attemptNumber\)` is written `shouldRetry: \(\{ error, attempt \}\) => \.\.\.`\.$/,
      );
      expect(bad({ onHold: (delay: number, key: string) => [delay, key] })).toThrow(
        new TypeError(
          'Expected `onHold` to be a function of one parameter, the hold `{ delay, reason, key, method, url, attempt }`, got a function of 2 parameters.',
        ),
      );
      expect(bad({ onHedge: (copy: number, delay: number) => [copy, delay] })).toThrow(
        /^Expected `onHedge` to be a function of one parameter, the hedge `\{ copy, delay, method, url, attempt \}`, got a function of 2 parameters\.$/,
      );
    });

    it('accepts one parameter, none, a rest parameter, or a second one with a default', () => {
      const one = (event: unknown) => event;
      const rest = (...args: unknown[]) => args;
      const defaulted = (event: unknown, extra = 1) => [event, extra];
      for (const callback of [one, () => {}, rest, defaulted, async (event: unknown) => event]) {
        const given = callback as () => undefined;
        expect(() =>
          createBackoff({
            onRetry: given,
            delay: () => 1,
            shouldRetry: given,
            onHold: given,
            onHedge: given,
          }),
        ).not.toThrow();
      }
    });
  });
});

describe('valid options: boundaries accepted, defaults kept', () => {
  it('accepts the boundaries of every range', () => {
    expect(() =>
      createBackoff({
        retries: 100,
        baseDelay: MAX_TIMER_DELAY,
        maxDelay: MAX_TIMER_DELAY,
        factor: 100,
        maxRetryAfter: MAX_TIMER_DELAY,
        retryAfterSpread: 10,
        deadline: MAX_TIMER_DELAY,
      }),
    ).not.toThrow();
    expect(() =>
      createBackoff({
        retries: 0,
        baseDelay: 0,
        maxDelay: 0,
        factor: 1,
        maxRetryAfter: 0,
        retryAfterSpread: 0,
        deadline: 0,
      }),
    ).not.toThrow();
    expect(() => createBackoff({ statusCodes: [100, 599], methods: [] })).not.toThrow();
  });

  it('resolves the documented defaults', () => {
    const { options, budget } = createBackoff();
    expect(options).toMatchObject({
      retries: 3,
      baseDelay: 1000,
      maxDelay: 30_000,
      factor: 2,
      jitter: 'full',
      idempotencyKeyHeader: 'Idempotency-Key',
      idempotencyKey: false,
      maxRetryAfter: 60_000,
      retryAfterSpread: 1,
      deadline: undefined,
      retryOnTimeout: true,
      shouldRetryHeaders: true,
      network: undefined,
      shouldRetry: undefined,
      onRetry: undefined,
      timers: defaultTimers,
    });
    expect([...options.statusCodes]).toEqual([408, 429, 500, 502, 503, 504]);
    expect([...options.methods]).toEqual(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE', 'QUERY']);
    expect(options).toMatchObject(DEFAULTS);
    expect([...options.statusCodes]).toEqual(DEFAULT_STATUS_CODES);
    expect([...options.methods]).toEqual(DEFAULT_METHODS);
    expect(budget).toBeInstanceOf(RetryBudget);
    expect(budget?.snapshot()).toMatchObject({ tokens: 20, capacity: 20 });
  });

  it('explicit undefined values keep the defaults', () => {
    const allUndefined: Required<{ [K in Exclude<keyof BackoffOptions, keyof PeerOptionNames>]: undefined }> =
      {
        retries: undefined,
        serverRetries: undefined,
        baseDelay: undefined,
        maxDelay: undefined,
        factor: undefined,
        jitter: undefined,
        delay: undefined,
        statusCodes: undefined,
        methods: undefined,
        idempotencyKeyHeader: undefined,
        idempotencyKey: undefined,
        maxRetryAfter: undefined,
        retryAfterSpread: undefined,
        deadline: undefined,
        retryOnTimeout: undefined,
        shouldRetryHeaders: undefined,
        network: undefined,
        budget: undefined,
        circuitBreaker: undefined,
        metrics: undefined,
        pacer: undefined,
        onHold: undefined,
        shouldRetry: undefined,
        onRetry: undefined,
        hedge: undefined,
        onHedge: undefined,
        beforeAttempt: undefined,
        attemptTimeout: undefined,
        tracer: undefined,
        redactQueryParams: undefined,
        resume: undefined,
        random: undefined,
        now: undefined,
        timers: undefined,
      };
    const policy = createBackoff(allUndefined);
    expect(policy.options).toEqual(createBackoff().options);
    expect(policy.budget?.snapshot()).toMatchObject({ capacity: 20 });
    // Over a base policy, undefined keeps the base's values, not the defaults.
    const base = createBackoff({ retries: 7, jitter: 'none' });
    expect(base.extend(allUndefined).options).toMatchObject({ retries: 7, jitter: 'none' });
  });

  it('uppercases methods', () => {
    expect([...createBackoff({ methods: ['get', 'Purge'] }).options.methods]).toEqual(['GET', 'PURGE']);
  });
});
