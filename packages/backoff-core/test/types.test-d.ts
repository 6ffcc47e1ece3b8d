// Type tests of the public API, checked by vitest's typechecker (tsc) and the package's `typecheck`: nothing here
// runs. Each `@ts-expect-error` is an assertion that a misuse is a compile-time error.
import {
  type Backoff,
  BackoffMetrics,
  type BackoffMetricsSnapshot,
  type BackoffOptions,
  type BackoffResult,
  CircuitBreaker,
  type CircuitBreakerSnapshot,
  CircuitOpenError,
  type CircuitState,
  createBackoff,
  type FetchWithBackoff,
  getBackoffResult,
  type Jitter,
  parseRetryAfter,
  RetryBudget,
  type RetryEvent,
  type RetryReason,
  type ShouldRetryContext,
  type StopReason,
  withBackoff,
} from 'backoff-core';
import {
  type Call,
  type Decision,
  decide,
  type ErrorKind,
  type Outcome,
  startCall,
} from 'backoff-core/adapter';
import { describe, expectTypeOf, it } from 'vitest';
import type { Renamed } from '../src/options/peer-names.ts';

describe('options', () => {
  it('accepts every documented option with its type', () => {
    const options = {
      retries: 3,
      baseDelay: 1000,
      maxDelay: 30_000,
      factor: 2,
      jitter: 'decorrelated',
      statusCodes: [503],
      methods: ['GET', 'POST'],
      idempotencyKeyHeader: 'Idempotency-Key',
      idempotencyKey: () => '"key"',
      maxRetryAfter: 60_000,
      deadline: 10_000,
      retryOnTimeout: false,
      shouldRetryHeaders: false,
      network: { isOnline: () => true, onOnline: () => () => {} },
      budget: { reserve: 5, ratio: 0.2 },
      shouldRetry: ({ status }) => (status === 501 ? true : undefined),
      onRetry: (event) => expectTypeOf(event).toEqualTypeOf<RetryEvent>(),
      random: () => 0.5,
      now: () => 0,
      timers: { setTimeout: (callback, ms) => setTimeout(callback, ms), clearTimeout: () => {} },
    } satisfies BackoffOptions;
    expectTypeOf(createBackoff(options)).toEqualTypeOf<Backoff>();
    expectTypeOf(createBackoff()).toEqualTypeOf<Backoff>();
    // exactOptionalPropertyTypes: an explicit `undefined` keeps the default, so it must be allowed.
    createBackoff({ retries: undefined, budget: undefined, deadline: undefined });
    createBackoff({ budget: false, idempotencyKey: 'auto' });
    createBackoff({ budget: new RetryBudget() });
    expectTypeOf<Jitter>().toEqualTypeOf<'full' | 'equal' | 'decorrelated' | 'none'>();
  });

  it('rejects wrong option types and unknown names', () => {
    // @ts-expect-error `retries` is a number
    createBackoff({ retries: '3' });
    // @ts-expect-error not a jitter
    createBackoff({ jitter: 'half' });
    // @ts-expect-error `idempotencyKey` is 'auto', a function or false, not true
    createBackoff({ idempotencyKey: true });
    // @ts-expect-error `budget` is a RetryBudget, its options or false, not true
    createBackoff({ budget: true });
    // @ts-expect-error a typo of `retries`
    createBackoff({ retry: 3 });
    // @ts-expect-error `shouldRetry` returns boolean | undefined
    createBackoff({ shouldRetry: () => 'yes' });
    // @ts-expect-error `statusCodes` are numbers
    createBackoff({ statusCodes: ['503'] });
    // @ts-expect-error budget options are `reserve` and `ratio`
    new RetryBudget({ size: 10 });
  });

  it("refuses a peer's option name, in a fresh literal or a variable, with the advice in the type", () => {
    // As a switcher writes them: each is an error, whatever the value, with no implicit `any` besides.
    // @ts-expect-error axios-retry's name: use `shouldRetry`
    createBackoff({ retryCondition: (error) => error.response?.status !== 200 });
    // @ts-expect-error axios-retry's and retry-axios's name: use `delay` or `baseDelay`
    createBackoff({ retryDelay: (retryCount) => retryCount * 1000 });
    // @ts-expect-error ky's name: use `retries`
    createBackoff({ limit: 3 });
    // @ts-expect-error ky's name: use `maxDelay`
    createBackoff({ backoffLimit: Number.POSITIVE_INFINITY });
    // @ts-expect-error retry-axios's name: use `onRetry`
    createBackoff({ onRetryAttempt: async (error) => console.warn(error) });
    // @ts-expect-error retry-axios's name: use `methods`
    createBackoff({ httpMethodsToRetry: ['GET'] });
    // @ts-expect-error retry-axios's config key
    createBackoff({ raxConfig: { retry: 3 } });
    // @ts-expect-error axios-retry's config key
    createBackoff({ 'axios-retry': { retries: 0 } });
    // @ts-expect-error exponential-backoff's name: use `retries`
    createBackoff({ numOfAttempts: 5 });
    // A variable is no fresh literal, so no excess-property check saves it: the peer property does.
    const kept = { retries: 3, retryCondition: () => true };
    // @ts-expect-error `retryCondition` fits no value
    createBackoff(kept);
    // The advice is the type's argument: the editor's message says what to write.
    expectTypeOf<NonNullable<BackoffOptions['retryCondition']>>().toEqualTypeOf<
      Renamed<"axios-retry's name: use `shouldRetry`, asked about failures only">
    >();
    expectTypeOf<NonNullable<BackoffOptions['limit']>>().toEqualTypeOf<
      Renamed<"ky's and got's name: use `retries`">
    >();
  });

  it('leaves every real option its own type', () => {
    expectTypeOf<BackoffOptions['retries']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<BackoffOptions['maxDelay']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<BackoffOptions['jitter']>().toEqualTypeOf<Jitter | undefined>();
    expectTypeOf<BackoffOptions['statusCodes']>().toEqualTypeOf<readonly number[] | undefined>();
    // Infinity is a number: "no limit" type-checks where the runtime accepts it.
    createBackoff({ maxDelay: Number.POSITIVE_INFINITY, maxRetryAfter: Number.POSITIVE_INFINITY });
  });

  it('gives `shouldRetry` the outcome and the default verdict', () => {
    createBackoff({
      shouldRetry: (context) => {
        expectTypeOf(context).toEqualTypeOf<ShouldRetryContext>();
        expectTypeOf(context.attempt).toBeNumber();
        expectTypeOf(context.status).toEqualTypeOf<number | undefined>();
        expectTypeOf(context.retryable).toBeBoolean();
        expectTypeOf(context.outcome).toEqualTypeOf<Outcome>();
        return undefined;
      },
    });
  });
});

