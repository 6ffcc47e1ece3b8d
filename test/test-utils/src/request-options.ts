import type { BackoffOptions } from 'backoff-core';
import type { SuiteRequest } from './behaviour-suite.js';

/**
 * The options every client takes alike, with only the fields the request sets (exactOptionalPropertyTypes). A type,
 * not an interface, so that it also fits drivers that take options as `Record<string, unknown>`.
 */
type CommonOptions = {
  method: string;
  headers?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  backoff?: BackoffOptions | false;
};

function common({ method, headers, signal, backoff }: SuiteRequest): CommonOptions {
  return {
    method,
    ...(headers === undefined ? {} : { headers }),
    ...(signal === undefined ? {} : { signal }),
    ...(backoff === undefined ? {} : { backoff }),
  };
}

/** A suite request as axios request config: the JSON body as `data`, the path as `url` (against `baseURL`). */
export function axiosRequestOptions(request: SuiteRequest): CommonOptions & { url: string; data?: unknown } {
  return {
    ...common(request),
    url: request.path,
    ...(request.json === undefined ? {} : { data: request.json }),
  };
}

/** A suite request as ky options: the JSON body as ky's own `json` option. */
export function kyRequestOptions(request: SuiteRequest): CommonOptions & { json?: unknown } {
  return { ...common(request), ...(request.json === undefined ? {} : { json: request.json }) };
}

/** A suite request as fetch's init (plus `backoff`): the JSON body serialized, with its content-type. */
export function fetchRequestInit(request: SuiteRequest): CommonOptions & {
  headers: Readonly<Record<string, string>>;
  body?: string;
} {
  const { json } = request;
  return {
    ...common(request),
    headers: { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  };
}

/** `readBody` for a client whose responses are fetch `Response`s: read through a clone, the caller's stays unread. */
export function fetchResponseBody(response: unknown): Promise<string> {
  if (!(response instanceof Response)) throw new TypeError('Expected a fetch Response.');
  return response.clone().text();
}

/** `readBody` for axios: the `AxiosResponse`'s data, already read by the adapter. */
export async function axiosResponseBody(response: unknown): Promise<string> {
  const { data, config } = (response ?? {}) as { data?: unknown; config?: unknown };
  if (config === undefined) throw new TypeError('Expected an AxiosResponse.');
  return String(data);
}
