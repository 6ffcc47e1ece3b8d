import axios from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, type BackoffResult, getBackoffResult, withBackoff } from 'backoff-core';
import ky, { HTTPError } from 'ky';
import { kyBackoff } from 'ky-backoff';
import { FLAKY_URL } from './flaky-api.js';

export type DemoClient = 'fetch' | 'axios-xhr' | 'axios-fetch' | 'ky';

/** How a call ended, in the page's words. */
export interface CallOutcome {
  readonly kind: 'success' | 'failure' | 'cancelled';
  /** What the caller got: the body's message, the HTTP status, or the client's own error. */
  readonly detail: string;
  readonly result: BackoffResult | undefined;
}

const errorText = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** GET the flaky endpoint once, with retries: each client set up the way its README says. */
export async function callFlaky(
  client: DemoClient,
  options: BackoffOptions,
  signal: AbortSignal,
): Promise<CallOutcome> {
  // A fresh client per press, so the page's settings apply; an app makes one and shares it (and its budget).
  switch (client) {
    case 'fetch': {
      const fetchWithBackoff = withBackoff(fetch, options);
      try {
        const response = await fetchWithBackoff(FLAKY_URL, { signal });
        const result = getBackoffResult(response);
        if (!response.ok) return { kind: 'failure', detail: `HTTP ${response.status}`, result };
        const { message } = (await response.json()) as { message: string };
        return { kind: 'success', detail: `${response.status} ${message}`, result };
      } catch (error) {
        const cancelled = error instanceof DOMException && error.name === 'AbortError';
        return {
          kind: cancelled ? 'cancelled' : 'failure',
          detail: errorText(error),
          result: getBackoffResult(error),
        };
      }
    }
    case 'axios-xhr':
    case 'axios-fetch': {
      const instance = axios.create({ adapter: client === 'axios-xhr' ? 'xhr' : 'fetch' });
      axiosBackoff(instance, options);
      try {
        const response = await instance.get<{ message: string }>(FLAKY_URL, { signal });
        return {
          kind: 'success',
          detail: `${response.status} ${response.data.message}`,
          result: getBackoffResult(response),
        };
      } catch (error) {
        const result = getBackoffResult(error);
        if (axios.isCancel(error)) return { kind: 'cancelled', detail: errorText(error), result };
        const status = axios.isAxiosError(error) ? error.response?.status : undefined;
        return { kind: 'failure', detail: status ? `HTTP ${status}` : errorText(error), result };
      }
    }
    case 'ky': {
      const api = kyBackoff(ky, options);
      try {
        const response = await api(FLAKY_URL, { signal });
        const { message } = await response.json<{ message: string }>();
        return {
          kind: 'success',
          detail: `${response.status} ${message}`,
          result: getBackoffResult(response),
        };
      } catch (error) {
        const result = getBackoffResult(error);
        if (error instanceof HTTPError)
          return { kind: 'failure', detail: `HTTP ${error.response.status}`, result };
        const cancelled = error instanceof DOMException && error.name === 'AbortError';
        return { kind: cancelled ? 'cancelled' : 'failure', detail: errorText(error), result };
      }
    }
  }
}
