import { Agent } from 'node:http';
import { axiosRequestOptions, axiosResponseBody, type Settled } from '@backoff/test-utils';
import axios, { type AxiosError } from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { getBackoffResult } from 'backoff-core';
import type { FaultDriver } from '../driver.js';

/** axios with one of its Node adapters; `http` gets a keep-alive agent of its own, freed by `close()`. */
export function axiosDriver(adapter: 'http' | 'fetch'): FaultDriver {
  return {
    name: `axios ${axios.VERSION} (${adapter} adapter)`,
    rejectsOnHttpError: true,
    bodyInAttempt: true,
    create(baseURL, options, transport = {}) {
      const agent = adapter === 'http' ? new Agent({ keepAlive: true }) : undefined;
      const instance = axios.create({
        baseURL,
        adapter,
        // The body is read as text: a fault's body is no JSON.
        responseType: 'text',
        ...(agent === undefined ? {} : { httpAgent: agent }),
        ...(transport.timeout === undefined ? {} : { timeout: transport.timeout }),
      });
      axiosBackoff(instance, options);
      return {
        async send(request): Promise<Settled> {
          try {
            const response = await instance.request(axiosRequestOptions(request));
            return { ok: true, status: response.status, result: getBackoffResult(response) };
          } catch (error) {
            const status = axios.isAxiosError(error) ? error.response?.status : undefined;
            return { ok: false, error, status, result: getBackoffResult(error) };
          }
        },
        close: () => agent?.destroy(),
      };
    },
    readBody: axiosResponseBody,
    errorKind(error) {
      if (axios.isCancel(error)) return 'abort';
      if (!axios.isAxiosError(error)) return 'other';
      const { code, response } = error as AxiosError;
      // A 200 whose body was cut short also arrives with its response: that is no HTTP error.
      if (response !== undefined && (response.status < 200 || response.status > 299)) return 'http';
      if (code === 'ECONNABORTED' || code === 'ETIMEDOUT') return 'timeout';
      return 'network';
    },
    isOwnError: (error) => axios.isAxiosError(error) || axios.isCancel(error),
  };
}
