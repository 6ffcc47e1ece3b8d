import { VirtualClock } from '@backoff/test-utils';
import {
  type BackoffOptions,
  createBackoff,
  type Jitter,
  RetryBudget,
  type RetryEvent,
  type ShouldRetryContext,
} from 'backoff-core';
import {
  type Decision,
  type ErrorKind,
  type Outcome,
  type Replacement,
  type RequestDescription,
  startCall,
} from 'backoff-core/adapter';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { next, run } from './support/calls.ts';

const NOW = Date.UTC(2026, 11, 2, 12, 0, 0);
const URL_ = 'https://api.test/items';
const UUID_V4_QUOTED = /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/;

// random 0.5 and no budget unless a test says otherwise: every delay below is exact.
const policy = (options: BackoffOptions = {}) =>
  createBackoff({ random: () => 0.5, now: () => NOW, budget: false, ...options });
const response = (status: number, headers?: Record<string, string>): Outcome =>
  headers === undefined ? { type: 'response', status } : { type: 'response', status, headers };
const failure = (kind: ErrorKind, error: unknown = new Error(kind)): Outcome => ({
  type: 'error',
  kind,
  error,
});
const first = (outcome: Outcome, request: RequestDescription = {}, options: BackoffOptions = {}): Decision =>
  next(startCall(policy(options), { url: URL_, ...request }), outcome);
const retry = (delay: number, reason: string, serverDelay?: number, retryNumber = 1) => ({
  retry: true,
  retryNumber,
  delay,
  reason,
  serverDelay,
});
const stop = (reason: string, serverDelay?: number) => ({ retry: false, reason, serverDelay });

type Row = [
  label: string,
  outcome: Outcome,
  request: RequestDescription,
  options: BackoffOptions,
  expected: object,
];

describe('decision table: statuses', () => {
  const key = { headers: { 'Idempotency-Key': '"k-1"' } };
  it.each<Row>([
    ...[408, 500, 502, 503, 504].map((s): Row => [`${s}`, response(s), {}, {}, retry(500, 'status')]),
    // A 429 without a timing header is throttling: base >= 1 s and equal jitter, never "at once".
    ['429 (throttling: 500 + 0.5 x 500)', response(429), {}, {}, retry(750, 'status')],
    [
      '429 with baseDelay 10 (the base is still 1 s)',
      response(429),
      {},
      { baseDelay: 10 },
      retry(750, 'status'),
    ],
    [
      '429 with maxDelay 200 (capped)',
      response(429),
      {},
      { baseDelay: 10, maxDelay: 200 },
      retry(150, 'status'),
    ],
    ['429 with jitter none', response(429), {}, { baseDelay: 10, jitter: 'none' }, retry(1000, 'status')],
    ['429 with jitter equal', response(429), {}, { jitter: 'equal' }, retry(750, 'status')],
    ['429 with baseDelay 4000', response(429), {}, { baseDelay: 4000 }, retry(3000, 'status')],
    ...[200, 201, 204, 301, 304].map((s): Row => [`${s}`, response(s), {}, {}, stop('success')]),
    ...[400, 401, 403, 404, 405, 410, 422, 501, 505, 599].map(
      (s): Row => [`${s}`, response(s), {}, {}, stop('not-retryable-status')],
    ),
    ['409 on a PUT without a key', response(409), { method: 'PUT' }, {}, stop('not-retryable-status')],
    [
      '409 on a PUT with a key',
      response(409),
      { method: 'PUT', ...key },
      {},
      retry(500, 'idempotency-conflict'),
    ],
    [
      '409 on a POST with a key',
      response(409),
      { method: 'POST', ...key },
      {},
      retry(500, 'idempotency-conflict'),
    ],
    [
      '409 with a key and an empty statusCodes list (its own rule)',
      response(409),
      key,
      { statusCodes: [] },
      retry(500, 'idempotency-conflict'),
    ],
    ['413 without server timing', response(413), {}, {}, stop('not-retryable-status')],
    [
      '413 with Retry-After: 1',
      response(413, { 'retry-after': '1' }),
      {},
      {},
      retry(1750, 'payload-too-large-with-timing', 1000),
    ],
    [
      '413 with a RateLimit t=2',
      response(413, { ratelimit: '"default";r=0;t=2' }),
      {},
      {},
      retry(3500, 'payload-too-large-with-timing', 2000),
    ],
    [
      '413 with a malformed Retry-After',
      response(413, { 'retry-after': '1.5' }),
      {},
      {},
      stop('not-retryable-status'),
    ],
    [
      '413 with a Retry-After above maxRetryAfter',
      response(413, { 'retry-after': '120' }),
      {},
      {},
      stop('retry-after-too-long', 120_000),
    ],
    ['429 with Retry-After: 2', response(429, { 'retry-after': '2' }), {}, {}, retry(3500, 'status', 2000)],
    ['503 with Retry-After: 0', response(503, { 'retry-after': '0' }), {}, {}, retry(75, 'status', 0)],
    [
      '503 with a malformed Retry-After',
      response(503, { 'retry-after': 'soon' }),
      {},
      {},
      retry(500, 'status'),
    ],
    [
      '404 with Retry-After: the server delay is still reported',
      response(404, { 'retry-after': '5' }),
      {},
      {},
      stop('not-retryable-status', 5000),
    ],
    [
      '200 with Retry-After: not read below 400',
      response(200, { 'retry-after': '5' }),
      {},
      {},
      stop('success'),
    ],
    ['418 with statusCodes [418]', response(418), {}, { statusCodes: [418] }, retry(500, 'status')],
    ['503 with statusCodes [418]', response(503), {}, { statusCodes: [418] }, stop('not-retryable-status')],
  ])('%s', (_label, outcome, request, options, expected) => {
    expect(first(outcome, request, options)).toStrictEqual(expected);
  });
});

