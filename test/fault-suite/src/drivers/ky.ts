import { type ErrorKindSeen, fetchResponseBody, kyRequestOptions, type Settled } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import ky, { HTTPError, NetworkError, TimeoutError } from 'ky';
import ky1, { HTTPError as HTTPError1, TimeoutError as TimeoutError1 } from 'ky-1';
import { kyBackoff } from 'ky-backoff';
import type { FaultDriver } from '../driver.js';

type ErrorClass = abstract new (...args: never[]) => Error;

/** The two majors' instances have different types; the tests call them the same way. */
type LooseKy = ((input: string, options?: Record<string, unknown>) => Promise<Response>) & {
  create(options?: Record<string, unknown>): LooseKy;
};

interface KyCopy {
  readonly name: string;
  readonly ky: LooseKy;
  readonly HTTPError: ErrorClass;
  /** ky 2's NetworkError; ky 1 rejects with fetch's own TypeError. */
  readonly NetworkError: ErrorClass | undefined;
  readonly TimeoutError: ErrorClass;
}

const KY2: KyCopy = { name: 'ky 2.1.0', ky: ky as unknown as LooseKy, HTTPError, NetworkError, TimeoutError };
const KY1: KyCopy = {
  name: 'ky 1.14.3',
  ky: ky1 as unknown as LooseKy,
  HTTPError: HTTPError1,
  NetworkError: undefined,
  TimeoutError: TimeoutError1,
};

function statusOf(error: unknown): number | undefined {
  const response = (error as { response?: unknown } | null)?.response;
  return response instanceof Response ? response.status : undefined;
}

function driver(copy: KyCopy): FaultDriver {
  const errorKind = (error: unknown): ErrorKindSeen => {
    if (error instanceof copy.HTTPError) return 'http';
    if (error instanceof copy.TimeoutError) return 'timeout';
    if (copy.NetworkError ? error instanceof copy.NetworkError : error instanceof TypeError) return 'network';
    if (error instanceof DOMException && error.name === 'AbortError') return 'abort';
    return 'other';
  };
  return {
    name: copy.name,
    rejectsOnHttpError: true,
    bodyInAttempt: false,
    create(baseUrl, options, transport = {}) {
      const base = copy.ky.create(transport.timeout === undefined ? {} : { timeout: transport.timeout });
      const api = kyBackoff(base as never, options) as unknown as LooseKy;
      return {
        async send(request): Promise<Settled> {
          const { path } = request;
          const init = kyRequestOptions(request);
          let response: Response;
          try {
            response = await api(`${baseUrl}${path}`, init);
          } catch (error) {
            return { ok: false, error, status: statusOf(error), result: getBackoffResult(error) };
          }
          const result = getBackoffResult(response);
          try {
            await response.text();
          } catch (error) {
            return { ok: false, error, status: response.status, result };
          }
          return { ok: true, status: response.status, result };
        },
        close: () => {},
      };
    },
    errorKind,
    readBody: fetchResponseBody,
    isOwnError: (error) => errorKind(error) !== 'other',
  };
}

/** ky 2 (the `ky` package) and ky 1 (the `ky-1` alias, as ky-backoff's own tests name it). */
export const ky2Driver = driver(KY2);
export const ky1Driver = driver(KY1);
