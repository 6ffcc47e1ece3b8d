import { getBackoffResult, withBackoff } from 'backoff-core';
import { cutBody, eventStream } from 'backoff-core/testing';
import { describe, expect, it } from 'vitest';
import { EXACT, server, time } from './support.ts';

const URL = 'http://api.test/file';

describe('cutBody', () => {
  it('breaks the body after `at` bytes: a plain read fails with what fetch says of a lost connection', async () => {
    const api = cutBody(URL, { at: 1000 });
    server.use(api);
    const response = await fetch(URL);
    expect([response.status, response.headers.get('content-length'), response.headers.get('etag')]).toEqual([
      200,
      '4096',
      '"kit-body-1"',
    ]);
    await expect(response.arrayBuffer()).rejects.toThrow(TypeError);
    expect(api.body.length).toBe(4096);
  });

  it('with `resume`, the body reaches the caller whole, across two cuts', async () => {
    const api = cutBody(URL, { at: [1000, 3000], body: 'x'.repeat(5000) });
    server.use(api);
    const response = await withBackoff(fetch, { ...time.options, ...EXACT, resume: true })(URL);
    expect(await response.text()).toBe('x'.repeat(5000));
    expect(getBackoffResult(response)).toMatchObject({ attempts: 3, resumes: 2 });
    // The first cut comes before the caller read a byte (fetch drops what it had buffered): the body is asked
    // again whole. The second comes after 3000 bytes were read: the rest is asked with Range and If-Range.
    expect(api.requests.map((r) => [r.headers.get('range'), r.headers.get('if-range'), r.answer])).toEqual([
      [null, null, 200],
      [null, null, 200],
      ['bytes=3000-4999', '"kit-body-1"', 206],
    ]);
  });

  it('answers a range past the end with 416, and one with another If-Range whole', async () => {
    server.use(cutBody(URL, { at: 10, body: 'abcdefghijklmnopqrst' }));
    const past = await fetch(URL, { headers: { Range: 'bytes=20-' } });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, 'bytes */20']);
    const changed = await fetch(URL, { headers: { Range: 'bytes=5-', 'If-Range': '"v0"' } });
    expect(changed.status).toBe(200);
  });

  it('names bad options', () => {
    expect(() => cutBody(URL, {} as never)).toThrow(
      'Expected `cutBody.at` to be given: where the body breaks, in bytes ({ at: 1000 }).',
    );
    expect(() => cutBody(URL, { at: [300, 200] })).toThrow(
      'Expected `cutBody.at` to be ascending, got [300, 200].',
    );
    expect(() => cutBody(URL, { at: 50, body: 'short' })).toThrow(
      "Expected `cutBody.at` to be below the body's length (5 bytes), got 50.",
    );
  });
});

describe('eventStream', () => {
  const read = async (response: Response) => {
    const text = await response.text();
    return [...text.matchAll(/^data: (.*)$/gm)].map((match) => match[1]);
  };

  it('sends its events and ends; a cut breaks the stream in the middle of the next event', async () => {
    server.use(eventStream(URL, { events: ['a', 'b', { data: 'c', id: 'third', event: 'tick' }] }));
    const whole = await fetch(URL);
    expect(whole.headers.get('content-type')).toBe('text/event-stream');
    expect(await whole.text()).toBe(
      'id: 1\ndata: a\n\nid: 2\ndata: b\n\nid: third\nevent: tick\ndata: c\n\n',
    );

    server.use(eventStream(URL, { events: ['a', 'b', 'c'], cutAfter: 1 }));
    const cut = await fetch(URL);
    const reader = (cut.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    await expect(
      (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          received += decoder.decode(value);
        }
      })(),
    ).rejects.toThrow('terminated');
    expect(received).toBe('id: 1\ndata: a\n\nid: 2\nda');
  });

  it('with `resume`, the caller gets every event once: the reconnection sends Last-Event-ID after the stream’s retry', async () => {
    const api = eventStream(URL, { events: ['a', 'b', 'c', 'd', 'e'], cutAfter: [2, 4], retry: 3000 });
    server.use(api);
    const response = await withBackoff(fetch, { ...time.options, ...EXACT, resume: true })(URL);
    expect(await read(response)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 3, resumes: 2 });
    expect(
      api.requests.map((r) => [r.at - (api.requests[0]?.at ?? 0), r.headers.get('last-event-id')]),
    ).toEqual([
      [0, null],
      [3000, '2'],
      [6000, '4'],
    ]);
  });

  it('names bad options', () => {
    expect(() => eventStream(URL, { events: [{ id: '1' } as never] })).toThrow(
      'Expected `eventStream.events[0]` to be a string or { data, id, event } with a string `data`, got an object.',
    );
    expect(() => eventStream(URL, { events: ['a'], cutAfter: 0 })).toThrow(
      'Expected `eventStream.cutAfter` to be an integer from 1 to',
    );
  });
});