describe('decision table: error kinds', () => {
  it.each<Row>([
    ['network', failure('network'), {}, {}, retry(500, 'network-error')],
    ['timeout (retryOnTimeout true)', failure('timeout'), {}, {}, retry(500, 'timeout')],
    [
      'timeout (retryOnTimeout false)',
      failure('timeout'),
      {},
      { retryOnTimeout: false },
      stop('timeout-not-retried'),
    ],
    ['abort', failure('abort'), {}, {}, stop('aborted')],
    ['tls', failure('tls'), {}, {}, stop('not-retryable-error')],
    ['unknown', failure('unknown'), {}, {}, stop('not-retryable-error')],
  ])('%s', (_label, outcome, request, options, expected) => {
    expect(first(outcome, request, options)).toStrictEqual(expected);
  });
});

describe('decision table: the method gate', () => {
  it.each(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE', 'QUERY', 'get', 'put', undefined])(
    '%s retries freely',
    (method) => {
      expect(first(response(503), { method })).toStrictEqual(retry(500, 'status'));
    },
  );

  it.each(['POST', 'PATCH', 'PURGE', 'CONNECT', 'post'])('%s without a key is not retried', (method) => {
    expect(first(response(503), { method })).toStrictEqual(stop('method-not-idempotent'));
    expect(first(failure('network'), { method })).toStrictEqual(stop('method-not-idempotent'));
  });

  it.each<[string, RequestDescription['headers']]>([
    ['Idempotency-Key', { 'Idempotency-Key': '"k"' }],
    ['idempotency-key', { 'idempotency-key': '"k"' }],
    ['IDEMPOTENCY-KEY', { 'IDEMPOTENCY-KEY': '"k"' }],
    ['a Headers', new Headers({ 'Idempotency-Key': '"k"' })],
    ['a getter', (name: string) => (name.toLowerCase() === 'idempotency-key' ? '"k"' : undefined)],
  ])('POST and PATCH with the key as %s are retried', (_label, headers) => {
    expect(first(response(503), { method: 'POST', headers })).toStrictEqual(retry(500, 'status'));
    expect(first(failure('network'), { method: 'PATCH', headers })).toStrictEqual(
      retry(500, 'network-error'),
    );
  });

  it.each(['', '   '])('an empty key (%j) is no key: the POST is not retried', (value) => {
    const headers = { 'Idempotency-Key': value };
    expect(first(response(503), { method: 'POST', headers })).toStrictEqual(stop('method-not-idempotent'));
  });

  it('a custom idempotencyKeyHeader is the one looked for', () => {
    const options = { idempotencyKeyHeader: 'X-Request-Key' };
    expect(
      first(response(503), { method: 'POST', headers: { 'x-request-key': 'k' } }, options),
    ).toStrictEqual(retry(500, 'status'));
    expect(
      first(response(503), { method: 'POST', headers: { 'Idempotency-Key': 'k' } }, options),
    ).toStrictEqual(stop('method-not-idempotent'));
  });

  it('a custom methods list replaces the default one', () => {
    expect(first(response(503), { method: 'PUT' }, { methods: ['GET'] })).toStrictEqual(
      stop('method-not-idempotent'),
    );
    expect(first(response(503), { method: 'POST' }, { methods: ['GET', 'post'] })).toStrictEqual(
      retry(500, 'status'),
    );
  });

  it('the outcome is judged before the gate: a POST 404 is a not-retryable status', () => {
    expect(first(response(404), { method: 'POST' })).toStrictEqual(stop('not-retryable-status'));
  });

  it('the state holds the uppercased method and the url', () => {
    const state = startCall(policy(), { method: 'patch', url: URL_ });
    expect(state.method).toBe('PATCH');
    expect(state.url).toBe(URL_);
    expect(startCall(policy()).method).toBe('GET');
  });
});

