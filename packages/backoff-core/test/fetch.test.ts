import { API, ScriptedApi, VirtualClock } from '@backoff/test-utils';
import { type BackoffOptions, getBackoffResult, withBackoff } from 'backoff-core';
import type { FetchLike } from 'backoff-core/adapter';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

const api = new ScriptedApi();
let clock: VirtualClock;

beforeAll(() => api.listen());
afterEach(() => {
  // No wait may outlive its call.
  expect(clock.pendingCount).toBe(0);
  api.reset();
  vi.unstubAllGlobals();
});
afterAll(() => api.close());

const wrap = (fetchFn?: FetchLike, options: BackoffOptions = {}) => {
  clock = new VirtualClock();
  return withBackoff(fetchFn, { random: () => 0.5, timers: clock.timers, now: clock.now, ...options });
};

const bytes = (text: string) => new TextEncoder().encode(text);

describe('withBackoff replays bodies that can be sent again', () => {
  it.each<[string, () => BodyInit, string]>([
    ['a string', () => 'hello', 'hello'],
    ['an ArrayBuffer', () => bytes('array-buffer').buffer as ArrayBuffer, 'array-buffer'],
    ['a Uint8Array', () => bytes('uint8-array'), 'uint8-array'],
    ['a Blob', () => new Blob(['blob-body'], { type: 'text/plain' }), 'blob-body'],
    ['URLSearchParams', () => new URLSearchParams({ a: '1', b: 'two words' }), 'a=1&b=two+words'],
  ])('%s: every attempt gets the full body (server side)', async (_label, body, expected) => {
    const route = api.script('/upload', [503, 503, 200]);
    const response = await wrap()(`${API}/upload`, { method: 'PUT', body: body() });
    expect(response.status).toBe(200);
    expect(route.hits.map((hit) => hit.body)).toEqual([expected, expected, expected]);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 3, totalDelay: 1500, reason: 'success' });
  });

  it('FormData: every attempt gets every field', async () => {
    const route = api.script('/form', [503, 200]);
    const form = new FormData();
    form.append('name', 'Ada');
    form.append('file', new Blob(['file-content'], { type: 'text/plain' }), 'a.txt');
    const response = await wrap()(`${API}/form`, { method: 'PUT', body: form });
    expect(response.status).toBe(200);
    expect(route.hits).toHaveLength(2);
    for (const hit of route.hits) {
      expect(hit.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
      expect(hit.body).toMatch(/name="name"\r\n\r\nAda\r\n/);
      expect(hit.body).toMatch(/filename="a.txt"\r\nContent-Type: text\/plain\r\n\r\nfile-content\r\n/);
    }
  });
});

describe('withBackoff never re-sends a one-shot body', () => {
  it('a ReadableStream body is sent once: 1 hit, reason body-not-replayable', async () => {
    const route = api.script('/stream', [503, 200]);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes('streamed'));
        controller.close();
      },
    });
    const init = { method: 'PUT', body, duplex: 'half' } as RequestInit;
    const response = await wrap()(`${API}/stream`, init);
    expect(response.status).toBe(503);
    expect(route.hits.map((hit) => hit.body)).toEqual(['streamed']);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 1, reason: 'body-not-replayable' });
    expect(clock.waits).toEqual([]);
  });

  it('an async iterable body is sent once', async () => {
    const send = vi.fn<FetchLike>(async () => new Response(null, { status: 503 }));
    const body = {
      async *[Symbol.asyncIterator]() {
        yield bytes('chunk');
      },
    };
    const response = await wrap(send)(`${API}/iterable`, {
      method: 'PUT',
      body: body as unknown as BodyInit,
    });
    expect(send).toHaveBeenCalledTimes(1);
    expect(getBackoffResult(response)?.reason).toBe('body-not-replayable');
  });
});

