import { type BackoffOptions, createBackoff, RetryBudget } from 'backoff-core';
import { classifyError, type Outcome, type RequestDescription, startCall } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';
import { next } from './support/calls.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const URL_ = 'http://127.0.0.1:8080/orders';

// What Node reports, as it reports it: the system error with its syscall and destination.
const systemError = (code: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(`${String(fields.syscall)} ${code}`), { code, ...fields });
const refused = (address = '127.0.0.1', port = 8080) =>
  systemError('ECONNREFUSED', { syscall: 'connect', address, port });
const notFound = (hostname: string) => systemError('ENOTFOUND', { syscall: 'getaddrinfo', hostname });
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });

const policy = (options: BackoffOptions = {}) =>
  createBackoff({ random: () => 0.5, now: () => NOW, budget: false, ...options });
const failed = (error: unknown): Outcome => ({ type: 'error', kind: classifyError(error), error });
const decide = (error: unknown, request: RequestDescription = {}, options: BackoffOptions = {}) =>
  next(startCall(policy(options), { url: URL_, method: 'POST', ...request }), failed(error));

describe('classifyError: failures that prove nothing was sent', () => {
  it.each<[string, unknown]>([
    ['a refused connect (fetch: the cause of "fetch failed")', fetchFailed(refused())],
    ['a DNS failure (ENOTFOUND)', notFound('api.test')],
    [
      'a DNS try-again (EAI_AGAIN)',
      systemError('EAI_AGAIN', { syscall: 'getaddrinfo', hostname: 'api.test' }),
    ],
    ['an unreachable host, from connect()', systemError('EHOSTUNREACH', { syscall: 'connect' })],
    ['an unreachable network, from connect()', systemError('ENETUNREACH', { syscall: 'connect' })],
    ["the OS's connect timeout", systemError('ETIMEDOUT', { syscall: 'connect' })],
    ["undici's connect timeout", fetchFailed(systemError('UND_ERR_CONNECT_TIMEOUT', {}))],
    [
      "axios's copy of the code, with the system error as its cause",
      Object.assign(new Error('connect EHOSTUNREACH'), {
        code: 'EHOSTUNREACH',
        cause: systemError('EHOSTUNREACH', { syscall: 'connect' }),
      }),
    ],
    [
      "Node's happy-eyeballs AggregateError, whose members say connect",
      Object.assign(new AggregateError([systemError('ENETUNREACH', { syscall: 'connect' })], ''), {
        code: 'ENETUNREACH',
      }),
    ],
  ])('%s', (_label, error) => {
    expect(classifyError(error)).toBe('not-sent');
  });

  it.each<[string, unknown, string]>([
    ['a reset (the request may have been read)', systemError('ECONNRESET', { syscall: 'read' }), 'network'],
    ['an unreachable host on a later read', systemError('EHOSTUNREACH', { syscall: 'read' }), 'network'],
    ['an unreachable host with no syscall', systemError('EHOSTUNREACH', {}), 'network'],
    ['a timeout after connecting', systemError('ETIMEDOUT', { syscall: 'read' }), 'timeout'],
    ["undici's headers timeout", fetchFailed(systemError('UND_ERR_HEADERS_TIMEOUT', {})), 'timeout'],
    ["undici's socket error", fetchFailed(systemError('UND_ERR_SOCKET', {})), 'network'],
    ['a TLS failure', fetchFailed(systemError('CERT_HAS_EXPIRED', {})), 'tls'],
    ["a browser's 'Failed to fetch' (a browser cannot tell)", new TypeError('Failed to fetch'), 'network'],
    ["undici's 'fetch failed' with no code", fetchFailed(new Error('other side closed')), 'network'],
  ])('never %s', (_label, error, kind) => {
    expect(classifyError(error)).toBe(kind);
  });
});