describe('a forced retry that sends a request of its own (a replacement)', () => {
  const KEY = { 'Idempotency-Key': '"k-2"' };
  const forced = (replacement?: Replacement): Outcome => ({
    type: 'response',
    status: 200,
    forced: true,
    replacement,
  });

  it.each<[string, Replacement, object]>([
    ['a PUT goes: its method needs no key', { method: 'PUT' }, retry(0, 'should-retry')],
    ['a POST with a key goes', { method: 'post', headers: KEY }, retry(0, 'should-retry')],
    ['a keyless POST stays refused', { method: 'POST' }, stop('method-not-idempotent')],
  ])('after a keyless POST, the request sent next is judged: %s', (_label, replacement, expected) => {
    expect(next(startCall(policy(), { method: 'POST' }), forced(replacement))).toStrictEqual(expected);
  });

  it('without one, the request sent so far is judged: a keyless POST is refused, a GET goes', () => {
    expect(next(startCall(policy(), { method: 'POST' }), forced())).toStrictEqual(
      stop('method-not-idempotent'),
    );
    expect(next(startCall(policy(), { method: 'GET' }), forced())).toStrictEqual(retry(0, 'should-retry'));
  });

  it("a GET's replacement that is a keyless POST is refused, and never retried after it went", () => {
    expect(next(startCall(policy(), { method: 'GET' }), forced({ method: 'POST' }))).toStrictEqual(
      stop('method-not-idempotent'),
    );
    // A keyed POST goes; sent without its key (a hook dropped it), its 503 is not retried.
    const state = startCall(policy(), { method: 'GET' });
    expect(next(state, forced({ method: 'POST', headers: KEY }))).toMatchObject({ retry: true });
    state.sent({});
    expect(next(state, response(503))).toStrictEqual(stop('method-not-idempotent'));
  });

  it('from then on the call is the replacement: a PUT after a keyless POST is retried on a 503', () => {
    const state = startCall(policy(), { method: 'POST' });
    expect(next(state, forced({ method: 'PUT' }))).toMatchObject({ retry: true });
    state.sent({});
    expect(next(state, response(503))).toStrictEqual(retry(1000, 'status', undefined, 2));
  });

  it("the keyless POST's key does not bind the keyed replacement: it goes with its own", () => {
    const state = startCall(policy(), { method: 'POST' });
    state.sent({});
    expect(next(state, forced({ method: 'POST', headers: KEY }))).toMatchObject({ retry: true });
    state.sent(KEY);
    expect(state.reached).toBeUndefined();
    expect(next(state, response(503))).toStrictEqual(retry(1000, 'status', undefined, 2));
    expect(state.reached).toBe('"k-2"');
  });
});

