// A production build (NODE_ENV=production) keeps every check, error class and option name, with a short message:
// the option, what it got, and the link to the code's full explanation in docs/errors.md. These read NODE_ENV at
// each throw, as the built package does, so stubbing it here runs the production branch of the same source.
import { readFileSync } from 'node:fs';
import { VirtualClock } from '@backoff/test-utils';
import {
  BackoffMetrics,
  CircuitBreaker,
  createBackoff,
  Hedge,
  Pacer,
  RetryBudget,
  TabStore,
  withBackoff,
} from 'backoff-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ERROR_CODES, ERRORS_URL } from '../src/options/check.ts';

beforeEach(() => {
  vi.stubEnv('NODE_ENV', 'production');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const link = (code: string) => `${ERRORS_URL}#${code}`;

/** The error `run` throws (synchronously). */
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  return expect.unreachable('nothing was thrown');
}

describe('option errors in production: short, with the option, what it got and the link', () => {
  it.each<[string, () => unknown, typeof TypeError, string]>([
    [
      'a value out of range',
      () => createBackoff({ retries: 200 }),
      RangeError,
      '`retries` got 200 (bad-option)',
    ],
    [
      'a value of the wrong type',
      () => createBackoff({ jitter: 'some' as never }),
      TypeError,
      '`jitter` got "some" (bad-option)',
    ],
    [
      'a callback of two parameters',
      () => createBackoff({ onRetry: ((_a: unknown, _b: unknown) => {}) as never }),
      TypeError,
      '`onRetry` got a function (bad-option)',
    ],
    [
      'a list with a bad item',
      () => createBackoff({ statusCodes: [503, 42] }),
      RangeError,
      '`statusCodes` got 42 (bad-option)',
    ],
    [
      'an unknown option',
      () => createBackoff({ retrys: 3 } as never),
      TypeError,
      '`retrys` got 3 (unknown-option)',
    ],
    [
      "another library's option name",
      () => createBackoff({ retryCondition: () => true } as never),
      TypeError,
      '`retryCondition` got a function (unknown-option)',
    ],
    [
      'no options object',
      () => createBackoff(5 as never),
      TypeError,
      '`backoff options` got 5 (options-not-object)',
    ],
    [
      'baseDelay above maxDelay',
      () => createBackoff({ baseDelay: 5000, maxDelay: 100 }),
      RangeError,
      '`baseDelay` got 5000 (delays-apart)',
    ],
    [
      'a nested option',
      () => createBackoff({ budget: { reserve: -1 } }),
      RangeError,
      '`budget.reserve` got -1 (bad-option)',
    ],
    [
      'a nested unknown option',
      () => createBackoff({ resume: { range: true } as never }),
      TypeError,
      '`resume.range` got true (unknown-option)',
    ],
    [
      'a feature option',
      () => new Pacer({ quota: { limit: 0, window: 1000 } }),
      RangeError,
      '`pacer.quota.limit` got 0 (bad-option)',
    ],
    ['a feature option object', () => new Hedge(5 as never), TypeError, '`hedge` got 5 (bad-option)'],
    [
      'a breaker option',
      () => new CircuitBreaker({ failureRatio: 2 }),
      RangeError,
      '`circuitBreaker.failureRatio` got 2 (bad-option)',
    ],
    ['a budget option', () => new RetryBudget({ ratio: 3 }), RangeError, '`budget.ratio` got 3 (bad-option)'],
    ['no fetch function', () => withBackoff(5 as never), TypeError, '`fetch` got 5 (not-a-client)'],
    [
      'no metrics options',
      () => new BackoffMetrics(5 as never),
      TypeError,
      '`BackoffMetrics options` got 5 (options-not-object)',
    ],
    [
      'no meter',
      () => new BackoffMetrics({ meter: {} as never }),
      TypeError,
      '`meter` got an object (bad-option)',
    ],
    [
      'a breaker that could never trip',
      () => new CircuitBreaker({ failureRatio: false, consecutiveFailures: false }),
      RangeError,
      '`circuitBreaker.consecutiveFailures` got false (bad-option)',
    ],
    ['no tab channel', () => new TabStore(''), TypeError, '`channel` got "" (bad-option)'],
    [
      'a tab timeout out of range',
      () => new TabStore('app', { timeout: 0 }),
      RangeError,
      '`timeout` got 0 (bad-option)',
    ],
  ])('%s', (_case, run, Kind, start) => {
    const error = thrown(run);
    expect(error).toBeInstanceOf(Kind);
    const code = /\(([a-z-]+)\)$/.exec(start)?.[1] as string;
    expect(error.message).toBe(`${start}: ${link(code)}`);
  });

  it('several bad options are still all reported at once, each in its short form', () => {
    const error = thrown(() => createBackoff({ retries: 200, factor: 0, nope: 1 } as never));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(
      [
        '3 backoff options are wrong:',
        `- \`retries\` got 200 (bad-option): ${link('bad-option')}`,
        `- \`factor\` got 0 (bad-option): ${link('bad-option')}`,
        `- \`nope\` got 1 (unknown-option): ${link('unknown-option')}`,
      ].join('\n'),
    );
    expect((error as Error & { errors: Error[] }).errors.map((e) => e.constructor)).toEqual([
      RangeError,
      RangeError,
      TypeError,
    ]);
  });

  it('the peers’ names and did-you-mean are left out, the option name stays', () => {
    expect(thrown(() => createBackoff({ retryCondition: () => true } as never)).message).not.toMatch(
      /axios-retry|shouldRetry/,
    );
    expect(thrown(() => createBackoff({ retires: 3 } as never)).message).not.toMatch(/did you mean/);
    expect(thrown(() => createBackoff({ retires: 3 } as never)).message).toMatch(/^`retires` got 3/);
  });

  it('a callback that returns what it may not: the call fails with the short message', async () => {
    const clock = new VirtualClock();
    const fetchOf = (status: number) => async () => new Response(null, { status });
    const delayed = withBackoff(fetchOf(503), {
      delay: () => 'soon' as never,
      timers: clock.timers,
      now: clock.now,
      random: () => 0.5,
    });
    await expect(delayed('https://api.test/items')).rejects.toThrow(
      new TypeError(`\`delay\` got "soon" (bad-return): ${link('bad-return')}`),
    );
    const keyed = withBackoff(fetchOf(200), { idempotencyKey: () => 5 as never });
    await expect(keyed('https://api.test/items', { method: 'POST' })).rejects.toThrow(
      new TypeError(`\`idempotencyKey\` got 5 (bad-return): ${link('bad-return')}`),
    );
  });
});

describe('request errors in production: short, with the header, what it got and the link', () => {
  const clock = new VirtualClock();
  const answering = (status: number) => {
    const sent: Headers[] = [];
    const fetch = async (_url: unknown, init?: RequestInit) => {
      sent.push(new Headers(init?.headers));
      return new Response(null, { status });
    };
    return { fetch, sent };
  };
  const virtual = { timers: clock.timers, now: clock.now, random: () => 0.5, delay: () => 0 };

  it('a request whose Idempotency-Key cannot be sent: bad-key, nothing sent', async () => {
    const { fetch, sent } = answering(200);
    const call = withBackoff(fetch, virtual);
    await expect(
      Promise.resolve().then(() =>
        call('https://api.test/orders', { method: 'POST', headers: { 'Idempotency-Key': 'café' } }),
      ),
    ).rejects.toThrow(new TypeError(`\`Idempotency-Key\` got "café" (bad-key): ${link('bad-key')}`));
    expect(sent).toHaveLength(0);
  });

  it('an idempotencyKey that returns a key of other than visible ASCII: bad-return', async () => {
    const { fetch } = answering(200);
    const call = withBackoff(fetch, { ...virtual, idempotencyKey: () => 'a\nb' });
    await expect(call('https://api.test/orders', { method: 'POST' })).rejects.toThrow(
      new TypeError(`\`idempotencyKey\` got "a\\nb" (bad-return): ${link('bad-return')}`),
    );
  });

  it('a retry whose key a hook removed: key-lost, the retry not sent', async () => {
    const { fetch, sent } = answering(503);
    const call = withBackoff(fetch, {
      ...virtual,
      beforeAttempt: ({ retry, headers }) => {
        if (retry > 0) headers.delete('Idempotency-Key');
      },
    });
    await expect(
      call('https://api.test/orders', { method: 'POST', headers: { 'Idempotency-Key': '"order-1"' } }),
    ).rejects.toThrow(new TypeError(`\`Idempotency-Key\` got null (key-lost): ${link('key-lost')}`));
    expect(sent).toHaveLength(1);
  });

  it.each<[string, (headers: { set(name: string, value: string): void }) => void, string]>([
    ['a header name that is none', (headers) => headers.set('x key', '1'), '`header name` got "x key"'],
    [
      'a header value with a line break',
      (headers) => headers.set('x-key', 'a\r\nb'),
      '`x-key` got "a\\r\\nb"',
    ],
  ])('beforeAttempt setting %s: bad-header, nothing sent', async (_case, change, start) => {
    const { fetch, sent } = answering(200);
    const call = withBackoff(fetch, { ...virtual, beforeAttempt: ({ headers }) => change(headers) });
    await expect(call('https://api.test/items')).rejects.toThrow(
      new TypeError(`${start} (bad-header): ${link('bad-header')}`),
    );
    expect(sent).toHaveLength(0);
  });
});

describe('development (any NODE_ENV but production) keeps the full messages', () => {
  it.each(['development', 'test', ''])('NODE_ENV=%j', (value) => {
    vi.stubEnv('NODE_ENV', value);
    expect(() => createBackoff({ retries: 200 })).toThrow(
      new RangeError(
        'Expected `retries` to be an integer from 0 to 100, got 200: bound a long retry by time with `deadline`.',
      ),
    );
    expect(() => createBackoff({ retryCondition: () => true } as never)).toThrow(
      new TypeError(
        "Unknown backoff option `retryCondition`: axios-retry's name: use `shouldRetry`, asked about failures only.",
      ),
    );
  });
});

describe('docs/errors.md', () => {
  const docs = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');

  it.each(ERROR_CODES)('explains %s under a heading of its own (the anchor the messages link to)', (code) => {
    expect(docs).toMatch(new RegExp(`^## \`?${code}\`?$`, 'm'));
  });

  it('is where the messages link', () => {
    expect(ERRORS_URL).toMatch(/\/docs\/errors\.md$/);
  });
});
