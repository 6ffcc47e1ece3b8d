import { classifyError, classifyNetworkFailure, type ErrorKind } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';

const coded = (code: unknown, message = `connect ${String(code)}`) =>
  Object.assign(new Error(message), { code });
// What undici's fetch throws: TypeError('fetch failed') with the socket error as its cause.
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });

describe('classifyError: error codes', () => {
  it.each<[string, ErrorKind]>([
    ['ECONNRESET', 'network'],
    // These only happen before a connection exists: nothing of the request was sent.
    ['ECONNREFUSED', 'not-sent'],
    ['EAI_AGAIN', 'not-sent'],
    ['ENOTFOUND', 'not-sent'],
    ['UND_ERR_CONNECT_TIMEOUT', 'not-sent'],
    ['EPIPE', 'network'],
    // Without `syscall: 'connect'` these may end a connection that carried the request.
    ['EHOSTUNREACH', 'network'],
    ['ENETUNREACH', 'network'],
    ['ENETDOWN', 'network'],
    ['EHOSTDOWN', 'network'],
    ['UND_ERR_SOCKET', 'network'],
    ['UND_ERR_CLOSED', 'network'],
    ['ERR_STREAM_PREMATURE_CLOSE', 'network'],
    ['ETIMEDOUT', 'timeout'],
    ['ESOCKETTIMEDOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['ERR_INVALID_URL', 'unknown'],
    ['ERR_INVALID_PROTOCOL', 'unknown'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
    ['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['HOSTNAME_MISMATCH', 'tls'],
    ['ERR_SOMETHING_ELSE', 'unknown'],
  ])('an error with code %s is %s', (code, kind) => {
    expect(classifyError(coded(code))).toBe(kind);
  });

  it('reads the code of a plain object too', () => {
    expect(classifyError({ code: 'ECONNRESET' })).toBe('network');
  });

  it('ignores a code that is not a string', () => {
    expect(classifyError(coded(104))).toBe('unknown');
  });
});

describe('classifyError: cause chains', () => {
  it.each<[string, unknown, ErrorKind]>([
    [
      "undici's TypeError('fetch failed') caused by UND_ERR_SOCKET",
      fetchFailed(coded('UND_ERR_SOCKET')),
      'network',
    ],
    [
      "undici's TypeError('fetch failed') caused by ECONNREFUSED",
      fetchFailed(coded('ECONNREFUSED')),
      'not-sent',
    ],
    [
      "undici's TypeError('fetch failed') caused by an AggregateError with code ECONNREFUSED",
      fetchFailed(Object.assign(new AggregateError([coded('ECONNREFUSED')], ''), { code: 'ECONNREFUSED' })),
      'not-sent',
    ],
    [
      "undici's TypeError('fetch failed') caused by UND_ERR_CONNECT_TIMEOUT",
      fetchFailed(coded('UND_ERR_CONNECT_TIMEOUT')),
      'not-sent',
    ],
    ["undici's TypeError('fetch failed') caused by ENOTFOUND", fetchFailed(coded('ENOTFOUND')), 'not-sent'],
    [
      "undici's TypeError('fetch failed') caused by CERT_HAS_EXPIRED",
      fetchFailed(coded('CERT_HAS_EXPIRED')),
      'tls',
    ],
    [
      "undici's TypeError('fetch failed') with a cause of no known code: still a failed fetch",
      fetchFailed(new Error('other side closed')),
      'network',
    ],
    [
      'a code three levels down',
      new Error('outer', { cause: new Error('middle', { cause: coded('ECONNRESET') }) }),
      'network',
    ],
    [
      'an AbortError as the cause',
      new Error('wrapped', { cause: new DOMException('aborted', 'AbortError') }),
      'abort',
    ],
    [
      'the first recognised code wins (ERR_INVALID_URL outside ECONNRESET)',
      Object.assign(new Error('x', { cause: coded('ECONNRESET') }), { code: 'ERR_INVALID_URL' }),
      'unknown',
    ],
    [
      'the first recognised code wins (ECONNRESET outside ECONNREFUSED): a reset is never not-sent',
      Object.assign(new Error('x', { cause: coded('ECONNREFUSED') }), { code: 'ECONNRESET' }),
      'network',
    ],
    [
      'an unrecognised outer code does not hide a known cause',
      Object.assign(new Error('x', { cause: coded('EPIPE') }), { code: 'ERR_BAD_RESPONSE' }),
      'network',
    ],
  ])('%s', (_label, error, kind) => {
    expect(classifyError(error)).toBe(kind);
  });

  it('stops on a circular cause chain', () => {
    const error = new Error('loop') as Error & { cause?: unknown };
    error.cause = error;
    expect(classifyError(error)).toBe('unknown');
  });

  it('looks at most 5 levels deep', () => {
    const wrapped = (levels: number) => {
      let error: unknown = coded('ECONNRESET');
      for (let i = 0; i < levels; i++) error = new Error(`level ${i}`, { cause: error });
      return error;
    };
    expect(classifyError(wrapped(4))).toBe('network');
    expect(classifyError(wrapped(5))).toBe('unknown');
  });
});

describe('classifyError: names and browser messages', () => {
  it.each<[string, unknown, ErrorKind]>([
    ['a DOMException AbortError', new DOMException('The operation was aborted.', 'AbortError'), 'abort'],
    [
      'any error named AbortError (another copy of a library)',
      Object.assign(new Error('x'), { name: 'AbortError' }),
      'abort',
    ],
    ['a plain object named AbortError', { name: 'AbortError' }, 'abort'],
    // A per-attempt `AbortSignal.timeout()` inside the fetch given to withBackoff (found by the fault suite).
    ['a DOMException TimeoutError', new DOMException('The operation timed out.', 'TimeoutError'), 'timeout'],
    ["Chrome's TypeError('Failed to fetch')", new TypeError('Failed to fetch'), 'network'],
    ["MSW's code-less TypeError('Network error')", new TypeError('Network error'), 'network'],
    [
      'a wrapper whose cause is a fetch-failure TypeError (axios http adapter under MSW)',
      new Error('Network error', { cause: new TypeError('Network error') }),
      'network',
    ],
    ["a plain Error('Network error') is no fetch failure", new Error('Network error'), 'unknown'],
    ["Safari's TypeError('Load failed')", new TypeError('Load failed'), 'network'],
    [
      "Firefox's TypeError('NetworkError when attempting to fetch resource.')",
      new TypeError('NetworkError when attempting to fetch resource.'),
      'network',
    ],
    [
      "React Native's TypeError('Network request failed')",
      new TypeError('Network request failed'),
      'network',
    ],
    ["undici's TypeError('fetch failed') without a cause", new TypeError('fetch failed'), 'network'],
    ['the same message on a non-TypeError', new Error('Failed to fetch'), 'unknown'],
    ['a TypeError with a longer message', new TypeError('Failed to fetch the config'), 'unknown'],
    [
      'a programming bug (TypeError)',
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      'unknown',
    ],
    ['a programming bug (ReferenceError)', new ReferenceError('x is not defined'), 'unknown'],
    ['an unknown Error', new Error('boom'), 'unknown'],
    ['a thrown string', 'boom', 'unknown'],
    ['a thrown number', 42, 'unknown'],
    ['undefined', undefined, 'unknown'],
    ['null', null, 'unknown'],
  ])('%s is %s', (_label, error, kind) => {
    expect(classifyError(error)).toBe(kind);
  });
});

describe('classifyNetworkFailure: the cause of an error the client calls a network failure', () => {
  it.each<[string, unknown, ErrorKind]>([
    ['no cause (XHR)', undefined, 'network'],
    ['a cause with no code', new Error('socket hang up'), 'network'],
    ['a reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), 'network'],
    ['a TLS failure', Object.assign(new Error('bad cert'), { code: 'CERT_HAS_EXPIRED' }), 'tls'],
    ['an unknown host', Object.assign(new Error('getaddrinfo'), { code: 'ENOTFOUND' }), 'not-sent'],
    ['a refused connection', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }), 'not-sent'],
    ['a code the core does not know', Object.assign(new Error('odd'), { code: 'E_ODD' }), 'unknown'],
    [
      'an undici socket error two causes down',
      new TypeError('fetch failed', { cause: { code: 'UND_ERR_SOCKET' } }),
      'network',
    ],
  ])('%s -> %s', (_label, cause, kind) => {
    expect(classifyNetworkFailure(cause)).toBe(kind);
  });
});
