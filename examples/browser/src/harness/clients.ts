import axios, { type AxiosAdapter, type AxiosResponse } from 'axios';
import { axiosBackoff } from 'axios-backoff';
import { type BackoffOptions, getBackoffResult, withBackoff } from 'backoff-core';
import ky, { HTTPError, NetworkError, TimeoutError } from 'ky';
import { kyBackoff } from 'ky-backoff';
import type { ClientName, ErrorKindSeen, PageRequest, Settled } from './types.js';

/** A client against `baseUrl`; `options` undefined means the plain client, without backoff. */
export interface PageClient {
  send(request: PageRequest): Promise<Settled>;
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function bodyInit(request: PageRequest): { headers: Record<string, string>; body?: string } {
  if (request.json !== undefined) {
    return {
      headers: { 'content-type': 'application/json', ...request.headers },
      body: JSON.stringify(request.json),
    };
  }
  return { headers: { ...request.headers }, ...(request.text === undefined ? {} : { body: request.text }) };
}

/**
 * Called, synchronously, as each attempt (each hedged copy too) is handed to the browser (before any await), with
 * the signal it goes with.
 */
export type OnAttempt = (signal: AbortSignal | undefined) => void;

const countingFetch =
  (onAttempt: OnAttempt | undefined): typeof fetch =>
  (input, init) => {
    onAttempt?.(init?.signal ?? (input instanceof Request ? input.signal : undefined));
    return fetch(input, init);
  };

/** withBackoff over the page's own fetch: a final 503 resolves, errors are fetch's (TypeError, AbortError). */
function fetchClient(
  baseUrl: string,
  options: BackoffOptions | undefined,
  onAttempt?: OnAttempt,
): PageClient {
  const send = options === undefined ? undefined : withBackoff(countingFetch(onAttempt), options);
  const errorKind = (error: unknown): ErrorKindSeen => {
    if (error instanceof DOMException && error.name === 'AbortError') return 'abort';
    if (error instanceof TypeError) return 'network';
    return 'other';
  };
  return {
    async send(request) {
      const { headers, body } = bodyInit(request);
      const init = {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(request.signal ? { signal: request.signal } : {}),
      };
      try {
        const response = send
          ? await send(`${baseUrl}${request.path}`, {
              ...init,
              ...(request.backoff === undefined ? {} : { backoff: request.backoff }),
            })
          : await countingFetch(onAttempt)(`${baseUrl}${request.path}`, init);
        await response.text();
        return { ok: true, status: response.status, result: getBackoffResult(response) };
      } catch (error) {
        return {
          ok: false,
          status: undefined,
          errorKind: errorKind(error),
          error: describeError(error),
          result: getBackoffResult(error),
        };
      }
    },
  };
}

/** axios with one of its browser adapters; axios-backoff installed unless `options` is undefined. */
function axiosClient(
  baseUrl: string,
  adapter: 'xhr' | 'fetch',
  options: BackoffOptions | undefined,
  onAttempt?: OnAttempt,
): PageClient {
  const real = axios.getAdapter(adapter);
  const counted: AxiosAdapter = (config) => {
    onAttempt?.(config.signal instanceof AbortSignal ? config.signal : undefined);
    return real(config);
  };
  const instance = axios.create({ baseURL: baseUrl, adapter: onAttempt ? counted : adapter });
  if (options !== undefined) axiosBackoff(instance, options);
  const errorKind = (error: unknown): ErrorKindSeen => {
    if (axios.isCancel(error)) return 'abort';
    if (!axios.isAxiosError(error)) return 'other';
    if (error.response !== undefined) return 'http';
    if (error.code === 'ECONNABORTED' || error.code === 'ETIMEDOUT') return 'timeout';
    return 'network';
  };
  return {
    async send(request) {
      const { headers, body } = bodyInit(request);
      try {
        const response: AxiosResponse = await instance.request({
          method: request.method,
          url: request.path,
          headers,
          // Sent as the string it is: axios would otherwise add its own JSON content type to an object.
          ...(body === undefined ? {} : { data: body }),
          ...(request.signal === undefined ? {} : { signal: request.signal }),
          ...(request.backoff === undefined ? {} : { backoff: request.backoff }),
        });
        return { ok: true, status: response.status, result: getBackoffResult(response) };
      } catch (error) {
        return {
          ok: false,
          status: axios.isAxiosError(error) ? error.response?.status : undefined,
          errorKind: errorKind(error),
          error: describeError(error),
          result: getBackoffResult(error),
        };
      }
    },
  };
}

/** ky 2 with kyBackoff unless `options` is undefined (then ky's own retries are off, for a plain baseline). */
function kyClient(baseUrl: string, options: BackoffOptions | undefined, onAttempt?: OnAttempt): PageClient {
  const fetch = countingFetch(onAttempt);
  const api =
    options === undefined ? ky.create({ retry: 0, fetch }) : kyBackoff(ky.create({ fetch }), options);
  const errorKind = (error: unknown): ErrorKindSeen => {
    if (error instanceof HTTPError) return 'http';
    if (error instanceof TimeoutError) return 'timeout';
    if (error instanceof NetworkError) return 'network';
    if (error instanceof DOMException && error.name === 'AbortError') return 'abort';
    return 'other';
  };
  return {
    async send(request) {
      const { headers, body } = bodyInit(request);
      try {
        const response = await api(`${baseUrl}${request.path}`, {
          method: request.method,
          headers,
          ...(body === undefined ? {} : { body }),
          ...(request.signal === undefined ? {} : { signal: request.signal }),
          ...(request.backoff === undefined ? {} : { backoff: request.backoff }),
        });
        await response.text();
        return { ok: true, status: response.status, result: getBackoffResult(response) };
      } catch (error) {
        return {
          ok: false,
          status: error instanceof HTTPError ? error.response.status : undefined,
          errorKind: errorKind(error),
          error: describeError(error),
          result: getBackoffResult(error),
        };
      }
    },
  };
}

/**
 * The named client against `baseUrl`, with backoff on `options`, or plain when `options` is undefined.
 * `onAttempt` sees each attempt leave, through the client's own transport (fetch, or axios's adapter).
 */
export function createClient(
  name: ClientName,
  baseUrl: string,
  options: BackoffOptions | undefined,
  onAttempt?: OnAttempt,
): PageClient {
  switch (name) {
    case 'withBackoff':
      return fetchClient(baseUrl, options, onAttempt);
    case 'axios-xhr':
      return axiosClient(baseUrl, 'xhr', options, onAttempt);
    case 'axios-fetch':
      return axiosClient(baseUrl, 'fetch', options, onAttempt);
    case 'ky':
      return kyClient(baseUrl, options, onAttempt);
  }
}
