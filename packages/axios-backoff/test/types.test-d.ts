// Type tests, checked by vitest's typechecker and by the package's `typecheck` (tsc) against axios 1.21.1 and,
// through tsconfig.types-1.13.json, against axios 1.13.4's types. Nothing here runs. Each `@ts-expect-error`
// asserts that a misuse is a compile-time error.
import axios, { type AxiosError, type AxiosRequestConfig, type AxiosResponse } from 'axios';
import type { BackoffOptions, BackoffResult, RetryEvent } from 'backoff-core';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type AxiosBackoffOptions,
  axiosBackoff,
  DEFAULT_METHODS,
  getBackoffResult,
  type RemoveBackoff,
  RetryBudget,
} from '../src/index.ts';

describe('axiosBackoff', () => {
  it('installs on an instance or the default export, and returns the remover with the policy', () => {
    const instance = axios.create();
    const remove = axiosBackoff(instance, { retries: 2, jitter: 'equal' });
    expectTypeOf(remove).toEqualTypeOf<RemoveBackoff>();
    expectTypeOf(remove).returns.toBeVoid();
    expectTypeOf(remove.backoff.options.retries).toBeNumber();
    axiosBackoff();
    axiosBackoff(undefined, { deadline: 10_000 });
    axiosBackoff(axios, { budget: false });
    axiosBackoff(instance, {
      budget: new RetryBudget({ reserve: 50 }),
      methods: [...DEFAULT_METHODS, 'POST'],
    });
    expectTypeOf<AxiosBackoffOptions>().toEqualTypeOf<BackoffOptions<AxiosResponse, AxiosError>>();
  });

  it('checks the options', () => {
    // @ts-expect-error the options come second: the first argument is an axios instance
    axiosBackoff({ retries: 3 });
    // @ts-expect-error option values are checked at installation
    axiosBackoff(axios, { retries: '3' });
    // @ts-expect-error option names are checked at installation
    axiosBackoff(axios, { retryDelay: () => 0 });
    axiosBackoff(axios, { onRetry: (event) => expectTypeOf(event).toEqualTypeOf<RetryEvent<AxiosError>>() });
  });
});

describe("the callbacks get axios's own types", () => {
  it('shouldRetry, delay and onRetry read the AxiosResponse and the AxiosError without a cast', () => {
    axiosBackoff(axios, {
      shouldRetry: ({ response, error }) => {
        expectTypeOf(response).toEqualTypeOf<AxiosResponse | undefined>();
        expectTypeOf(error).toEqualTypeOf<AxiosError | undefined>();
        return response?.data.code === 'busy' || error?.code === 'ECONNRESET';
      },
      delay: ({ response, retry, computed }) => (response?.status === 503 ? retry * 250 : computed),
      onRetry: ({ error }) => console.log(error?.config?.url),
    });
    axios.get('/x', { backoff: { shouldRetry: ({ response }) => response?.headers['x-retry'] === 'yes' } });
  });
});

describe('config.backoff (module augmentation of axios)', () => {
  it('is an options object or false, on requests, instance defaults and axios.create', () => {
    const instance = axios.create({ backoff: { retries: 1 } });
    expectTypeOf<AxiosRequestConfig['backoff']>().toEqualTypeOf<AxiosBackoffOptions | false | undefined>();
    instance.get('/x', { backoff: false });
    instance.get('/x', { backoff: { retries: 0, idempotencyKey: 'auto' } });
    instance.post(
      '/x',
      { n: 1 },
      { backoff: { onRetry: (event) => expectTypeOf(event.delay).toBeNumber() } },
    );
    instance.request({ url: '/x', method: 'PUT', backoff: { deadline: 5_000 } });
    instance.defaults.backoff = { maxDelay: 5000 };
  });

  it('rejects what is not an override', () => {
    const instance = axios.create();
    // @ts-expect-error `backoff` is an options object or false, never true
    instance.get('/x', { backoff: true });
    // @ts-expect-error option names are checked
    instance.get('/x', { backoff: { retriez: 1 } });
    // @ts-expect-error option values are checked
    instance.get('/x', { backoff: { jitter: 'half' } });
  });

  it("refuses axios-retry's and retry-axios's option names, at installation and per request", () => {
    const instance = axios.create();
    // @ts-expect-error axios-retry's `retryCondition`: use `shouldRetry`
    axiosBackoff(instance, { retries: 3, retryCondition: (error) => error.code === 'ECONNABORTED' });
    // @ts-expect-error axios-retry's `retryDelay`: use `delay`
    axiosBackoff(instance, { retryDelay: (retryCount) => retryCount * 100 });
    // @ts-expect-error retry-axios's `onRetryAttempt`: use `onRetry`
    axiosBackoff(instance, { onRetryAttempt: async (error) => console.warn(error.message) });
    // @ts-expect-error retry-axios's `httpMethodsToRetry`: use `methods`
    instance.get('/x', { backoff: { httpMethodsToRetry: ['GET'] } });
    // @ts-expect-error retry-axios's `retry`: use `retries`
    instance.get('/x', { backoff: { retry: 0 } });
    // The options of an instance typed as ours still take a real option with the client's types.
    axiosBackoff(instance, { shouldRetry: ({ error }) => error?.code === 'ECONNABORTED' });
  });
});

describe('the result on responses and errors', () => {
  it('types response.backoff and error.backoff, and getBackoffResult', () => {
    const response = {} as AxiosResponse<{ id: number }>;
    expectTypeOf(response.backoff).toEqualTypeOf<BackoffResult | undefined>();
    expectTypeOf(response.data).toEqualTypeOf<{ id: number }>();
    const error = {} as AxiosError;
    expectTypeOf(error.backoff).toEqualTypeOf<BackoffResult | undefined>();
    expectTypeOf(getBackoffResult(error)).toEqualTypeOf<BackoffResult | undefined>();
    expectTypeOf(getBackoffResult(response)).toEqualTypeOf<BackoffResult | undefined>();
  });

  it('keeps axios.isAxiosError narrowing to an error that carries the result', () => {
    const caught: unknown = undefined;
    if (axios.isAxiosError(caught)) expectTypeOf(caught.backoff).toEqualTypeOf<BackoffResult | undefined>();
  });
});
