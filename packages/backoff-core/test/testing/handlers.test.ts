import { getBackoffResult, withBackoff } from 'backoff-core';
import { down, flaky, rateLimited, slow } from 'backoff-core/testing';
import { describe, expect, it } from 'vitest';
import { arrivals, EXACT, server, time } from './support.ts';

const URL = 'http://api.test/items';
const headersOf = (response: Response) => Object.fromEntries(response.headers);

describe('flaky', () => {
  it('answers its steps in order, then repeats the last', async () => {
    const api = flaky(URL, [503, { status: 429, headers: { 'Retry-After': '2' }, body: 'slow down' }, 200]);
    server.use(api);
    const answers = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(URL);
      answers.push([response.status, await response.text(), response.headers.get('retry-after')]);
    }
    expect(answers).toEqual([
      [503, '503', null],
      [429, 'slow down', '2'],
      [200, '200', null],
      [200, '200', null],
    ]);
    expect(api.requests.map((r) => r.answer)).toEqual([503, 429, 200, 200]);
  });

  it('records each request: method, URL, headers, Idempotency-Key, body, time and answer', async () => {
    const api = flaky(URL, [503, 201]);
    server.use(api);
    const post = withBackoff(fetch, { ...time.options, ...EXACT, idempotencyKey: 'auto' });
    const response = await post(URL, { method: 'POST', body: '{"n":1}', headers: { 'X-Trace': 't1' } });
    expect(response.status).toBe(201);
    const [first, second] = api.requests;
    expect(first).toMatchObject({ method: 'POST', url: URL, body: '{"n":1}', answer: 503 });
    expect(first?.headers.get('x-trace')).toBe('t1');
    // Sent twice, with the same key.
    expect(first?.idempotencyKey).toMatch(/^"[0-9a-f-]{36}"$/);
    expect(api.requests.map((r) => r.idempotencyKey)).toEqual([first?.idempotencyKey, first?.idempotencyKey]);
    expect(second).toMatchObject({ answer: 201, at: (first?.at ?? 0) + 1000 });
  });

  it("'network-error' fails the connection: a POST without a key is not sent again", async () => {
    const api = flaky(URL, ['network-error', 200]);
    server.use(api);
    const call = withBackoff(fetch, time.options)(URL, { method: 'POST', body: 'x' });
    await expect(call).rejects.toThrow(TypeError);
    expect(api.requests.map((r) => [r.method, r.idempotencyKey, r.answer])).toEqual([
      ['POST', null, 'network-error'],
    ]);
  });

  it('names a bad script', () => {
    expect(() => flaky(URL, [])).toThrow(
      'Expected `flaky steps` to be a list of at least one step ([503, 200]), got an array.',
    );
    expect(() => flaky(URL, [503, 99])).toThrow(
      'Expected `flaky steps[1]` to be an integer from 200 to 599, got 99.',
    );
    expect(() => flaky(URL, ['reset' as never])).toThrow(
      'Expected `flaky steps[0]` to be a status, \'network-error\' or { status, headers, body }, got "reset".',
    );
    expect(() => flaky(URL, [{ status: 503, header: {} } as never])).toThrow(
      'Unknown step option `flaky steps[0].header`: did you mean `headers`?',
    );
  });
});

