// Type tests: not run, only type-checked by `tsc -p tsconfig.test.json` (the package's `typecheck`, part of
// `pnpm test`), against axios 1.21.1 and, through tsconfig.types-1.13.json, against axios 1.13.4's types.
import axios, { type AxiosError, type AxiosResponse } from 'axios';
import type { BackoffOptions, BackoffResult } from 'backoff-core';
import { expectTypeOf } from 'vitest';
import { type AxiosBackoffOptions, axiosBackoff, getBackoffResult } from '../src/index.ts';

const instance = axios.create({ backoff: { retries: 1 } });
const remove = axiosBackoff(instance, { retries: 2, jitter: 'equal' });
remove();
expectTypeOf(remove.backoff.options.retries).toBeNumber();
axiosBackoff();
axiosBackoff(undefined, { deadline: 10_000 });
axiosBackoff(axios, { budget: false });

instance.get('/x', { backoff: false });
instance.get('/x', { backoff: { retries: 0, idempotencyKey: 'auto' } });
instance.post('/x', { n: 1 }, { backoff: { onRetry: (event) => expectTypeOf(event.delay).toBeNumber() } });
instance.defaults.backoff = { maxDelay: 5000 };

// @ts-expect-error `backoff` is an options object or false, never true
instance.get('/x', { backoff: true });
// @ts-expect-error option names are checked
instance.get('/x', { backoff: { retriez: 1 } });
// @ts-expect-error option values are checked
instance.get('/x', { backoff: { jitter: 'half' } });
// @ts-expect-error the options come second: the first argument is an axios instance
axiosBackoff({ retries: 3 });
// @ts-expect-error option values are checked at installation too
axiosBackoff(instance, { retries: '3' });

declare const response: AxiosResponse<{ id: number }>;
expectTypeOf(response.backoff).toEqualTypeOf<BackoffResult | undefined>();
expectTypeOf(response.data).toEqualTypeOf<{ id: number }>();
declare const error: AxiosError;
expectTypeOf(error.backoff).toEqualTypeOf<BackoffResult | undefined>();
expectTypeOf(getBackoffResult(error)).toEqualTypeOf<BackoffResult | undefined>();
expectTypeOf<AxiosBackoffOptions>().toEqualTypeOf<BackoffOptions>();
