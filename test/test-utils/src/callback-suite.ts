import { BackoffMetrics, type BackoffOptions, CircuitBreaker, Pacer } from 'backoff-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BackoffClientDriver, Settled } from './behaviour-suite.js';
import type { Step } from './scripted-api.js';
import { API, ScriptedApi } from './scripted-api.js';
import { VirtualClock } from './virtual-clock.js';

/** One of the options' callbacks failing: how it fails, and the error the caller gets for it. */
interface Failure {
  readonly name: string;
  readonly options: (failure: Error) => BackoffOptions;
  /** The error the caller must get: the callback's own, or a TypeError naming it. */
  readonly expected: (failure: Error, settled: Settled) => void;
  /** A pacer is needed to meet the callback (`onHold`). */
  readonly paced?: true;
}

const own = (failure: Error, settled: Settled) => {
  expect(settled.ok).toBe(false);
  if (!settled.ok) expect(settled.error).toBe(failure);
};

const FAILURES: readonly Failure[] = [
  {
    name: 'shouldRetry throws',
    options: (failure) => ({
      shouldRetry: () => {
        throw failure;
      },
    }),
    expected: own,
  },
  {
    name: 'shouldRetry rejects',
    options: (failure) => ({ shouldRetry: () => Promise.reject(failure) }),
    expected: own,
  },
  {
    name: 'delay throws',
    options: (failure) => ({
      delay: () => {
        throw failure;
      },
    }),
    expected: own,
  },
  {
    name: 'delay returns NaN',
    options: () => ({ delay: () => Number.NaN }),
    expected: (_failure, settled) => {
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(String(settled.error)).toMatch(/Expected `delay` to return a number of ms/);
    },
  },
  {
    name: 'onRetry throws',
    options: (failure) => ({
      onRetry: () => {
        throw failure;
      },
    }),
    expected: own,
  },
  {
    name: 'onHold throws',
    options: (failure) => ({
      onHold: () => {
        throw failure;
      },
    }),
    expected: own,
    paced: true,
  },
];

/**
 * A call that one of the options' callbacks ends: the caller gets the callback's error, the result says
 * `'callback-error'`, the metrics count the call, and the breaker hears of the failure the attempt met. Nothing
 * more is sent. And one still pending at the deadline: the deadline ends the call there, as a deadline stop does.
 */
export function describeCallbackErrorsClient(driver: BackoffClientDriver): void {
  const api = new ScriptedApi();
  let clock = new VirtualClock();
  describe(`callbacks: ${driver.name}`, () => {
    beforeAll(() => api.listen());
    afterEach(() => {
      expect(clock.pendingCount).toBe(0);
      api.reset();
    });
    afterAll(() => api.close());
    failingCallbacks();
    pendingCallbacks();
  });

  /** A callback that throws or rejects ends the call and says so. */
  function failingCallbacks(): void {
    describe('a failing callback ends the call and says so', () => {
      for (const { name, options, expected, paced } of FAILURES) {
        it(`${name}: the call ends with it, reason 'callback-error', counted, and the breaker hears the 503`, async () => {
          clock = new VirtualClock();
          const failure = new Error(`${name}: broken`);
          const metrics = new BackoffMetrics();
          const breaker = new CircuitBreaker({ consecutiveFailures: 2 });
          // The quota is spent for 5 s while the server asks for the retry at once: the retry is held, so onHold is met.
          const pacer = paced ? new Pacer() : undefined;
          const route = api.script('/items', [
            { status: 503, headers: { 'retry-after': '0', ratelimit: '"q";r=0;t=5' } },
            200,
          ]);
          const client = driver.create(API, {
            random: () => 0.5,
            timers: clock.timers,
            now: clock.now,
            metrics,
            circuitBreaker: breaker,
            ...(pacer === undefined ? {} : { pacer }),
            ...options(failure),
          });
          const settled = await client.send({ method: 'GET', path: '/items' });
          expected(failure, settled);
          expect(route.hits).toHaveLength(1);
          expect(settled.result).toMatchObject({ attempts: 1, reason: 'callback-error' });
          expect(settled.result?.held).toBeUndefined();
          expect(metrics.snapshot()).toMatchObject({ calls: 1, attempts: 1, stops: { 'callback-error': 1 } });
          expect(metrics.snapshot().holds).toBe(0);
          // The 503 is a failure of the backend, and the breaker counted it.
          expect(breaker.toJSON().origins[new URL(API).origin]).toMatchObject({ consecutiveFailures: 1 });
        });
      }
    });
  }

  /** A callback still pending at the deadline ends the call there. */
  function pendingCallbacks(): void {
    describe('a callback still pending at the deadline ends the call at the deadline', () => {
      /** The quota is spent for 5 s while the server asks for the retry at once: the retry is held, so onHold is met. */
      const paced: Step = { status: 503, headers: { 'retry-after': '0', ratelimit: '"q";r=0;t=5' } };
      const PENDING: readonly {
        readonly name: string;
        readonly options: (hang: () => Promise<never>) => BackoffOptions;
        readonly first: Step;
        /** What the caller gets: the attempt's own 503 (a deadline stop), or a TimeoutError naming the callback. */
        readonly gets: '503' | 'timeout';
      }[] = [
        { name: 'shouldRetry', options: (hang) => ({ shouldRetry: hang }), first: 503, gets: '503' },
        { name: 'onRetry', options: (hang) => ({ onRetry: hang }), first: 503, gets: 'timeout' },
        {
          name: 'onHold',
          options: (hang) => ({ pacer: new Pacer(), onHold: hang }),
          first: paced,
          gets: 'timeout',
        },
      ];

      for (const { name, options, first, gets } of PENDING) {
        it(`${name}: the caller gets what a deadline stop gives, reason 'deadline', nothing more is sent, a late answer changes nothing`, async () => {
          clock = new VirtualClock();
          const route = api.script('/hung', [first, 200]);
          const late: Array<(failure: Error) => void> = [];
          const hang = () =>
            new Promise<never>((_resolve, reject) => {
              late.push(reject);
            });
          const client = driver.create(API, {
            random: () => 0.5,
            timers: clock.timers,
            now: clock.now,
            deadline: 8000,
            ...options(hang),
          });
          const started = clock.now();
          const settled = await client.send({ method: 'GET', path: '/hung' });
          expect(clock.now() - started).toBe(8000);
          expect(late).toHaveLength(1);
          if (gets === '503') {
            expect(settled.status).toBe(503);
            expect(settled.ok).toBe(!driver.rejectsOnHttpError);
          } else {
            expect(settled.ok).toBe(false);
            if (!settled.ok) expect(settled.error).toMatchObject({ name: 'TimeoutError' });
            if (!settled.ok) expect(String((settled.error as Error).message)).toContain(`\`${name}\``);
          }
          expect(settled.result).toMatchObject({ attempts: 1, reason: 'deadline' });
          // The callback fails long after: nobody's unhandled rejection, and nothing is sent.
          for (const reject of late) reject(new Error(`${name} answered late`));
          await new Promise((resolve) => setImmediate(resolve));
          expect(route.hits).toHaveLength(1);
        });
      }
    });
  }
}