describe("idempotencyKey: 'auto' and key functions", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("'auto' gives a non-idempotent request a quoted UUID v4, retried once the adapter reports it sent", () => {
    const state = startCall(policy({ idempotencyKey: 'auto' }), { method: 'POST' });
    expect(state.key).toMatch(UUID_V4_QUOTED);
    state.sent({ 'Idempotency-Key': state.key });
    expect(next(state, response(503))).toStrictEqual(retry(500, 'status'));
    expect(next(state, response(409))).toStrictEqual(retry(1000, 'idempotency-conflict', undefined, 2));
  });

  it.each<[string, Record<string, unknown> | undefined]>([
    ['no report at all', undefined],
    ['headers without the key', {}],
    ['the key header false (axios kept a `false` over the key)', { 'Idempotency-Key': false }],
    ['the key header null', { 'idempotency-key': null }],
    ['an empty key', { 'IDEMPOTENCY-KEY': '  ' }],
    ['an empty list', { 'Idempotency-Key': [] }],
    ['a key that cannot travel', { 'Idempotency-Key': 'заказ' }],
  ])('a generated key the adapter did not report as sent never allows a retry: %s', (_label, sent) => {
    const state = startCall(policy({ idempotencyKey: 'auto' }), { method: 'POST' });
    expect(state.key).toMatch(UUID_V4_QUOTED);
    if (sent !== undefined) state.sent(sent);
    expect(next(state, response(503))).toStrictEqual(stop('method-not-idempotent'));
    expect(next(state, response(409))).toStrictEqual(stop('not-retryable-status'));
  });

  it('the last report counts: a key that disappears from a later attempt stops the retries', () => {
    const state = startCall(policy(), { method: 'POST', headers: { 'Idempotency-Key': '"k"' } });
    expect(next(state, response(503))).toMatchObject({ retry: true });
    state.sent({ 'idempotency-key': false });
    expect(next(state, response(503))).toStrictEqual(stop('method-not-idempotent'));
  });

  it("a GET's 409 is retried only when the attempt as sent carried a key: the last report counts", () => {
    const state = startCall(policy(), { method: 'GET' });
    state.sent({ 'idempotency-key': 'k-1' });
    expect(next(state, response(409))).toStrictEqual(retry(500, 'idempotency-conflict'));
    state.sent({});
    expect(next(state, response(409))).toStrictEqual(stop('not-retryable-status'));
  });

  it("'auto' gives every logical request its own key, once", () => {
    const auto = policy({ idempotencyKey: 'auto' });
    const a = startCall(auto, { method: 'POST' });
    const b = startCall(auto, { method: 'POST' });
    expect(a.key).not.toBe(b.key);
    const key = a.key;
    next(a, response(503));
    expect(a.key).toBe(key);
  });

  it.each(['GET', 'PUT', 'DELETE', 'QUERY'])("'auto' adds nothing to %s (idempotent)", (method) => {
    expect(startCall(policy({ idempotencyKey: 'auto' }), { method }).key).toBeUndefined();
  });

  it("'auto' adds nothing when the request already has a key (in any case), and it still retries", () => {
    const state = startCall(policy({ idempotencyKey: 'auto' }), {
      method: 'POST',
      headers: { 'IDEMPOTENCY-KEY': 'mine' },
    });
    expect(state.key).toBeUndefined();
    expect(next(state, response(503))).toStrictEqual(retry(500, 'status'));
  });

  it("'auto' looks for the custom header", () => {
    const auto = policy({ idempotencyKey: 'auto', idempotencyKeyHeader: 'X-Key' });
    expect(startCall(auto, { method: 'POST', headers: { 'x-key': 'mine' } }).key).toBeUndefined();
    expect(startCall(auto, { method: 'POST', headers: { 'Idempotency-Key': 'x' } }).key).toMatch(
      UUID_V4_QUOTED,
    );
  });

  it("'auto' builds a v4 UUID from getRandomValues where randomUUID is missing (insecure contexts)", () => {
    vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => bytes.fill(0xff) });
    expect(startCall(policy({ idempotencyKey: 'auto' }), { method: 'POST' }).key).toBe(
      '"ffffffff-ffff-4fff-bfff-ffffffffffff"',
    );
  });

  it('off by default: a POST gets no key', () => {
    expect(startCall(policy(), { method: 'POST' }).key).toBeUndefined();
  });

  it("a function's value is used as it is, called once per logical request that needs a key", () => {
    const make = vi.fn(() => 'order-1');
    const keyed = policy({ idempotencyKey: make });
    const state = startCall(keyed, { method: 'POST' });
    expect(state.key).toBe('order-1');
    next(state, response(503));
    next(state, response(503));
    expect(make).toHaveBeenCalledTimes(1);
    startCall(keyed, { method: 'GET' });
    startCall(keyed, { method: 'POST', headers: { 'idempotency-key': 'x' } });
    expect(make).toHaveBeenCalledTimes(1);
  });

  it.each<[string, unknown]>([
    ['an empty string', ''],
    ['a number', 42],
    ['undefined', undefined],
    ['a string with a line break', 'a\r\nb'],
    ['a string with a NUL', 'a\0b'],
  ])('a key function returning %s -> TypeError at start()', (_label, value) => {
    const keyed = policy({ idempotencyKey: () => value as string });
    expect(() => startCall(keyed, { method: 'POST' })).toThrow(TypeError);
    expect(() => startCall(keyed, { method: 'POST' })).toThrow(/`idempotencyKey`/);
  });

  // A key is an sf-string of visible ASCII (0x20-0x7E), quoted, or bare without `"`, `\` and `,`.
  it.each<[string, string, RegExp]>([
    ['Cyrillic and Greek (axios strips both to "-")', 'заказ-α', /"з" \(U\+0437\) is not visible ASCII/],
    ['a Latin-1 letter', 'café-1', /"é" \(U\+00E9\) is not visible ASCII/],
    ['a tab', 'a\tb', /U\+0009/],
    ['DEL', 'a\x7fb', /U\+007F/],
    ['spaces only', '   ', /it is empty/],
    ['an empty quoted string', '""', /it is empty/],
    ['a leading space', ' order-1', /starts or ends with a space/],
    ['an unterminated quoted string', '"order-1', /no well-formed quoted string/],
    ['an unescaped quote inside quotes', '"a"b"', /no well-formed quoted string/],
    ['a bare backslash', 'a\\b', /a bare key may not hold/],
    ['a bare comma (a list to a structured-field parser)', 'a,b', /a bare key may not hold/],
  ])(
    'a generated key with %s -> TypeError naming the problem, before anything is sent',
    (_l, key, problem) => {
      const keyed = policy({ idempotencyKey: () => key });
      expect(() => startCall(keyed, { method: 'POST' })).toThrow(TypeError);
      expect(() => startCall(keyed, { method: 'POST' })).toThrow(problem);
      expect(() => startCall(keyed, { method: 'POST' })).toThrow(
        `Expected \`idempotencyKey\` to return a key of visible ASCII, got ${JSON.stringify(key)}: `,
      );
    },
  );

  it('a caller key that cannot travel -> TypeError naming the header, for any method', () => {
    for (const method of ['POST', 'PUT', 'GET']) {
      expect(() => startCall(policy(), { method, headers: { 'Idempotency-Key': 'заказ-β' } })).toThrow(
        new TypeError(
          'The request\'s `Idempotency-Key` header cannot be sent as it is, got "заказ-β": "з" (U+0437) is not visible ASCII.',
        ),
      );
    }
    expect(() =>
      startCall(policy({ idempotencyKeyHeader: 'X-Key' }), { method: 'POST', headers: { 'x-key': 'a, b' } }),
    ).toThrow(/`X-Key` header cannot be sent as it is, got "a, b": a bare key may not hold/);
  });

  it.each([
    '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
    '"with space and \\"escaped\\" quote and \\\\ backslash"',
    'order-42',
    'ik_live 2026/12/02:42',
    '"~!#$%&\'()*+,-./:;<=>?@[]^_`{|}"',
  ])('%s is a key that travels: used as it is, and retried', (key) => {
    const state = startCall(policy({ idempotencyKey: () => key }), { method: 'POST' });
    expect(state.key).toBe(key);
    state.sent({ 'Idempotency-Key': key });
    expect(next(state, response(503))).toMatchObject({ retry: true });
    const caller = startCall(policy(), { method: 'POST', headers: { 'Idempotency-Key': key } });
    expect(next(caller, response(503))).toMatchObject({ retry: true });
  });
});

describe('non-replayable bodies', () => {
  it.each<Row>([
    ['a 503 on a GET', response(503), { replayable: false }, {}, stop('body-not-replayable')],
    [
      'a network error on a PUT',
      failure('network'),
      { method: 'PUT', replayable: false },
      {},
      stop('body-not-replayable'),
    ],
    ['a 200', response(200), { replayable: false }, {}, stop('success')],
    [
      'a POST without a key: the method gate speaks first',
      response(503),
      { method: 'POST', replayable: false },
      {},
      stop('method-not-idempotent'),
    ],
    ['replayable: true', response(503), { replayable: true }, {}, retry(500, 'status')],
  ])('%s', (_label, outcome, request, options, expected) => {
    expect(first(outcome, request, options)).toStrictEqual(expected);
  });
});