describe('decisions: a request that never left is retried for any method', () => {
  it.each(['POST', 'PATCH', 'LOCK'])('a keyless %s whose connection was refused', (method) => {
    expect(decide(fetchFailed(refused()), { method })).toMatchObject({ retry: true, reason: 'not-sent' });
  });

  it('with or without an Idempotency-Key, and for idempotent methods too', () => {
    const headers = { 'Idempotency-Key': '"k"' };
    expect(decide(refused(), { headers })).toMatchObject({ retry: true, reason: 'not-sent' });
    expect(decide(refused(), { method: 'GET' })).toMatchObject({ retry: true, reason: 'not-sent' });
  });

  it('a keyless POST reset after it was sent is never repeated', () => {
    expect(decide(fetchFailed(systemError('ECONNRESET', { syscall: 'read' })))).toMatchObject({
      retry: false,
      reason: 'method-not-idempotent',
    });
  });

  it('an unknown host (ENOTFOUND) is retried like any not-sent failure, within retries', () => {
    const state = startCall(policy({ retries: 2 }), { url: 'http://api.test/orders', method: 'POST' });
    const error = fetchFailed(notFound('api.test'));
    expect(next(state, failed(error))).toMatchObject({ retry: true, reason: 'not-sent', delay: 500 });
    expect(next(state, failed(error))).toMatchObject({ retry: true, reason: 'not-sent', delay: 1000 });
    expect(next(state, failed(error))).toMatchObject({ retry: false, reason: 'retries-exhausted' });
  });

  it('counts against the budget: an empty budget refuses it', () => {
    const budget = new RetryBudget({ reserve: 1, ratio: 0 });
    const backoff = policy({ budget });
    expect(next(startCall(backoff, { url: URL_, method: 'POST' }), failed(refused()))).toMatchObject({
      retry: true,
      reason: 'not-sent',
    });
    expect(next(startCall(backoff, { url: URL_, method: 'POST' }), failed(refused()))).toMatchObject({
      retry: false,
      reason: 'budget-exhausted',
    });
  });

  it('a one-shot body is still never re-sent', () => {
    expect(decide(refused(), { replayable: false })).toMatchObject({
      retry: false,
      reason: 'body-not-replayable',
    });
  });

  it('shouldRetry: false still has the last word', () => {
    expect(decide(refused(), {}, { shouldRetry: () => false })).toMatchObject({
      retry: false,
      reason: 'should-retry',
    });
  });
});

describe('the proof holds only for the first hop: a redirect may have delivered the request first', () => {
  const decideAfter = (error: unknown, url: string, redirected: boolean | undefined, method = 'POST') =>
    next(startCall(policy(), { url, method }), {
      type: 'error',
      kind: classifyError(error),
      error,
      redirected,
    });

  it.each<[string, unknown, string]>([
    ['refused on another port', refused('127.0.0.1', 9090), URL_],
    ['refused on another IP address', refused('127.0.0.2', 8080), URL_],
    ['refused on the default port of another scheme', refused('127.0.0.1', 80), 'https://127.0.0.1/orders'],
    ['another host not found', fetchFailed(notFound('elsewhere.test')), 'http://api.test/orders'],
  ])('%s: the method gate applies, whatever the client knows', (_label, error, url) => {
    for (const redirected of [undefined, false, true]) {
      expect(decideAfter(error, url, redirected)).toMatchObject({
        retry: false,
        reason: 'method-not-idempotent',
      });
      expect(decideAfter(error, url, redirected, 'GET')).toMatchObject({
        retry: true,
        reason: 'network-error',
      });
    }
  });

  it.each<[string, unknown, string]>([
    ['the same IP and port', refused('127.0.0.1', 8080), URL_],
    ['an IPv6 literal', refused('::1', 8080), 'http://[::1]:8080/orders'],
    ['the same host not found', notFound('api.test'), 'http://api.test/orders'],
  ])('%s: not sent, unless the client followed a redirect', (_label, error, url) => {
    expect(decideAfter(error, url, undefined)).toMatchObject({ retry: true, reason: 'not-sent' });
    expect(decideAfter(error, url, false)).toMatchObject({ retry: true, reason: 'not-sent' });
    expect(decideAfter(error, url, true)).toMatchObject({ retry: false, reason: 'method-not-idempotent' });
  });

  it.each<[string, unknown, string]>([
    [
      'refused at an address a host name may or may not resolve to',
      refused('10.0.0.7', 80),
      'http://API.test/orders',
    ],
    [
      "undici's connect timeout, which names no destination",
      fetchFailed(systemError('UND_ERR_CONNECT_TIMEOUT', {})),
      URL_,
    ],
    [
      'a refused connect that names no port',
      systemError('ECONNREFUSED', { syscall: 'connect', address: '127.0.0.1' }),
      URL_,
    ],
    ['no URL to compare', refused('127.0.0.1', 1), 'not a url'],
  ])('%s: no proof when a redirect cannot be ruled out (fail closed)', (_label, error, url) => {
    expect(decideAfter(error, url, undefined)).toMatchObject({
      retry: false,
      reason: 'method-not-idempotent',
    });
    expect(decideAfter(error, url, undefined, 'GET')).toMatchObject({ retry: true, reason: 'network-error' });
    // The client says it followed no redirect: the failure is the first hop's, and nothing left.
    expect(decideAfter(error, url, false)).toMatchObject({ retry: true, reason: 'not-sent' });
  });
});