describe('events', () => {
  it('passes `onRetry` a RetryEvent with every documented field', () => {
    expectTypeOf<RetryEvent>().toEqualTypeOf<{
      readonly retry: number;
      readonly retries: number;
      readonly delay: number;
      readonly serverDelay: number | undefined;
      readonly reason: RetryReason;
      readonly method: string;
      readonly url: string | undefined;
      readonly status: number | undefined;
      readonly error: unknown;
      readonly waitingForNetwork: boolean;
    }>();
    expectTypeOf<RetryReason>().toEqualTypeOf<
      | 'status'
      | 'idempotency-conflict'
      | 'payload-too-large-with-timing'
      | 'network-error'
      | 'not-sent'
      | 'timeout'
      | 'should-retry-header'
      | 'should-retry'
    >();
  });
});

describe('decisions and the call', () => {
  it('narrows a Decision on `retry`', async () => {
    const call = startCall(createBackoff(), {
      method: 'POST',
      url: '/x',
      headers: { 'idempotency-key': '"k"' },
    });
    expectTypeOf(call).toEqualTypeOf<Call>();
    // A Promise only when `shouldRetry` returns one.
    const made = decide(call, { type: 'response', status: 503, headers: new Headers() });
    expectTypeOf(made).toEqualTypeOf<Decision | Promise<Decision>>();
    const decision = await made;
    expectTypeOf(decision).toEqualTypeOf<Decision>();
    if (decision.retry) {
      expectTypeOf(decision.delay).toBeNumber();
      expectTypeOf(decision.reason).toEqualTypeOf<RetryReason>();
    } else {
      expectTypeOf(decision.reason).toEqualTypeOf<StopReason>();
      // @ts-expect-error a stop has no delay
      decision.delay;
    }
    expectTypeOf(decide).parameter(2).toEqualTypeOf<AbortSignal | undefined>();
  });

  it('types an outcome: a response, or an error of a known kind', () => {
    expectTypeOf<ErrorKind>().toEqualTypeOf<
      'network' | 'not-sent' | 'timeout' | 'abort' | 'tls' | 'unknown'
    >();
    const call = startCall(createBackoff());
    decide(call, { type: 'error', kind: 'network', error: new TypeError('fetch failed') });
    // @ts-expect-error not an error kind
    decide(call, { type: 'error', kind: 'dns', error: null });
    // @ts-expect-error a response needs its status
    decide(call, { type: 'response' });
  });
});