describe('shouldRetry: three states, no bypass of the limits', () => {
  const says = (value: boolean | undefined) => ({ shouldRetry: () => value });

  it.each<Row>([
    ['true on a 404', response(404), {}, says(true), retry(500, 'should-retry')],
    ['true on a tls error', failure('tls'), {}, says(true), retry(500, 'should-retry')],
    // A success by the rules is not asked about (every peer asks about failures only); a listed 2xx is.
    ['true on a 200: not asked, a success', response(200), {}, says(true), stop('success')],
    ['true on a 304: not asked, a success', response(304), {}, says(true), stop('success')],
    [
      'false on a 202 listed in statusCodes',
      response(202),
      {},
      { statusCodes: [202], ...says(false) },
      stop('should-retry'),
    ],
    ['true on a 503 keeps the reason', response(503), {}, says(true), retry(500, 'status')],
    ['false on a 503', response(503), {}, says(false), stop('should-retry')],
    ['false on a network error', failure('network'), {}, says(false), stop('should-retry')],
    ['false on a 404 keeps the reason', response(404), {}, says(false), stop('not-retryable-status')],
    ['undefined on a 503: the default rules', response(503), {}, says(undefined), retry(500, 'status')],
    [
      'undefined on a 404: the default rules',
      response(404),
      {},
      says(undefined),
      stop('not-retryable-status'),
    ],
    [
      'a non-boolean (1) counts as undefined',
      response(404),
      {},
      { shouldRetry: () => 1 as unknown as boolean },
      stop('not-retryable-status'),
    ],
    // It cannot bypass:
    [
      'true cannot bypass the method gate',
      response(503),
      { method: 'POST' },
      says(true),
      stop('method-not-idempotent'),
    ],
    [
      'true cannot bypass a non-replayable body',
      response(404),
      { replayable: false },
      says(true),
      stop('body-not-replayable'),
    ],
    [
      'true cannot bypass retries',
      response(404),
      {},
      { ...says(true), retries: 0 },
      stop('retries-exhausted'),
    ],
    [
      'true cannot bypass the deadline',
      response(404),
      {},
      { ...says(true), deadline: 100 },
      stop('deadline'),
    ],
    [
      'true cannot bypass maxRetryAfter',
      response(404, { 'retry-after': '120' }),
      {},
      says(true),
      stop('retry-after-too-long', 120_000),
    ],
    [
      'true cannot bypass the budget',
      response(404),
      {},
      { ...says(true), budget: { reserve: 0 } },
      stop('budget-exhausted'),
    ],
  ])('%s', (_label, outcome, request, options, expected) => {
    expect(first(outcome, request, options)).toStrictEqual(expected);
  });

  it('is asked with the attempt, the request and the default verdict', () => {
    const shouldRetry = vi.fn((_context: ShouldRetryContext) => undefined);
    const state = startCall(policy({ shouldRetry }), { method: 'PUT', url: URL_ });
    const unavailable = response(503);
    next(state, unavailable);
    const error = new Error('tls');
    const tls = failure('tls', error);
    next(state, tls);
    expect(shouldRetry.mock.calls.map(([context]) => context)).toStrictEqual([
      {
        attempt: 1,
        retries: 3,
        method: 'PUT',
        url: URL_,
        status: 503,
        error: undefined,
        response: undefined,
        headers: undefined,
        outcome: unavailable,
        retryable: true,
      },
      {
        attempt: 2,
        retries: 3,
        method: 'PUT',
        url: URL_,
        status: undefined,
        error,
        response: undefined,
        headers: undefined,
        outcome: tls,
        retryable: false,
      },
    ]);
  });

  it('is not asked about an abort', () => {
    const shouldRetry = vi.fn(() => true);
    expect(first(failure('abort'), {}, { shouldRetry })).toStrictEqual(stop('aborted'));
    expect(shouldRetry).not.toHaveBeenCalled();
  });
});

describe('the retries limit', () => {
  it('allows exactly `retries` retries, with growing delays, then stops', () => {
    const state = startCall(policy({ retries: 3 }));
    expect(next(state, response(503))).toStrictEqual(retry(500, 'status', undefined, 1));
    expect(next(state, response(503))).toStrictEqual(retry(1000, 'status', undefined, 2));
    expect(next(state, response(503))).toStrictEqual(retry(2000, 'status', undefined, 3));
    expect(next(state, response(503))).toStrictEqual(stop('retries-exhausted'));
    expect(state.attempts).toBe(4);
  });

  it('retries 0 never retries', () => {
    expect(first(response(503), {}, { retries: 0 })).toStrictEqual(stop('retries-exhausted'));
  });

  it('retries are counted before maxRetryAfter (and the server delay is still reported)', () => {
    expect(first(response(429, { 'retry-after': '120' }), {}, { retries: 0 })).toStrictEqual(
      stop('retries-exhausted', 120_000),
    );
  });

  it('decorrelated jitter keeps its state per logical request', () => {
    const decorrelated = policy({ jitter: 'decorrelated' });
    const a = startCall(decorrelated);
    expect(next(a, response(503))).toMatchObject({ delay: 2000 });
    expect(next(a, response(503))).toMatchObject({ delay: 3500 });
    expect(next(startCall(decorrelated), response(503))).toMatchObject({ delay: 2000 });
    // A server-given wait becomes the previous delay.
    const b = startCall(decorrelated);
    expect(next(b, response(429, { 'retry-after': '10' }))).toMatchObject({ delay: 11_750 });
    expect(next(b, response(503))).toMatchObject({ delay: 15_500 });
  });
});

