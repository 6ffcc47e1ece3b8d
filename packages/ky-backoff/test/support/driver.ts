import {
  type BackoffClientDriver,
  type ErrorKindSeen,
  fetchResponseBody,
  kyRequestOptions,
  type Settled,
} from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { kyBackoff } from 'ky-backoff';
import type { KyClient, LooseKy } from './clients.ts';

/** Classifies a final error by this ky copy's own classes: `instanceof`, as a caller would. */
export function kyErrorKind(client: KyClient, error: unknown): ErrorKindSeen {
  if (error instanceof client.HTTPError) return 'http';
  if (error instanceof client.TimeoutError) return 'timeout';
  if (client.NetworkError ? error instanceof client.NetworkError : error instanceof TypeError)
    return 'network';
  if (error instanceof DOMException && error.name === 'AbortError') return 'abort';
  return 'other';
}

/** ky's HTTPError carries the response; nothing else does. */
function statusOf(error: unknown): number | undefined {
  const response = (error as { response?: unknown } | null)?.response;
  return response instanceof Response ? response.status : undefined;
}

/**
 * The shared suite's driver for one ky. With `throwHttpErrors: false` a final 503 resolves, as fetch's does, and
 * every retry rule must still hold.
 */
export function kyDriver(client: KyClient, throwHttpErrors = true): BackoffClientDriver {
  return {
    name: throwHttpErrors ? client.name : `${client.name}, throwHttpErrors: false`,
    rejectsOnHttpError: throwHttpErrors,
    create(baseUrl, options) {
      const api = kyBackoff(client.ky.create({ throwHttpErrors }), options) as LooseKy;
      return {
        async send(request): Promise<Settled> {
          const { path } = request;
          const init = kyRequestOptions(request);
          try {
            const response = await api(`${baseUrl}${path}`, init);
            await response.text();
            return { ok: true, status: response.status, result: getBackoffResult(response) };
          } catch (error) {
            return { ok: false, error, status: statusOf(error), result: getBackoffResult(error) };
          }
        },
      };
    },
    readBody: fetchResponseBody,
    errorKind: (error) => kyErrorKind(client, error),
  };
}
