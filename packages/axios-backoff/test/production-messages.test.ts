// A production build (NODE_ENV=production) keeps every check, error class and code, with a short message: the
// option, what it got, and the link to the code's explanation in docs/errors.md. Nothing here reaches a server:
// each request fails unsent.
import axios, { type AxiosError } from 'axios';
import axiosRetry from 'axios-retry';
import * as rax from 'retry-axios';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { axiosBackoff } from '../src/index.ts';

const DOCS = 'https://github.com/backoff/backoff/blob/main/docs/errors.md';
const short = (name: string, got: string, code: string) =>
  `\`${name}\` got ${got} (${code}): ${DOCS}#${code}`;
// A port nothing listens on: the requests below must fail before they are sent.
const URL = 'http://127.0.0.1:9/items';

beforeEach(() => {
  vi.stubEnv('NODE_ENV', 'production');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the request resolved'),
    (error: unknown) => error as AxiosError,
  );

describe('axios-backoff in production: short messages, the same errors', () => {
  it('not an axios instance (not-a-client)', () => {
    expect(() => axiosBackoff({} as never)).toThrow(
      new TypeError(short('instance', 'an object', 'not-a-client')),
    );
  });

  it('installed twice (already-installed)', () => {
    const instance = axios.create();
    axiosBackoff(instance);
    expect(() => axiosBackoff(instance)).toThrow(
      new Error(short('instance', 'a function', 'already-installed')),
    );
  });

  it('a bad option, through the core (bad-option, unknown-option)', () => {
    expect(() => axiosBackoff(axios.create(), { retries: -1 })).toThrow(
      new RangeError(short('retries', '-1', 'bad-option')),
    );
    expect(() => axiosBackoff(axios.create(), { retryCondition: () => true } as never)).toThrow(
      new TypeError(short('retryCondition', 'a function', 'unknown-option')),
    );
  });

  it('attemptTimeout at install (attempt-timeout)', () => {
    expect(() => axiosBackoff(axios.create(), { attemptTimeout: 200 })).toThrow(
      new TypeError(short('attemptTimeout', '200', 'attempt-timeout')),
    );
  });

  it('a peer still attached (peer-attached), for axios-retry and retry-axios', () => {
    const withRetry = axios.create();
    axiosRetry(withRetry as never);
    expect(() => axiosBackoff(withRetry)).toThrow(
      new Error(short('instance', '"axios-retry"', 'peer-attached')),
    );
    const withRax = axios.create();
    rax.attach(withRax as never);
    expect(() => axiosBackoff(withRax)).toThrow(new Error(short('instance', '"raxConfig"', 'peer-attached')));
  });

  it("a request with a peer's settings fails unsent, an AxiosError 'ERR_BAD_OPTION' (peer-settings)", async () => {
    const instance = axios.create();
    axiosBackoff(instance);
    const error = await rejection(instance.get(URL, { 'axios-retry': { retries: 0 } } as never));
    expect(axios.isAxiosError(error)).toBe(true);
    expect(error.code).toBe('ERR_BAD_OPTION');
    expect(error.message).toBe(`Not sent: ${short("config['axios-retry']", 'an object', 'peer-settings')}`);
    const rax = await rejection(instance.get(URL, { raxConfig: { retry: 0 } } as never));
    expect(rax.message).toBe(`Not sent: ${short('config.raxConfig', 'an object', 'peer-settings')}`);
  });

  it("a request's attemptTimeout fails unsent (attempt-timeout)", async () => {
    const instance = axios.create();
    axiosBackoff(instance);
    const error = await rejection(instance.get(URL, { backoff: { attemptTimeout: 200 } }));
    expect(error.code).toBe('ERR_BAD_OPTION');
    expect(error.message).toBe(`Not sent: ${short('attemptTimeout', '200', 'attempt-timeout')}`);
  });

  it("a request's bad `backoff` (bad-option)", async () => {
    const instance = axios.create();
    axiosBackoff(instance);
    const error = await rejection(instance.get(URL, { backoff: 5 as never }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(short('config.backoff', '5', 'bad-option'));
    const option = await rejection(instance.get(URL, { backoff: { retries: 500 } }));
    expect(option).toBeInstanceOf(RangeError);
    expect(option.message).toBe(short('retries', '500', 'bad-option'));
  });

  it('a request whose Idempotency-Key cannot be sent fails unsent, through the core (bad-key)', async () => {
    const instance = axios.create();
    axiosBackoff(instance);
    const error = await rejection(instance.post(URL, {}, { headers: { 'Idempotency-Key': 'café' } }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(short('Idempotency-Key', '"café"', 'bad-key'));
  });
});
