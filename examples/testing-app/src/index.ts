// The app under test: its HTTP clients, each set up with the app's retry policy, as an app would write them. The
// testing examples (../testing-vitest, ../testing-jest) test it as you would test yours: its tests give each client
// their clock (`time.options` of backoff-core/testing) and nothing else.
import axios, { type AxiosInstance } from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, type FetchWithBackoff, withBackoff } from 'backoff-core';
import ky, { type KyInstance } from 'ky';
import { kyBackoff } from 'ky-backoff';

export const API = 'https://api.example.test';

/** The app's retry policy: three retries, and a generated Idempotency-Key, so a POST may be sent again. */
export const RETRY_POLICY = {
  retries: 3,
  idempotencyKey: 'auto',
} as const satisfies BackoffOptions;

/** `fetch` with the app's retries; `test` adds what a test needs (its clock, `resume`). */
export function fetchClient(test: BackoffOptions = {}): FetchWithBackoff {
  return withBackoff(fetch, { ...RETRY_POLICY, ...test });
}

/** An axios instance with the app's retries. */
export function axiosClient(test: BackoffOptions = {}): AxiosInstance {
  const api = axios.create({ baseURL: API });
  axiosBackoff(api, { ...RETRY_POLICY, ...test });
  return api;
}

/** A ky instance with the app's retries. */
export function kyClient(test: BackoffOptions = {}): KyInstance {
  return kyBackoff(ky.create({ prefix: API }), { ...RETRY_POLICY, ...test });
}
