import { Readable } from 'node:stream';
import axios, { AxiosError, type InternalAxiosRequestConfig } from 'axios';
import { replayableBody } from 'backoff-core/adapter';
import { describe, expect, it } from 'vitest';
import { axiosErrorKind, errorOutcome } from '../src/outcome.ts';
import { requestUrl } from '../src/url.ts';

// The translation from axios's terms to the core's, case by case, with errors shaped as each adapter makes
// them (the socket tests make the real ones; these cover what a loopback server cannot: XHR, DNS, TLS).
const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const axiosError = (code: string | undefined, message = 'failed', cause?: unknown) => {
  const error = new AxiosError(message, code);
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause });
  return error;
};

describe('axiosErrorKind', () => {
  it.each([
    ['http: ECONNRESET', AxiosError.from(coded('ECONNRESET', 'socket hang up')), 'network'],
    ['http: ECONNREFUSED', AxiosError.from(coded('ECONNREFUSED')), 'not-sent'],
    ['http: EPIPE', AxiosError.from(coded('EPIPE')), 'network'],
    ['http: EAI_AGAIN (DNS: try again)', AxiosError.from(coded('EAI_AGAIN')), 'not-sent'],
    ['http: ENOTFOUND (no such host)', AxiosError.from(coded('ENOTFOUND')), 'not-sent'],
    ['http: timeout', axiosError('ECONNABORTED', 'timeout of 100ms exceeded'), 'timeout'],
    ['clarifyTimeoutError / fetch: timeout', axiosError('ETIMEDOUT', 'timeout of 100ms exceeded'), 'timeout'],
    ['xhr: request aborted by the browser', axiosError('ECONNABORTED', 'Request aborted'), 'abort'],
    ['xhr: network error, no cause', axiosError('ERR_NETWORK', 'Network Error'), 'network'],
    [
      'fetch: socket error cause',
      axiosError('ERR_NETWORK', 'Network Error', coded('UND_ERR_SOCKET', 'other side closed')),
      'network',
    ],
    ['fetch: refused cause', axiosError('ERR_NETWORK', 'Network Error', coded('ECONNREFUSED')), 'not-sent'],
    ['fetch: DNS failure cause', axiosError('ERR_NETWORK', 'Network Error', coded('ENOTFOUND')), 'not-sent'],
    [
      'fetch: certificate cause',
      axiosError('ERR_NETWORK', 'Network Error', coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE')),
      'tls',
    ],
    [
      'fetch: browser TypeError cause',
      axiosError('ERR_NETWORK', 'Network Error', new TypeError('Failed to fetch')),
      'network',
    ],
    ['http: TLS error', AxiosError.from(coded('DEPTH_ZERO_SELF_SIGNED_CERT')), 'tls'],
    ['http: body cut short', axiosError('ERR_BAD_RESPONSE', 'stream has been aborted'), 'network'],
    [
      'maxContentLength exceeded',
      axiosError('ERR_BAD_RESPONSE', 'maxContentLength size of 1 exceeded'),
      'unknown',
    ],
    ['too many redirects', axiosError('ERR_FR_TOO_MANY_REDIRECTS'), 'unknown'],
    ['a bad option', axiosError('ERR_BAD_OPTION_VALUE'), 'unknown'],
    ['cancelled', new axios.CanceledError(), 'abort'],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')"), 'unknown'],
    ['MSW: simulated network error', AxiosError.from(new TypeError('Network error')), 'network'],
  ])('%s is %s', (_name, error, kind) => {
    expect(axiosErrorKind(error)).toBe(kind);
  });
});

describe('errorOutcome', () => {
  const config = { headers: new axios.AxiosHeaders(), validateStatus: (s: number) => s < 300 };
  const response = (status: number) => ({
    status,
    statusText: '',
    data: '',
    headers: { 'retry-after': '1' },
  });
  const withResponse = (code: string, message: string, status: number) =>
    new AxiosError(message, code, undefined, undefined, response(status) as never);

  it('a status rejection is a response outcome: its status and headers decide', () => {
    const outcome = errorOutcome(
      withResponse('ERR_BAD_RESPONSE', 'Request failed', 503),
      config as never,
      true,
    );
    expect(outcome).toMatchObject({ type: 'response', status: 503 });
  });

  it('a body cut short after a 200 is a network error, not a success', () => {
    const outcome = errorOutcome(
      withResponse('ERR_BAD_RESPONSE', 'stream has been aborted', 200),
      config as never,
      true,
    );
    expect(outcome).toMatchObject({ type: 'error', kind: 'network' });
  });

  it('a failure on a status that validateStatus accepts (a decompression error) is an unknown error', () => {
    const outcome = errorOutcome(
      withResponse('Z_DATA_ERROR', 'incorrect header check', 200),
      config as never,
      true,
    );
    expect(outcome).toMatchObject({ type: 'error', kind: 'unknown' });
  });

  it("axios 1.13.4's fetch adapter: the response is on the wrapped cause", () => {
    const wrapped = axiosError(
      'ERR_BAD_RESPONSE',
      'Request failed',
      withResponse('ERR_BAD_RESPONSE', 'x', 429),
    );
    expect(errorOutcome(wrapped, config as never, false)).toMatchObject({ type: 'response', status: 429 });
  });

  it('any error on an aborted request is an abort', () => {
    const aborted = { ...config, signal: AbortSignal.abort() } as unknown as InternalAxiosRequestConfig;
    expect(errorOutcome(AxiosError.from(coded('ECONNRESET')), aborted, true)).toMatchObject({
      kind: 'abort',
    });
  });
});

describe('replayableBody, on the bodies axios hands its adapter', () => {
  it.each([
    ['no body', undefined, true],
    ['a string', '{"n":1}', true],
    ['a Buffer', Buffer.from('x'), true],
    ['a Uint8Array', new Uint8Array(2), true],
    ['an ArrayBuffer', new ArrayBuffer(2), true],
    ['a Blob', new Blob(['x']), true],
    ['a FormData', new FormData(), true],
    ['URLSearchParams', new URLSearchParams('a=1'), true],
    ['a Node Readable', Readable.from(['x']), false],
    ['a web ReadableStream', new ReadableStream(), false],
    [
      'an async iterable',
      (async function* () {
        yield 'x';
      })(),
      false,
    ],
    ['a pipe-able stream (form-data)', { pipe: () => {} }, false],
  ])('%s: %s', (_name, body, expected) => {
    expect(replayableBody(body)).toBe(expected);
  });
});

describe('requestUrl', () => {
  it.each([
    [{ url: '/items' }, '/items'],
    [{ baseURL: 'http://api.test/v1/', url: '/items' }, 'http://api.test/v1/items'],
    [{ baseURL: 'http://api.test/v1', url: 'items' }, 'http://api.test/v1/items'],
    [{ baseURL: 'http://api.test', url: 'http://other.test/x' }, 'http://other.test/x'],
    [
      { baseURL: 'http://api.test', url: 'http://other.test/x', allowAbsoluteUrls: false },
      'http://api.test/http://other.test/x',
    ],
    [{ baseURL: 'http://api.test' }, 'http://api.test'],
  ])('%j -> %s', (config, url) => {
    expect(requestUrl(config as InternalAxiosRequestConfig)).toBe(url);
  });
});