describe('deadline: never start a wait that ends past it', () => {
  const clocked = (options: BackoffOptions) => {
    const clock = { t: NOW };
    return { clock, state: startCall(policy({ ...options, now: () => clock.t })) };
  };

  it('stops when the next wait would end after the deadline', () => {
    const { clock, state } = clocked({ deadline: 1200 });
    expect(next(state, response(503))).toStrictEqual(retry(500, 'status'));
    clock.t += 500;
    // 500 ms spent + 1000 ms wait = 1500 > 1200.
    expect(next(state, response(503))).toStrictEqual(stop('deadline'));
  });

  it('a wait that ends exactly at the deadline is allowed; 1 ms less is not', () => {
    expect(first(response(503), {}, { deadline: 500 })).toStrictEqual(retry(500, 'status'));
    expect(first(response(503), {}, { deadline: 499 })).toStrictEqual(stop('deadline'));
    expect(first(response(503), {}, { deadline: 0 })).toStrictEqual(stop('deadline'));
  });

  it('counts the attempts themselves, from start()', () => {
    const { clock, state } = clocked({ deadline: 1000 });
    clock.t += 600;
    expect(next(state, response(503))).toStrictEqual(stop('deadline'));
  });

  it("shrinks the server delay's spread to fit the deadline, and gives up when the server delay itself is past it", () => {
    // The 50 ms left above the server's delay is the window: 1000 + 0.5 x 50.
    expect(first(response(503, { 'retry-after': '1' }), {}, { deadline: 1050 })).toStrictEqual(
      retry(1025, 'status', 1000),
    );
    expect(first(response(503, { 'retry-after': '1' }), {}, { deadline: 999 })).toStrictEqual(
      stop('deadline', 1000),
    );
  });

  const outcome = fc.oneof(
    fc.constantFrom(408, 429, 500, 503, 504, 409, 413, 200, 404).map((status) => response(status)),
    fc
      .record({ status: fc.constantFrom(429, 503, 413), seconds: fc.integer({ min: 0, max: 90 }) })
      .map(({ status, seconds }) => response(status, { 'retry-after': String(seconds) })),
    fc.constantFrom<ErrorKind>('network', 'timeout').map((kind) => failure(kind)),
  );

  it('property: for any outcomes and clock, elapsed + delay <= deadline whenever it retries', () => {
    fc.assert(
      fc.property(
        fc.record({
          deadline: fc.integer({ min: 0, max: 120_000 }),
          retries: fc.integer({ min: 0, max: 10 }),
          baseDelay: fc.integer({ min: 0, max: 5000 }),
          jitter: fc.constantFrom<Jitter>('full', 'equal', 'decorrelated', 'none'),
          r: fc.double({ min: 0, max: 1, maxExcluded: true }),
        }),
        fc.array(fc.record({ outcome, duration: fc.integer({ min: 0, max: 30_000 }) }), { maxLength: 12 }),
        ({ deadline, retries, baseDelay, jitter, r }, attempts) => {
          let t = NOW;
          const state = startCall(
            createBackoff({
              deadline,
              retries,
              baseDelay,
              jitter,
              budget: false,
              random: () => r,
              now: () => t,
            }),
            { headers: { 'Idempotency-Key': 'k' } },
          );
          for (const attempt of attempts) {
            t += attempt.duration;
            const decision = next(state, attempt.outcome);
            if (!decision.retry) break;
            expect(t - NOW + decision.delay).toBeLessThanOrEqual(deadline);
            t += decision.delay;
          }
        },
      ),
    );
  });
});

describe('maxRetryAfter and server delays in decisions', () => {
  it.each<[string, Outcome, BackoffOptions, object]>([
    [
      'Retry-After 61 s > 60 s: give up, report it',
      response(429, { 'retry-after': '61' }),
      {},
      stop('retry-after-too-long', 61_000),
    ],
    [
      'Retry-After 60 s: honoured, no room for a spread under maxRetryAfter',
      response(429, { 'retry-after': '60' }),
      {},
      retry(60_000, 'status', 60_000),
    ],
    [
      'Retry-After 59 s: 59 s + 0.5 x the 1 s left under maxRetryAfter',
      response(429, { 'retry-after': '59' }),
      {},
      retry(59_500, 'status', 59_000),
    ],
    [
      'maxRetryAfter 5000 and Retry-After 6',
      response(503, { 'retry-after': '6' }),
      { maxRetryAfter: 5000 },
      stop('retry-after-too-long', 6000),
    ],
    [
      'maxRetryAfter 0 and Retry-After 0',
      response(503, { 'retry-after': '0' }),
      { maxRetryAfter: 0 },
      retry(0, 'status', 0),
    ],
    [
      'an HTTP-date 2 minutes ahead',
      response(503, { 'retry-after': 'Wed, 02 Dec 2026 12:02:00 GMT' }),
      {},
      stop('retry-after-too-long', 120_000),
    ],
    [
      'a Retry-After of 400 digits',
      response(503, { 'retry-after': '9'.repeat(400) }),
      {},
      stop('retry-after-too-long', Number.MAX_SAFE_INTEGER),
    ],
  ])('%s', (_label, outcome, options, expected) => {
    expect(first(outcome, {}, options)).toStrictEqual(expected);
  });

  it('property: a honoured server delay is never shortened', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.double({ min: 0, max: 1, maxExcluded: true }),
        (seconds, r) => {
          const decision = next(
            startCall(policy({ random: () => r })),
            response(429, { 'retry-after': String(seconds) }),
          );
          expect(decision.retry).toBe(true);
          if (decision.retry) {
            expect(decision.delay).toBeGreaterThanOrEqual(seconds * 1000);
            // The first window is at most 3.5 s, and maxRetryAfter caps the wait.
            expect(decision.delay).toBeLessThanOrEqual(Math.min(60_000, seconds * 1000 + 3500));
          }
        },
      ),
    );
  });
});

