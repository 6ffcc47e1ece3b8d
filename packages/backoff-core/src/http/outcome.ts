import type { HeadersLike } from './headers.js';
import { chain, field, isNotSentCode } from './not-sent.js';

/**
 * How an attempt failed without a response, in the core's terms. `'not-sent'` is a network failure that proves
 * no byte of the request left (a refused connection, a DNS failure, a connect timeout).
 */
export type ErrorKind = 'network' | 'not-sent' | 'timeout' | 'abort' | 'tls' | 'unknown';

/**
 * The request a client sends next in place of the one that was sent, which a hook of the client's own built with the
 * retry it forced (ky's `ky.retry({ request })`): its method and its headers, as they will go out.
 */
export interface Replacement {
  readonly method: string;
  readonly headers?: HeadersLike | undefined;
}

/** How one attempt ended: a response, or an error of some kind. */
export type Outcome =
  | {
      readonly type: 'response';
      readonly status: number;
      readonly headers?: HeadersLike | undefined;
      /**
       * The client's own response object (fetch's `Response`, the `AxiosResponse`, ky's `Response`), handed to
       * `shouldRetry` as it is, so that a condition can read the body.
       */
      readonly response?: unknown;
      /**
       * The client itself asked for this attempt to be retried (a hook of its own: ky's `ky.retry()`), and waits
       * what that hook asked before the retry.
       */
      readonly forced?: boolean | undefined;
      /**
       * The request the forced retry sends instead of this one: the method gate judges that request, and from
       * then on the call is that request's.
       */
      readonly replacement?: Replacement | undefined;
      /**
       * The URL that answered, when the client followed redirects and can tell (fetch's `Response.url`). The
       * pacer learns the quota into its origin: after a redirect from A to B, B's 429 paces B, not A.
       * `undefined` (or `''`): the request's own URL answered, or the client cannot tell.
       */
      readonly url?: string | undefined;
    }
  | {
      readonly type: 'error';
      readonly kind: ErrorKind;
      readonly error: unknown;
      /**
       * Whether the client followed a redirect in this attempt before it failed: `false` when it followed none
       * (or follows none), `true` when it did, `undefined` when it cannot tell. A failure before any connection
       * proves that nothing was sent only for the first hop (see `provesNotSent`).
       */
      readonly redirected?: boolean | undefined;
      /** As for a response: the client's own hook asked for a retry, and waits what it asked. */
      readonly forced?: boolean | undefined;
      /** As for a response: the request that forced retry sends instead. */
      readonly replacement?: Replacement | undefined;
      /**
       * The wait a retry of this failure takes, fixed by what failed (a cut event stream's own `retry:`, as
       * EventSource waits it): the decider weighs it against the deadline before the budget pays for the retry.
       */
      readonly wait?: number | undefined;
    };

// Connection-level failures that a new attempt can fix. Those that prove nothing was sent (ECONNREFUSED, DNS
// failures, a failed connect) are 'not-sent' first (see not-sent.ts); these are the rest.
const NETWORK_CODES =
  /^(?:ECONNRESET|EPIPE|EHOSTUNREACH|ENETUNREACH|ENETDOWN|EHOSTDOWN|UND_ERR_SOCKET|UND_ERR_CLOSED|ERR_STREAM_PREMATURE_CLOSE)$/;
const TIMEOUT_CODES = /^(?:ETIMEDOUT|ESOCKETTIMEDOUT|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT)$/;
// Codes that a new attempt cannot fix even though they come from the network layer.
const PERMANENT_CODES = /^ERR_INVALID_(?:URL|PROTOCOL)$/;
const TLS_CODE = /^(?:ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;
// The messages browsers and undici give a fetch TypeError when the network failed, and the code-less
// `TypeError('Network error')` that @mswjs/interceptors (MSW and the tools built on it) fail a Node request with.
const FETCH_FAILED =
  /^(?:Failed to fetch|fetch failed|Load failed|NetworkError when attempting to fetch resource\.?|Network request failed|Network error)$/i;

/** A fetch `Response` as an attempt's outcome (withBackoff's and ky's). */
export function responseOutcome(response: Response): Outcome {
  const { status, headers, url } = response;
  return { type: 'response', status, headers, response, url };
}

/**
 * Classifies an error by its `code` and `name`, walking the `cause` chain (undici and axios's fetch adapter wrap
 * the real socket error). Abort is left to the caller when it can tell (it knows the signal), but an error named
 * AbortError is an abort, and one named TimeoutError (`AbortSignal.timeout`'s) a timeout; then a fetch-failure
 * TypeError on the chain is a network error. A failure that proves the request never left (connection refused,
 * DNS failure, connect timeout) is `'not-sent'`; a code-less "Failed to fetch" never is. Anything not recognised
 * is `'unknown'` and is never retried (it is often a bug).
 */
export function classifyError(error: unknown): ErrorKind {
  // A fetch-failure TypeError anywhere on the chain (axios wraps it as `cause`), used if no code decides first.
  let fetchFailed = false;
  for (const current of chain(error)) {
    const name = field(current, 'name');
    if (name === 'AbortError') return 'abort';
    // What `AbortSignal.timeout()` aborts with: a per-attempt timeout (the caller's own signal is checked first).
    if (name === 'TimeoutError') return 'timeout';
    const code = field(current, 'code');
    if (typeof code === 'string') {
      if (TLS_CODE.test(code)) return 'tls';
      if (PERMANENT_CODES.test(code)) return 'unknown';
      if (isNotSentCode(code, current)) return 'not-sent';
      if (NETWORK_CODES.test(code)) return 'network';
      if (TIMEOUT_CODES.test(code)) return 'timeout';
    }
    fetchFailed ||= current instanceof TypeError && FETCH_FAILED.test(current.message);
  }
  return fetchFailed ? 'network' : 'unknown';
}

/** The first string `code` on an error's `cause` chain. */
function errorCode(error: unknown): string | undefined {
  for (const current of chain(error)) {
    const code = field(current, 'code');
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Classifies the cause of an error that the client itself reports as a network failure (axios's `ERR_NETWORK`,
 * ky's `NetworkError`): a cause that classifies decides (a reset, a refused connection, a TLS error, a timeout);
 * a cause with a code the core does not know stays unretried (ERR_INVALID_URL); a cause that says nothing (or
 * none) is a network error.
 */
export function classifyNetworkFailure(cause: unknown): ErrorKind {
  const kind = classifyError(cause);
  if (kind !== 'unknown') return kind;
  return errorCode(cause) === undefined ? 'network' : 'unknown';
}