describe('withBackoff with a Request input', () => {
  it('a Request without a body is retried', async () => {
    const route = api.script('/items', [503, 503, 200]);
    const response = await wrap()(new Request(`${API}/items`));
    expect(response.status).toBe(200);
    expect(route.hits).toHaveLength(3);
  });

  it("a Request's own body is sent once (reason body-not-replayable)", async () => {
    const route = api.script('/items', [503, 200]);
    const response = await wrap()(new Request(`${API}/items`, { method: 'PUT', body: 'once' }));
    expect(response.status).toBe(503);
    expect(route.hits.map((hit) => hit.body)).toEqual(['once']);
    expect(getBackoffResult(response)?.reason).toBe('body-not-replayable');
  });

  it('a body passed in init is replayed', async () => {
    const route = api.script('/items', [503, 200]);
    const response = await wrap()(new Request(`${API}/items`, { method: 'PUT' }), { body: 'again' });
    expect(response.status).toBe(200);
    expect(route.hits.map((hit) => hit.body)).toEqual(['again', 'again']);
  });

  it("the Request's method and headers decide the gate: a POST with a key is retried, without one is not", async () => {
    const keyed = api.script('/keyed', [503, 200]);
    await wrap()(new Request(`${API}/keyed`, { method: 'POST', headers: { 'Idempotency-Key': '"r-1"' } }));
    expect(keyed.hits.map((hit) => hit.headers.get('idempotency-key'))).toEqual(['"r-1"', '"r-1"']);
    const plain = api.script('/plain', [503, 200]);
    const response = await wrap()(new Request(`${API}/plain`, { method: 'POST' }));
    expect(plain.hits).toHaveLength(1);
    expect(getBackoffResult(response)?.reason).toBe('method-not-idempotent');
  });

  it("the Request's signal aborts the wait", async () => {
    const route = api.script('/slow', [503, 200]);
    const fetchWithBackoff = wrap();
    clock.auto = false;
    const controller = new AbortController();
    const pending = fetchWithBackoff(new Request(`${API}/slow`, { signal: controller.signal }));
    expect(await clock.nextWait()).toBe(500);
    const reason = new Error('user left');
    controller.abort(reason);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(getBackoffResult(error)).toMatchObject({ attempts: 1, totalDelay: 0 });
    expect(route.hits).toHaveLength(1);
  });
});

describe("withBackoff keeps fetch's own errors", () => {
  it("rejects with the last attempt's own TypeError from HttpResponse.error(), carrying the result", async () => {
    const route = api.script('/down', ['network-error']);
    const seen: unknown[] = [];
    const recording: FetchLike = (input, init) =>
      globalThis.fetch(input, init).catch((error: unknown) => {
        seen.push(error);
        throw error;
      });
    const error = await wrap(recording, { retries: 2 })(`${API}/down`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(seen).toHaveLength(3);
    expect(error).toBe(seen[2]);
    expect(route.hits).toHaveLength(3);
    expect(getBackoffResult(error)).toStrictEqual({
      attempts: 3,
      totalDelay: 1500,
      reason: 'retries-exhausted',
      serverDelay: undefined,
      hedges: 0,
      hedgeWon: false,
    });
  });

  it('an error it does not recognise (a bug in a custom fetch) is thrown at once, unretried', async () => {
    const bug = new ReferenceError('x is not defined');
    const send = vi.fn<FetchLike>(async () => {
      throw bug;
    });
    await expect(wrap(send)(`${API}/x`)).rejects.toBe(bug);
    expect(send).toHaveBeenCalledTimes(1);
    expect(getBackoffResult(bug)?.reason).toBe('not-retryable-error');
  });
});

describe('withBackoff with a custom fetch function', () => {
  it('uses it for every attempt with the same input, returns its own Response and frees failed ones', async () => {
    const responses = [new Response('busy', { status: 503 }), new Response('ok', { status: 200 })];
    const send = vi.fn<FetchLike>(async () => responses.shift() as Response);
    const [busy, ok] = responses as [Response, Response];
    const response = await wrap(send)(`${API}/custom`, { method: 'GET', headers: { accept: 'text/plain' } });
    expect(response).toBe(ok);
    expect(send).toHaveBeenCalledTimes(2);
    for (const [input, init] of send.mock.calls) {
      expect(input).toBe(`${API}/custom`);
      expect(init).toStrictEqual({ method: 'GET', headers: { accept: 'text/plain' } });
    }
    // The failed response's body was cancelled, so its connection is released.
    expect(busy.bodyUsed).toBe(true);
    expect(await response.text()).toBe('ok');
  });

  it('resolves with a final 503 (fetch semantics) carrying the result', async () => {
    const send = vi.fn<FetchLike>(async () => new Response(null, { status: 503 }));
    const response = await wrap(send, { retries: 1 })(`${API}/custom`);
    expect(response.status).toBe(503);
    expect(send).toHaveBeenCalledTimes(2);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'retries-exhausted' });
  });

  it('looks globalThis.fetch up per call when no fetch is given', async () => {
    const fetchWithBackoff = wrap();
    const stub = vi.fn(async () => new Response(null, { status: 204 }));
    vi.stubGlobal('fetch', stub);
    expect((await fetchWithBackoff(`${API}/late`)).status).toBe(204);
    expect(stub).toHaveBeenCalledTimes(1);
  });

  it("idempotencyKey 'auto' adds the key without touching the caller's headers", async () => {
    const send = vi.fn<FetchLike>(async () => new Response(null, { status: 201 }));
    const headers = { 'content-type': 'application/json' };
    await wrap(send, { idempotencyKey: 'auto' })(`${API}/orders`, { method: 'POST', headers, body: '{}' });
    const sent = new Headers(send.mock.calls[0]?.[1]?.headers);
    expect(sent.get('idempotency-key')).toMatch(/^"[0-9a-f-]{36}"$/);
    expect(sent.get('content-type')).toBe('application/json');
    expect(headers).toStrictEqual({ 'content-type': 'application/json' });
  });

  it('exposes its policy as .backoff', () => {
    expect(wrap(undefined, { retries: 5 }).backoff.options.retries).toBe(5);
  });
});

