import {
  axiosRequestOptions,
  axiosResponseBody,
  type BackoffClientDriver,
  type Settled,
} from '@backoff/test-utils';
import type { AxiosError, AxiosResponse, AxiosStatic } from 'axios';
import { CircuitOpenError, getBackoffResult } from 'backoff-core';
import { expect } from 'vitest';
import { axiosBackoff } from '../../src/index.ts';

/** The adapters every axios version is tested with. */
export const ADAPTERS = ['http', 'fetch'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** The typed `backoff` property and `getBackoffResult` must always agree: read both. */
function resultOf(value: { backoff?: Settled['result'] } | undefined): Settled['result'] {
  expect(getBackoffResult(value)).toBe(value?.backoff);
  return value?.backoff;
}

/**
 * The response of a final AxiosError, where the caller finds it: `error.response`, or `error.cause.response`
 * with axios 1.13.4's fetch adapter, which re-wraps its status errors without their response.
 */
export function responseOfError(error: AxiosError): AxiosResponse | undefined {
  return error.response ?? (error.cause as AxiosError | undefined)?.response;
}

/** The shared behaviour suite's view of one axios module (the real `axios` of a version) and adapter. */
export function axiosDriver(ax: AxiosStatic, adapter: AdapterName): BackoffClientDriver {
  return {
    name: `axios ${ax.VERSION} (${adapter} adapter)`,
    rejectsOnHttpError: true,
    rejectsAbortedBeforeAdapter: true,
    create(baseUrl, options) {
      const instance = ax.create({ baseURL: baseUrl, adapter });
      axiosBackoff(instance, options);
      return {
        async send(request) {
          try {
            const response = await instance.request(axiosRequestOptions(request));
            return { ok: true, status: response.status, result: resultOf(response) };
          } catch (error) {
            const axiosError = ax.isAxiosError(error) ? error : undefined;
            return {
              ok: false,
              error,
              status: axiosError && responseOfError(axiosError)?.status,
              // A callback's own error reaches the caller as it is, with the result on it.
              result: axiosError ? resultOf(axiosError) : getBackoffResult(error),
            };
          }
        },
      };
    },
    readBody: axiosResponseBody,
    circuitOpen(error) {
      // An AxiosError, so that interceptors see it; the core's error is its cause.
      if (!ax.isAxiosError(error) || error.code !== 'ERR_CIRCUIT_OPEN') return undefined;
      return error.cause instanceof CircuitOpenError ? error.cause : undefined;
    },
    errorKind(error) {
      if (ax.isCancel(error)) return 'abort';
      if (!ax.isAxiosError(error)) return 'other';
      if (responseOfError(error) !== undefined) return 'http';
      if (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT') return 'timeout';
      return 'network';
    },
  };
}