describe('rateLimited', () => {
  it("'draft-8': the RateLimit fields on every answer, a 429 over the quota, a new window after the reset", async () => {
    const api = rateLimited(URL, { quota: 2, window: 10_000 });
    server.use(api);
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(URL);
      seen.push([response.status, headersOf(response).ratelimit, headersOf(response)['ratelimit-policy']]);
    }
    expect(seen).toEqual([
      [200, '"default";r=1;t=10', '"default";q=2;w=10'],
      [200, '"default";r=0;t=10', '"default";q=2;w=10'],
      [429, '"default";r=0;t=10', '"default";q=2;w=10'],
    ]);
    // The client reads `t` of the spent quota: it waits the 10 s out, and the new window lets it through.
    const response = await withBackoff(fetch, { ...time.options, ...EXACT })(URL);
    expect(response.status).toBe(200);
    expect(api.requests.map((r) => r.answer)).toEqual([200, 200, 429, 429, 200]);
    expect(arrivals(api.requests).slice(3)).toEqual([0, 10_000]);
  });

  it("'retry-after': a Retry-After on each 429 and nothing else", async () => {
    server.use(rateLimited(URL, { quota: 1, window: 60_000, headers: 'retry-after' }));
    const ok = await fetch(URL);
    const limited = await fetch(URL);
    expect([ok.status, headersOf(ok)]).toEqual([200, { 'content-type': 'text/plain;charset=UTF-8' }]);
    expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('ratelimit')]).toEqual([
      429,
      '60',
      null,
    ]);
  });

  it("'bare': a 429 alone, whose wait is the client's own backoff", async () => {
    const api = rateLimited(URL, { quota: 1, window: 1500, headers: 'bare' });
    server.use(api);
    await fetch(URL);
    const response = await withBackoff(fetch, { ...time.options, ...EXACT })(URL);
    expect(response.status).toBe(200);
    expect(api.requests.map((r) => r.answer)).toEqual([200, 429, 429, 200]);
    // 1 s, then 2 s: the window of 1.5 s ended during the second wait.
    expect(arrivals(api.requests).slice(1)).toEqual([0, 1000, 3000]);
  });

  it('names bad options', () => {
    expect(() => rateLimited(URL, { quota: 0, window: 1000 })).toThrow(
      'Expected `rateLimited.quota` to be an integer from 1 to',
    );
    expect(() => rateLimited(URL, { quota: 5 } as never)).toThrow(
      'Expected `rateLimited.window` to be given: the requests allowed per window and the window in ms (100 a minute: { quota: 100, window: 60_000 }).',
    );
    expect(() => rateLimited(URL, { quota: 5, window: 1000, headers: 'draft-7' as never })).toThrow(
      "Expected `rateLimited.headers` to be one of 'draft-8', 'retry-after', 'bare', got \"draft-7\".",
    );
  });
});

describe('down', () => {
  it('answers its status with Retry-After for `forMs` from its first request, then 200', async () => {
    const api = down(URL, { forMs: 60_000, retryAfter: 30 });
    server.use(api);
    const response = await withBackoff(fetch, { ...time.options, ...EXACT })(URL);
    expect(response.status).toBe(200);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 3, totalDelay: 60_000 });
    expect(api.requests.map((r) => [r.at - (api.requests[0]?.at ?? 0), r.answer])).toEqual([
      [0, 503],
      [30_000, 503],
      [60_000, 200],
    ]);
  });

  it('sends a string Retry-After as it is, and another status', async () => {
    server.use(down(URL, { forMs: 1000, retryAfter: 'Fri, 01 Jan 2027 00:00:00 GMT', status: 502 }));
    const response = await fetch(URL);
    expect([response.status, response.headers.get('retry-after')]).toEqual([
      502,
      'Fri, 01 Jan 2027 00:00:00 GMT',
    ]);
  });

  it('names bad options', () => {
    expect(() => down(URL, {} as never)).toThrow(
      'Expected `down.forMs` to be given: how long the server is down, in ms (a minute: { forMs: 60_000 }).',
    );
    expect(() => down(URL, { forMs: -1 })).toThrow('Expected `down.forMs` to be a number from 0 to');
  });
});

describe('slow', () => {
  it('every nth answer takes `ms` of the clock, the others none', async () => {
    const api = slow(URL, { everyNth: 2, ms: 5000 });
    server.use(api);
    for (let i = 0; i < 4; i++) await time.run(fetch(URL));
    expect(time.elapsed).toBe(10_000);
    expect(arrivals(api.requests)).toEqual([0, 0, 5000, 5000]);
  });

  it('names bad options', () => {
    expect(() => slow(URL, { ms: 10, everyNth: 0 })).toThrow(
      'Expected `slow.everyNth` to be an integer from 1 to',
    );
    expect(() => slow(URL, {} as never)).toThrow('Expected `slow.ms` to be given');
  });
});
