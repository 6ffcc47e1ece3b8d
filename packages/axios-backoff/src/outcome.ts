import { AxiosHeaders, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import {
  classifyError,
  classifyNetworkFailure,
  type ErrorKind,
  fetchRedirected,
  field,
  type HeadersLike,
  type Outcome,
} from 'backoff-core/adapter';

/** An axios error in the core's terms, by axios's codes for both the http/xhr and the fetch adapters. */
export function axiosErrorKind(error: unknown): ErrorKind {
  if (field(error, '__CANCEL__') === true) return 'abort';
  const code = field(error, 'code');
  const message = field(error, 'message');
  switch (code) {
    case 'ERR_CANCELED':
      return 'abort';
    case 'ECONNABORTED':
      // The http and xhr adapters' timeout, unless `transitional.clarifyTimeoutError` makes it ETIMEDOUT. The xhr
      // adapter also uses it for a request the browser aborted (page unload): that is no timeout.
      return message === 'Request aborted' ? 'abort' : 'timeout';
    case 'ETIMEDOUT':
      return 'timeout';
    case 'ERR_NETWORK':
      // From XHR with nothing more (no cause), from the fetch adapter with the real failure as `cause`.
      return classifyNetworkFailure(field(error, 'cause'));
    case 'ERR_BAD_RESPONSE':
      // The http adapter's error for a connection cut in the middle of the response body.
      if (message === 'stream has been aborted') return 'network';
      break;
  }
  // OS and undici codes (ECONNRESET, ECONNREFUSED, EPIPE, EAI_AGAIN, UND_ERR_SOCKET under a fetch TypeError,
  // TLS codes) and fetch-failure TypeErrors (MSW's simulated 'Network error'), on the error or its cause chain.
  return classifyError(error);
}

/**
 * Response headers as the core reads them. AxiosHeaders and fetch Headers have a case-insensitive `get`, and
 * the core reads plain objects (a custom adapter's) case-insensitively; only a raw header block needs parsing.
 */
function headersOf(headers: unknown): HeadersLike | undefined {
  if (typeof headers === 'string') return AxiosHeaders.from(headers);
  return typeof headers === 'object' && headers !== null ? (headers as HeadersLike) : undefined;
}

/**
 * The URL that answered, after any redirect: the http adapter's redirecting transport (follow-redirects) puts it
 * on the last response as `responseUrl`, a browser's XHR as `responseURL`. axios's fetch adapter keeps neither
 * the fetch `Response` nor its `url` (its `request` is the `Request` it sent): `undefined` there.
 */
function answeredUrl(response: AxiosResponse): string | undefined {
  const { request } = response as { request?: unknown };
  const url = field(field(request, 'res'), 'responseUrl') ?? field(request, 'responseURL');
  return typeof url === 'string' && url !== '' ? url : undefined;
}

/** A response the adapter resolved with (whatever `validateStatus` let through). */
export function responseOutcome(response: AxiosResponse): Outcome {
  const { status } = response;
  return {
    type: 'response',
    status,
    headers: headersOf(response.headers),
    response,
    url: answeredUrl(response),
  };
}

/**
 * The response an adapter rejection carries. axios 1.13.4's fetch adapter re-wraps its own status error with
 * `AxiosError.from`, which drops `response`: there the response is on the wrapped error, `error.cause`.
 */
export function rejectedResponse(error: unknown): AxiosResponse | undefined {
  const response = field(error, 'response') ?? field(field(error, 'cause'), 'response');
  return typeof field(response, 'status') === 'number' ? (response as AxiosResponse) : undefined;
}

/** Whether `validateStatus` (what axios's `settle` applies) rejects this status. */
function rejectedByStatus(status: number, config: InternalAxiosRequestConfig): boolean {
  const { validateStatus } = config;
  return Boolean(status) && typeof validateStatus === 'function' && !validateStatus(status);
}

/**
 * Whether axios followed a redirect in the attempt that failed, by what its transport tells: the fetch adapter's
 * `Request` carries its `redirect` mode; the http adapter's redirecting transport (follow-redirects) counts the
 * redirects it followed; without it (`maxRedirects: 0`) Node's http follows none. `maxRedirects` binds axios's own
 * http adapter only: any other follows redirects as it likes (one built on fetch does). `undefined`: it cannot tell.
 */
function redirected(error: unknown, config: InternalAxiosRequestConfig, http: boolean): boolean | undefined {
  const request = field(error, 'request');
  const mode = field(request, 'redirect');
  if (typeof mode === 'string') return fetchRedirected(mode);
  const count = field(request, '_redirectCount');
  if (typeof count === 'number') return count > 0;
  return http && config.maxRedirects === 0 ? false : undefined;
}

/**
 * What an adapter rejection means to the core. A rejection for the response's status is a response outcome
 * (its status and headers decide); a failure of the transport, even one that arrives with a response (a body
 * cut mid-way), is an error of its kind. An aborted signal or cancelled token always makes it an abort. `http`:
 * the adapter is axios's own http adapter.
 */
export function errorOutcome(error: unknown, config: InternalAxiosRequestConfig, http: boolean): Outcome {
  if (config.signal?.aborted || config.cancelToken?.reason !== undefined) {
    return { type: 'error', kind: 'abort', error };
  }
  const kind = axiosErrorKind(error);
  const response = rejectedResponse(error);
  if (kind === 'unknown' && response !== undefined && rejectedByStatus(response.status, config)) {
    return responseOutcome(response);
  }
  return {
    type: 'error',
    kind,
    error,
    redirected: kind === 'not-sent' ? redirected(error, config, http) : undefined,
  };
}
