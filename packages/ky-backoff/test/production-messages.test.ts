// A production build (NODE_ENV=production) keeps every check and error class, with a short message: the option,
// what it got, and the link to the code's explanation in docs/errors.md.
import ky, * as kyNamespace from 'ky';
import { kyBackoff } from 'ky-backoff';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const DOCS = 'https://github.com/backoff/backoff/blob/main/docs/errors.md';
const short = (name: string, got: string, code: string) =>
  `\`${name}\` got ${got} (${code}): ${DOCS}#${code}`;

beforeEach(() => {
  vi.stubEnv('NODE_ENV', 'production');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('ky-backoff in production: short messages, the same errors', () => {
  it('not a ky instance, or ky’s module namespace (not-a-client)', () => {
    expect(() => kyBackoff({} as never)).toThrow(
      new TypeError(short('instance', 'an object', 'not-a-client')),
    );
    expect(() => kyBackoff(kyNamespace as never)).toThrow(
      new TypeError(short('instance', '[object Module]', 'not-a-client')),
    );
  });

  it('installed twice (already-installed)', () => {
    const api = kyBackoff(ky);
    expect(() => kyBackoff(api)).toThrow(new TypeError(short('instance', 'a function', 'already-installed')));
  });

  it('a bad option, through the core (bad-option, unknown-option)', () => {
    expect(() => kyBackoff(ky, { retries: -1 })).toThrow(
      new RangeError(short('retries', '-1', 'bad-option')),
    );
    expect(() => kyBackoff(ky, { limit: 3 } as never)).toThrow(
      new TypeError(short('limit', '3', 'unknown-option')),
    );
  });

  it('attemptTimeout (attempt-timeout)', () => {
    expect(() => kyBackoff(ky, { attemptTimeout: 200 } as never)).toThrow(
      new TypeError(short('attemptTimeout', '200', 'attempt-timeout')),
    );
  });

  it("ky's own `retry` with a bad field, an unknown one, or no object (bad-option, unknown-option)", () => {
    expect(() => kyBackoff(ky.create({ retry: { limit: -1 } }))).toThrow(
      new TypeError(short('retry.limit', '-1', 'bad-option')),
    );
    expect(() => kyBackoff(ky.create({ retry: { retries: 2 } as never }))).toThrow(
      new TypeError(short('retry.retries', '2', 'unknown-option')),
    );
    expect(() => kyBackoff(ky.create({ retry: 'often' as never }))).toThrow(
      new TypeError(short('retry', '"often"', 'bad-option')),
    );
  });

  it('a request whose Idempotency-Key cannot be sent fails unsent, through the core (bad-key)', async () => {
    let sent = 0;
    const api = kyBackoff(
      ky.create({
        fetch: async () => {
          sent++;
          return new Response(null, { status: 200 });
        },
      }),
    );
    await expect(
      api.post('https://api.test/orders', { headers: { 'Idempotency-Key': 'café' } }),
    ).rejects.toThrow(new TypeError(short('Idempotency-Key', '"café"', 'bad-key')));
    expect(sent).toBe(0);
  });
});
