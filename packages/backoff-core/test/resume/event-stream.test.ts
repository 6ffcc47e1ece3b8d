import { describe, expect, it } from 'vitest';
import { EventStream } from '../../src/features/resume/event-stream.ts';

const encoder = new TextEncoder();
// ignoreBOM: a BOM is kept, so the tests see it where it is.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const bytes = (text: string) => encoder.encode(text);
const BOM = '\uFEFF';

/** Pushes each chunk; returns what each push handed over, as text. */
function feed(stream: EventStream, chunks: readonly (string | Uint8Array)[]): string[] {
  return chunks.map((chunk) =>
    decoder.decode(stream.push(typeof chunk === 'string' ? bytes(chunk) : chunk), { stream: false }),
  );
}

/** `text` cut into pieces at `cuts` (byte offsets). */
function split(text: string, cuts: readonly number[]): Uint8Array[] {
  const all = bytes(text);
  const at = [0, ...cuts, all.length];
  return at.slice(1).map((end, i) => all.subarray(at[i], end));
}

describe('EventStream: whole events only', () => {
  it('hands over complete events and holds the unfinished one', () => {
    const stream = new EventStream(1024);
    expect(feed(stream, ['id: 1\ndata: a\n\nid: 2\ndata: b', '\n', '\n'])).toEqual([
      'id: 1\ndata: a\n\n',
      '',
      'id: 2\ndata: b\n\n',
    ]);
    expect(stream.lastEventId).toBe('2');
    expect(stream.delivered).toBe(30);
  });

  it('the id line of an unfinished event does not count: Last-Event-ID is the last dispatched', () => {
    const stream = new EventStream(1024);
    feed(stream, ['id: 1\ndata: a\n\nid: 2\ndata: b\n']);
    expect(stream.lastEventId).toBe('1');
  });

  it('ends lines at CR, LF and CRLF; the LF of a CRLF goes with its event', () => {
    const stream = new EventStream(1024);
    expect(feed(stream, ['id: 1\r\ndata: a\r\n\r\nid: 2\rdata: b\r\rid: 3\ndata: c\n\nid: 4\r\n'])).toEqual([
      'id: 1\r\ndata: a\r\n\r\nid: 2\rdata: b\r\rid: 3\ndata: c\n\n',
    ]);
    expect(stream.lastEventId).toBe('3');
    // An LF right after a CR that ended a line is no blank line of its own.
    expect(feed(stream, ['data: d\r', '\n'])).toEqual(['', '']);
    expect(stream.lastEventId).toBe('3');
    expect(feed(stream, ['\r', '\n'])).toEqual(['id: 4\r\ndata: d\r\n\r', '']);
    expect(stream.lastEventId).toBe('4');
  });

  it('wherever the chunks are cut, the same events are handed over, never part of one', () => {
    const text = `${BOM}retry: 250\nid: 1\r\ndata: é\r\n\r\n: ping\n\nid: 2\rdata: x\r\rdata: no id\n\nid\n\nid: 5\ndata: tail`;
    const whole = new EventStream(1024);
    const expected = feed(whole, [text]).join('');
    expect(expected).toBe(text.slice(0, text.indexOf('id: 5')));
    const ends = new Set(
      ['\n\n', '\r\r', '\r\n\r\n', '\r\n\r'].flatMap((end) =>
        [...text.matchAll(new RegExp(end, 'g'))].map(
          (m) => bytes(text.slice(0, m.index + end.length)).length,
        ),
      ),
    );
    const total = bytes(text).length;
    for (let cut = 1; cut < total; cut++) {
      for (const pieces of [split(text, [cut]), split(text, [cut, Math.min(total, cut + 3)])]) {
        const stream = new EventStream(1024);
        let handed = 0;
        for (const piece of pieces) {
          handed += stream.push(piece).length;
          // What was handed over always ends where an event ends.
          if (handed > 0) expect(ends.has(handed)).toBe(true);
        }
        expect({ cut, handed, id: stream.lastEventId, retry: stream.retry }).toEqual({
          cut,
          handed: bytes(expected).length,
          id: '',
          retry: 250,
        });
      }
    }
    // One byte at a time too.
    const bytewise = new EventStream(1024);
    const out = [...bytes(text)].map((byte) =>
      decoder.decode(bytewise.push(Uint8Array.of(byte)), { stream: true }),
    );
    expect(out.join('')).toBe(expected);
  });

  it('a dispatch sets the last event ID even for an event without data, and an id persists across events', () => {
    const stream = new EventStream(1024);
    feed(stream, ['id: 7\n\n']);
    expect(stream.lastEventId).toBe('7');
    feed(stream, ['data: no id of its own\n\n: a comment\n\n']);
    expect(stream.lastEventId).toBe('7');
    expect(stream.hasIds).toBe(true);
  });

  it('reads id values as the standard does', () => {
    const cases: [string, string][] = [
      ['id:3\n\n', '3'],
      ['id:  3\n\n', ' 3'],
      ['id: é😀\n\n', 'é😀'],
      ['id\n\n', ''],
      ['id:\n\n', ''],
    ];
    for (const [text, id] of cases) {
      const stream = new EventStream(1024);
      feed(stream, ['id: before\n\n', text]);
      expect({ text, id: stream.lastEventId }).toEqual({ text, id });
    }
    // Not id fields: a NUL in the value, a leading space, another name.
    for (const text of ['id: a\0b\n\n', ' id: 9\n\n', 'ids: 9\n\n', 'Id: 9\n\n', 'identity: 9\n\n']) {
      const stream = new EventStream(1024);
      feed(stream, ['id: before\n\n', text]);
      expect({ text, id: stream.lastEventId }).toEqual({ text, id: 'before' });
    }
  });

  it('a stream whose events carry no id says so', () => {
    const stream = new EventStream(1024);
    feed(stream, ['data: a\n\ndata: b\n\n']);
    expect(stream.hasIds).toBe(false);
    expect(stream.lastEventId).toBe('');
  });

  it('retry: takes ASCII digits only, as soon as its line ends', () => {
    const stream = new EventStream(1024);
    feed(stream, ['retry: 1500\n']);
    expect(stream.retry).toBe(1500);
    for (const bad of [
      'retry: 15x\n',
      'retry: -1\n',
      'retry:\n',
      'retry: 1.5\n',
      'retry:  20\n',
      'retry: ١٢\n',
    ]) {
      feed(stream, [bad]);
      expect({ bad, retry: stream.retry }).toEqual({ bad, retry: 1500 });
    }
    feed(stream, ['retry:0\n']);
    expect(stream.retry).toBe(0);
  });

  it('a leading BOM is ignored by the parser, kept at the very start and dropped from a later connection', () => {
    const stream = new EventStream(1024);
    const first = [...bytes(`${BOM}id: 1\n\n`)].map((byte) => stream.push(Uint8Array.of(byte)));
    expect(decoder.decode(Uint8Array.from(first.flatMap((b) => [...b])))).toBe(`${BOM}id: 1\n\n`);
    expect(stream.lastEventId).toBe('1');
    stream.reconnect();
    expect(feed(stream, [bytes(BOM).subarray(0, 2), bytes(BOM).subarray(2), 'id: 2\n\n'])).toEqual([
      '',
      '',
      'id: 2\n\n',
    ]);
    expect(stream.lastEventId).toBe('2');
    // A second BOM is data: its line has another field name.
    feed(stream, [`${BOM}id: 3\n\n`]);
    expect(stream.lastEventId).toBe('2');
  });

  it('bytes that only begin like a BOM are handed over as they are', () => {
    const stream = new EventStream(1024);
    const start = Uint8Array.of(0xef, 0xbb);
    expect(stream.push(start)).toEqual(new Uint8Array(0));
    expect([...stream.push(bytes(':\n\n'))]).toEqual([0xef, 0xbb, ...bytes(':\n\n')]);
  });

  it('reconnect drops the unfinished event, and ids go on from the last dispatched one', () => {
    const stream = new EventStream(1024);
    feed(stream, ['retry: 300\nid: 1\ndata: a\n\nid: 2\ndata: half']);
    stream.reconnect();
    expect(feed(stream, ['data: no id\n\n'])).toEqual(['data: no id\n\n']);
    expect(stream.lastEventId).toBe('1');
    expect(stream.retry).toBe(300);
    // A partial line cut by the connection is not processed.
    feed(stream, ['retry: 9']);
    stream.reconnect();
    feed(stream, ['\n']);
    expect(stream.retry).toBe(300);
  });

  it('end hands over what was held', () => {
    const stream = new EventStream(1024);
    feed(stream, ['id: 1\n\ndata: unfinished']);
    expect(decoder.decode(stream.end())).toBe('data: unfinished');
  });

  it('an event larger than the bound is handed over as it comes, and marked torn until it ends', () => {
    const stream = new EventStream(16);
    expect(feed(stream, ['id: 1\n\ndata: 0123456789', 'abcdef', 'ghi\n', '\nid: 2\n'])).toEqual([
      'id: 1\n\n',
      'data: 0123456789abcdef',
      'ghi\n',
      '\n',
    ]);
    expect(stream.torn).toBe(false);
    expect(stream.lastEventId).toBe('1');
    const big = new EventStream(16);
    feed(big, ['data: 0123456789abcdefgh']);
    expect(big.torn).toBe(true);
  });
});