describe('the budget inside decisions', () => {
  it('is spent only on a retry that is actually made', () => {
    const budget = new RetryBudget({ reserve: 5 });
    const p = policy({ budget, retries: 1 });
    next(startCall(p, { method: 'POST' }), response(503)); // method gate
    next(startCall(p, { replayable: false }), response(503)); // body
    next(startCall(p), response(404)); // not retryable
    const state = startCall(p);
    next(state, response(503)); // retry: spends 1
    next(state, response(503)); // retries exhausted
    next(startCall(p, {}), response(503, { 'retry-after': '120' })); // too long
    expect(budget.snapshot()).toMatchObject({ acquired: 1, refused: 0 });
  });

  it('counts answered requests as successes: 2xx/3xx/4xx that are not retried, not 5xx or errors', () => {
    const budget = new RetryBudget();
    const p = policy({ budget });
    for (const outcome of [response(200), response(304), response(404), response(409), response(501)]) {
      next(startCall(p), outcome);
    }
    next(startCall(p), failure('tls'));
    next(startCall(p), response(503));
    expect(budget.snapshot().successes).toBe(4);
  });

  it('an empty budget stops with budget-exhausted and still reports the server delay', () => {
    expect(first(response(429, { 'retry-after': '1' }), {}, { budget: { reserve: 0 } })).toStrictEqual(
      stop('budget-exhausted', 1000),
    );
  });
});

describe('result() and onRetry', () => {
  it('result() before any attempt', () => {
    expect(startCall(policy()).result()).toStrictEqual({
      attempts: 0,
      totalDelay: 0,
      reason: 'success',
      serverDelay: undefined,
      hedges: 0,
      hedgeWon: false,
    });
  });

  it('result() counts attempts and waits, and keeps the last reason and server delay', async () => {
    const clock = new VirtualClock(NOW);
    const { result } = await run(policy({ timers: clock.timers, now: clock.now }), [
      response(503),
      response(429, { 'retry-after': '1' }),
      response(404, { 'retry-after': '5' }),
    ]);
    expect(result).toStrictEqual({
      attempts: 3,
      totalDelay: 2250,
      reason: 'not-retryable-status',
      serverDelay: 5000,
      hedges: 0,
      hedgeWon: false,
    });
  });

  it('result() after a give-up on a long Retry-After', () => {
    const state = startCall(policy());
    next(state, response(503, { 'retry-after': '120' }));
    expect(state.result()).toStrictEqual({
      attempts: 1,
      totalDelay: 0,
      reason: 'retry-after-too-long',
      serverDelay: 120_000,
      hedges: 0,
      hedgeWon: false,
    });
  });

  it('onRetry fires before every wait with the full event', async () => {
    const clock = new VirtualClock(NOW);
    const events: Array<RetryEvent & { waitsSoFar: number }> = [];
    const p = policy({
      timers: clock.timers,
      now: clock.now,
      onRetry: (event) => events.push({ ...event, waitsSoFar: clock.waits.length }),
    });
    const error = new TypeError('fetch failed');
    const outcomes = [
      response(503),
      response(429, { 'retry-after': '1' }),
      failure('network', error),
      response(200),
    ];
    const { result } = await run(p, outcomes, { method: 'get', url: URL_ });
    const common = { retries: 3, method: 'GET', url: URL_, waitingForNetwork: false };
    expect(events).toStrictEqual([
      {
        ...common,
        retry: 1,
        delay: 500,
        serverDelay: undefined,
        reason: 'status',
        status: 503,
        error: undefined,
        waitsSoFar: 0,
      },
      {
        ...common,
        retry: 2,
        delay: 1750,
        serverDelay: 1000,
        reason: 'status',
        status: 429,
        error: undefined,
        waitsSoFar: 1,
      },
      {
        ...common,
        retry: 3,
        delay: 2000,
        serverDelay: undefined,
        reason: 'network-error',
        status: undefined,
        error,
        waitsSoFar: 2,
      },
    ]);
    expect(clock.waits).toEqual([500, 1750, 2000]);
    expect(result).toStrictEqual({
      attempts: 4,
      totalDelay: 4250,
      reason: 'success',
      serverDelay: undefined,
      hedges: 0,
      hedgeWon: false,
    });
  });

  it('a throwing onRetry rejects the wait with its error and no timer is set', async () => {
    const clock = new VirtualClock(NOW);
    const boom = new Error('onRetry failed');
    const p = policy({
      timers: clock.timers,
      onRetry: () => {
        throw boom;
      },
    });
    const { error, result } = await run(p, [response(503)]);
    expect(error).toBe(boom);
    expect(clock.waits).toEqual([]);
    expect(result?.totalDelay).toBe(0);
  });

  it('an abort during the wait rejects with the reason, counts only the time waited, leaves no timer', async () => {
    const clock = new VirtualClock(NOW);
    clock.auto = false;
    const controller = new AbortController();
    const waiting = run(
      policy({ timers: clock.timers, now: clock.now }),
      [response(503)],
      {},
      controller.signal,
    );
    expect(await clock.nextWait()).toBe(500);
    clock.advance(200);
    const reason = new Error('stop');
    controller.abort(reason);
    const { error, result } = await waiting;
    expect(error).toBe(reason);
    expect(result?.totalDelay).toBe(200);
    expect(clock.pendingCount).toBe(0);
  });

  it('an already-aborted signal rejects the wait without a timer', async () => {
    const clock = new VirtualClock(NOW);
    const controller = new AbortController();
    // The caller aborts while the attempt is out; its 503 comes back anyway.
    const answer = () => {
      controller.abort();
      return response(503);
    };
    const p = policy({ timers: clock.timers, now: clock.now });
    const { error, result } = await run(p, answer, {}, controller.signal);
    expect(error).toBe(controller.signal.reason);
    expect(clock.waits).toEqual([]);
    expect(result?.totalDelay).toBe(0);
  });
});

