// Type tests, checked by vitest's typechecker and by the package's `typecheck` (tsc). Nothing here runs. Each
// `@ts-expect-error` asserts that a misuse is a compile-time error.
import ky, { type HTTPError, type KyInstance, type KyResponse, type Options } from 'ky';
import ky1 from 'ky-1';
import {
  type BackoffOptions,
  type BackoffResult,
  getBackoffResult,
  type KyBackoffOptions,
  type KyBackoffRequestOptions,
  kyBackoff,
  RetryBudget,
  type RetryEvent,
} from 'ky-backoff';
import { describe, expectTypeOf, it } from 'vitest';

describe('kyBackoff', () => {
  it('returns the type of the instance it was given, for either major', () => {
    expectTypeOf(kyBackoff(ky)).toEqualTypeOf<KyInstance>();
    expectTypeOf(kyBackoff(ky1)).toEqualTypeOf<typeof ky1>();
    expectTypeOf(kyBackoff(ky.create({ timeout: 1 }), { retries: 1 })).toEqualTypeOf<KyInstance>();
    expectTypeOf(kyBackoff(ky.extend({ prefix: 'https://example.test' }))).toEqualTypeOf<KyInstance>();
    expectTypeOf<KyBackoffOptions>().toEqualTypeOf<BackoffOptions<Response, Error>>();
  });

  it('takes the shared options, a shared budget and onRetry', () => {
    const budget = new RetryBudget({ reserve: 50, ratio: 0.1 });
    kyBackoff(ky, { budget, deadline: 20_000, idempotencyKey: 'auto' });
    kyBackoff(ky, { onRetry: (event) => expectTypeOf(event).toEqualTypeOf<RetryEvent<Error>>() });
  });

  it("shouldRetry and delay read fetch's Response and ky's errors without a cast", () => {
    kyBackoff(ky, {
      shouldRetry: async ({ response, error }) => {
        expectTypeOf(response).toEqualTypeOf<Response | undefined>();
        expectTypeOf(error).toEqualTypeOf<Error | undefined>();
        const body = (await response?.clone().json()) as { code?: string } | undefined;
        return body?.code === 'busy' || error?.name === 'TimeoutError';
      },
      delay: ({ response, computed }) => (response?.status === 503 ? 2_000 : computed),
    });
  });

  it('rejects what is not a ky instance, and bad options, at compile time', () => {
    // @ts-expect-error not a ky instance
    kyBackoff({});
    // @ts-expect-error not an option
    kyBackoff(ky, { retriez: 1 });
    // @ts-expect-error ky's own `limit` is no backoff option
    kyBackoff(ky, { limit: 2 });
    // @ts-expect-error option values are checked
    kyBackoff(ky, { jitter: true });
  });
});

describe('per-request `backoff` (module augmentation of ky)', () => {
  it('types `backoff` in ky’s options: requests, create, extend', () => {
    const api = kyBackoff(ky);
    expectTypeOf<Options['backoff']>().toEqualTypeOf<KyBackoffRequestOptions['backoff']>();
    expectTypeOf<KyBackoffRequestOptions['backoff']>().toEqualTypeOf<KyBackoffOptions | false | undefined>();
    api.get('https://example.test', { backoff: { retries: 1, jitter: 'none' } });
    api.post('https://example.test', { backoff: false, json: {} });
    api.extend({ backoff: { maxDelay: 5_000 } });
    ky.create({ backoff: { retries: 0 } });
    const options: Options & KyBackoffRequestOptions = { method: 'put', backoff: { deadline: 1_000 } };
    api('https://example.test', options);
  });

  it('rejects what is not an override', () => {
    const api = kyBackoff(ky);
    // @ts-expect-error not a backoff option
    api.get('https://example.test', { backoff: { retriez: 1 } });
    // @ts-expect-error `true` is not an override
    api.get('https://example.test', { backoff: true });
    // @ts-expect-error option values are checked per request too
    api.get('https://example.test', { backoff: { retries: '1' } });
  });

  it("refuses ky's `retry` field names as backoff options, kyBackoff's or a request's", () => {
    const api = kyBackoff(ky);
    // @ts-expect-error ky's `backoffLimit`: use `maxDelay`
    kyBackoff(ky, { backoffLimit: 10_000 });
    // @ts-expect-error ky's `afterStatusCodes`: timing headers are read on every retried status
    kyBackoff(ky, { afterStatusCodes: [429] });
    // @ts-expect-error ky's `totalTimeout`: use `deadline`
    api.get('https://example.test', { backoff: { totalTimeout: 5_000 } });
    // ky's own `retry` keeps ky's types: these are ky's fields, mapped by kyBackoff.
    api.get('https://example.test', {
      retry: { limit: 3, backoffLimit: Number.POSITIVE_INFINITY, jitter: true },
    });
  });
});

describe('the result on responses and errors', () => {
  it('is read with getBackoffResult from ky’s own response and errors', async () => {
    const response = await kyBackoff(ky).get('https://example.test');
    expectTypeOf(response).toEqualTypeOf<KyResponse>();
    expectTypeOf(getBackoffResult(response)).toEqualTypeOf<BackoffResult | undefined>();
    const error = {} as HTTPError;
    expectTypeOf(getBackoffResult(error)).toEqualTypeOf<BackoffResult | undefined>();
    expectTypeOf(getBackoffResult(new TypeError('fetch failed'))?.attempts).toEqualTypeOf<
      number | undefined
    >();
  });
});