describe('results on responses and errors', () => {
  it('reads a BackoffResult from anything', () => {
    expectTypeOf(getBackoffResult).parameter(0).toBeUnknown();
    expectTypeOf(getBackoffResult(new Response())).toEqualTypeOf<BackoffResult | undefined>();
    expectTypeOf<BackoffResult>().toEqualTypeOf<{
      readonly attempts: number;
      readonly totalDelay: number;
      readonly reason: StopReason | RetryReason;
      readonly serverDelay: number | undefined;
      readonly hedges: number;
      readonly hedgeWon: boolean;
      readonly held?: number;
      readonly resumes?: number;
    }>();
  });
});

describe('withBackoff and parseRetryAfter', () => {
  it('is a fetch with a per-request `backoff` override', async () => {
    const fetchWithBackoff = withBackoff(fetch, { retries: 2 });
    expectTypeOf(fetchWithBackoff).toEqualTypeOf<FetchWithBackoff>();
    expectTypeOf(fetchWithBackoff.backoff).toEqualTypeOf<Backoff>();
    expectTypeOf(await fetchWithBackoff('https://example.test')).toEqualTypeOf<Response>();
    await fetchWithBackoff(new URL('https://example.test'), { backoff: { retries: 1 }, method: 'PUT' });
    await fetchWithBackoff('https://example.test', { backoff: false });
    // @ts-expect-error `backoff` is options or false
    await fetchWithBackoff('https://example.test', { backoff: true });
    // @ts-expect-error the wrapped function must be fetch-like
    withBackoff((url: number) => url);
  });

  it('returns milliseconds or undefined', () => {
    expectTypeOf(parseRetryAfter(new Headers(), Date.now())).toEqualTypeOf<number | undefined>();
    expectTypeOf(parseRetryAfter({ 'Retry-After': ['1', '2'] })).toEqualTypeOf<number | undefined>();
    expectTypeOf(parseRetryAfter((name) => (name === 'retry-after' ? '1' : undefined))).toEqualTypeOf<
      number | undefined
    >();
  });
});

describe('circuit breaker and metrics', () => {
  it('take instances or false; true and plain options are compile-time errors', () => {
    const breaker = new CircuitBreaker({ consecutiveFailures: 3, onStateChange: ({ to }) => void to });
    const metrics = new BackoffMetrics();
    createBackoff({ circuitBreaker: breaker, metrics });
    createBackoff({ circuitBreaker: false, metrics: false });
    // @ts-expect-error: `true` would make every bundle carry the breaker; pass `new CircuitBreaker()`.
    createBackoff({ circuitBreaker: true });
    // @ts-expect-error: options go to the constructor.
    createBackoff({ circuitBreaker: { consecutiveFailures: 3 } });
    // @ts-expect-error: not a BackoffMetrics.
    createBackoff({ metrics: {} });
  });

  it('types the snapshot, the error and the state', () => {
    expectTypeOf(new BackoffMetrics().snapshot()).toEqualTypeOf<BackoffMetricsSnapshot>();
    expectTypeOf(new BackoffMetrics().snapshot().stops).toEqualTypeOf<Readonly<Record<string, number>>>();
    expectTypeOf(new CircuitBreaker().toJSON()).toEqualTypeOf<CircuitBreakerSnapshot>();
    expectTypeOf(new CircuitBreaker().state('https://a.example', 0)).toEqualTypeOf<CircuitState>();
    expectTypeOf(new CircuitOpenError('https://a.example', 5).nextProbeIn).toBeNumber();
    expectTypeOf<'circuit-open'>().toExtend<StopReason>();
  });
});

describe("withBackoff's callbacks get fetch's own Response", () => {
  it('shouldRetry and delay read the Response without a cast', () => {
    withBackoff(fetch, {
      shouldRetry: async ({ response }) => {
        expectTypeOf(response).toEqualTypeOf<Response | undefined>();
        const body = (await response?.clone().json()) as { retry?: boolean } | undefined;
        return body?.retry;
      },
      delay: ({ response, computed }) => (response?.headers.get('x-busy') ? 5_000 : computed),
    });
    // A metrics instance where a breaker goes is refused by the types too.
    // @ts-expect-error: a BackoffMetrics is no CircuitBreaker.
    createBackoff({ circuitBreaker: new BackoffMetrics() });
  });
});