describe('extend(): per-request overrides share the budget unless replaced', () => {
  it('shares the budget: a retry in the override drains the base policy', () => {
    const base = policy({ budget: { reserve: 1 } });
    const override = base.extend({ retries: 5 });
    expect(override.budget).toBe(base.budget);
    expect(next(startCall(override), response(503))).toMatchObject({ retry: true });
    expect(next(startCall(base), response(503))).toStrictEqual(stop('budget-exhausted'));
  });

  it('replaces it when asked: new options, an instance, or false', () => {
    const base = policy({ budget: { reserve: 1 } });
    const own = base.extend({ budget: { reserve: 5 } });
    expect(own.budget).not.toBe(base.budget);
    expect(own.budget?.snapshot().capacity).toBe(5);
    const shared = new RetryBudget();
    expect(base.extend({ budget: shared }).budget).toBe(shared);
    const none = base.extend({ budget: false });
    expect(none.budget).toBeUndefined();
    next(startCall(base), response(503));
    expect(next(startCall(none), response(503))).toMatchObject({ retry: true });
  });

  it('lays the overrides over the base options and leaves the base alone', () => {
    const base = policy({ retries: 1, jitter: 'none' });
    const override = base.extend({ baseDelay: 200 });
    expect(override.options).toMatchObject({ retries: 1, jitter: 'none', baseDelay: 200 });
    expect(base.options.baseDelay).toBe(1000);
    expect(next(startCall(override), response(503))).toStrictEqual(retry(200, 'status'));
  });

  it('extend() without overrides is the same policy', () => {
    const base = policy();
    expect(base.extend()).toBe(base);
    expect(base.extend(undefined)).toBe(base);
  });

  it('one RetryBudget can be shared by two policies', () => {
    const budget = new RetryBudget({ reserve: 1 });
    const a = createBackoff({ budget, random: () => 0.5 });
    const b = createBackoff({ budget, random: () => 0.5 });
    expect(next(startCall(a), response(503))).toMatchObject({ retry: true });
    expect(next(startCall(b), response(503))).toMatchObject({ retry: false, reason: 'budget-exhausted' });
  });
});

describe('waits are whole milliseconds', () => {
  // Full jitter of 1 s, then 2 s from the server plus a 3 s window times random: 123.45… and 2370.37… ms, floored.
  it.each([
    [0.123456789, 123, 2370],
    [0.987654321, 987, 4962],
  ])('computed and server-based waits with random %d: %i ms, then %i ms', (r, computed, server) => {
    const state = startCall(policy({ random: () => r }));
    expect(next(state, response(503))).toMatchObject({ retry: true, delay: computed });
    expect(next(state, response(503, { 'Retry-After': '2' }))).toMatchObject({ retry: true, delay: server });
  });
});

describe('a 429 without a timing header backs off as throttling', () => {
  it('never sooner than half of a 1 s-based backoff, whatever random draws', () => {
    for (const r of [0, 0.001, 0.5, 0.999]) {
      const state = startCall(policy({ random: () => r, baseDelay: 50 }));
      const delays = [1, 2, 3].map(() => {
        const decision = next(state, response(429));
        return decision.retry ? decision.delay : Number.NaN;
      });
      expect(delays[0]).toBeGreaterThanOrEqual(500);
      expect(delays[1]).toBeGreaterThanOrEqual(1000);
      expect(delays[2]).toBeGreaterThanOrEqual(2000);
      // In whole milliseconds.
      expect(delays).toEqual([500 + r * 500, 1000 + r * 1000, 2000 + r * 2000].map(Math.floor));
    }
  });

  it('a 503 keeps the configured backoff (full jitter from baseDelay)', () => {
    expect(first(response(503), {}, { baseDelay: 50, random: () => 0 })).toStrictEqual(retry(0, 'status'));
  });

  it('a 429 with Retry-After waits the server delay as before', () => {
    expect(first(response(429, { 'retry-after': '2' }))).toStrictEqual(retry(3500, 'status', 2000));
  });

  it('decorrelated jitter starts from the 1 s base', () => {
    expect(
      first(response(429), {}, { jitter: 'decorrelated', baseDelay: 10, random: () => 0 }),
    ).toStrictEqual(retry(1000, 'status'));
  });
});