describe('getBackoffResult', () => {
  it('is undefined for anything that went through no backoff package, primitives, null and undefined included', () => {
    for (const value of [undefined, null, 0, 'text', true, Symbol('s'), 10n, {}, () => {}, new Error('x')]) {
      expect(getBackoffResult(value)).toBeUndefined();
    }
  });
});

describe('withBackoff per-request override', () => {
  it('`backoff: false` sends once, passes init on without the `backoff` key and attaches nothing', async () => {
    const send = vi.fn<FetchLike>(async () => new Response(null, { status: 503 }));
    const response = await wrap(send)(`${API}/off`, { method: 'GET', backoff: false });
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]?.[1]).toStrictEqual({ method: 'GET' });
    expect(response.status).toBe(503);
    expect(getBackoffResult(response)).toBeUndefined();
  });

  it('an options object overrides the wrapper options for that call only, and is not passed to fetch', async () => {
    const send = vi.fn<FetchLike>(async () => new Response(null, { status: 503 }));
    const fetchWithBackoff = wrap(send);
    await fetchWithBackoff(`${API}/once`, { backoff: { retries: 1, jitter: 'none' } });
    expect(send).toHaveBeenCalledTimes(2);
    expect(send.mock.calls[0]?.[1]).toStrictEqual({});
    expect(clock.waits).toEqual([1000]);
    send.mockClear();
    await fetchWithBackoff(`${API}/default`);
    expect(send).toHaveBeenCalledTimes(4);
  });

  it('a bad override rejects with the TypeError naming it, before anything is sent', async () => {
    const send = vi.fn<FetchLike>(async () => new Response(null));
    await expect(wrap(send)(`${API}/x`, { backoff: { retries: -1 } })).rejects.toThrow(/`retries`/);
    expect(send).not.toHaveBeenCalled();
  });
});

describe('the fetch it is given', () => {
  it('is called as a plain function, as a browser needs its own fetch called (else "Illegal invocation")', async () => {
    // What a browser's fetch does when called as a method of another object.
    const fetchLikeABrowser = function (this: unknown): Promise<Response> {
      if (this !== undefined && this !== globalThis)
        throw new TypeError("Failed to execute 'fetch': Illegal invocation");
      return Promise.resolve(new Response('ok'));
    };
    const response = await withBackoff(fetchLikeABrowser, { budget: false })('https://api.test/items');
    expect(await response.text()).toBe('ok');
  });
});
