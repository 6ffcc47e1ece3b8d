import { describe, expect, it } from 'vitest';
import {
  ifRangeValidator,
  judgeRange,
  parseContentRange,
  rangeBody,
  rangeRequest,
} from '../../src/features/resume/ranges.ts';
import { headerGetter } from '../../src/http/headers.ts';

const headers = (record: Record<string, string>) => headerGetter(record);
const DATE = 'Wed, 02 Dec 2026 10:00:00 GMT';
const SECOND_BEFORE = 'Wed, 02 Dec 2026 09:59:59 GMT';

describe('parseContentRange', () => {
  it.each([
    ['bytes 0-499/1234', { first: 0, last: 499, length: 1234 }],
    ['bytes 500-1233/1234', { first: 500, last: 1233, length: 1234 }],
    ['BYTES 5-9/*', { first: 5, last: 9, length: undefined }],
    ['  bytes 0-0/1  ', { first: 0, last: 0, length: 1 }],
    ['bytes */1234', { first: undefined, last: undefined, length: 1234 }],
  ])('reads %j', (value, expected) => {
    expect(parseContentRange(value)).toEqual(expected);
  });

  it.each([
    [undefined],
    [''],
    ['bytes 10-5/100'],
    ['bytes 0-100/100'],
    ['bytes 0-99'],
    ['bytes=0-99/100'],
    ['items 0-9/10'],
    ['bytes -5-9/10'],
    ['bytes 1e3-2e3/3e3'],
    ['bytes 0-9/10, bytes 10-19/20'],
    ['bytes */*'],
    ['bytes 0-9999999999999999/99999999999999999'],
  ])('rejects %j', (value) => {
    expect(parseContentRange(value)).toBeUndefined();
  });
});

describe('ifRangeValidator', () => {
  it('takes a strong ETag first', () => {
    expect(ifRangeValidator(headers({ etag: '"v1"', 'last-modified': SECOND_BEFORE, date: DATE }))).toBe(
      '"v1"',
    );
  });

  it('never a weak ETag: then a Last-Modified at least one second before the Date', () => {
    expect(ifRangeValidator(headers({ etag: 'W/"v1"', 'last-modified': SECOND_BEFORE, date: DATE }))).toBe(
      SECOND_BEFORE,
    );
    expect(ifRangeValidator(headers({ etag: 'W/"v1"' }))).toBeUndefined();
  });

  it('a Last-Modified in the same second as the Date is weak (a change within that second keeps it)', () => {
    expect(ifRangeValidator(headers({ 'last-modified': DATE, date: DATE }))).toBeUndefined();
  });

  it('a Last-Modified without a Date proves nothing, nor one that is malformed', () => {
    expect(ifRangeValidator(headers({ 'last-modified': SECOND_BEFORE }))).toBeUndefined();
    expect(ifRangeValidator(headers({ 'last-modified': 'yesterday', date: DATE }))).toBeUndefined();
  });

  it('an ETag that is no quoted tag is not taken', () => {
    expect(ifRangeValidator(headers({ etag: 'v1' }))).toBeUndefined();
    expect(ifRangeValidator(headers({ etag: '"a"b"' }))).toBeUndefined();
  });
});

describe('rangeBody: what the response that started a body says about continuing it', () => {
  it('a 200 with a length and a strong ETag: from 0, its last byte known', () => {
    expect(rangeBody(200, headers({ 'content-length': '1000', etag: '"v1"' }))).toEqual({
      start: 0,
      last: 999,
      length: 1000,
      validator: '"v1"',
      etag: '"v1"',
      lastModified: undefined,
      refusal: undefined,
    });
  });

  it("a 206 of the caller's own range: it starts and ends where its Content-Range says", () => {
    const body = rangeBody(206, headers({ 'content-range': 'bytes 100-199/1000', etag: '"v1"' }));
    expect(body).toMatchObject({ start: 100, last: 199, length: 1000, refusal: undefined });
    expect(rangeRequest(body, 150)).toEqual({ Range: 'bytes=150-199', 'If-Range': '"v1"' });
  });

  it('a 200 without a length (chunked): asked open-ended', () => {
    const body = rangeBody(200, headers({ etag: '"v1"' }));
    expect(body).toMatchObject({ start: 0, last: undefined, length: undefined });
    expect(rangeRequest(body, 4096)).toEqual({ Range: 'bytes=4096-', 'If-Range': '"v1"' });
  });

  it.each([
    [
      'encoded',
      { 'content-encoding': 'gzip', 'content-length': '10', etag: '"v1"' },
      /Content-Encoding: gzip/,
    ],
    ['no-ranges', { 'accept-ranges': 'none', etag: '"v1"' }, /Accept-Ranges: none/],
    ['no-validator', { etag: 'W/"v1"' }, /ETag W\/"v1" is weak/],
    ['no-validator', {}, /no strong ETag/],
  ])('refuses a body: %s', (code, record, reason) => {
    const { refusal } = rangeBody(200, headers(record));
    expect(refusal?.code).toBe(code);
    expect(refusal?.reason).toMatch(reason);
  });

  it('an identity Content-Encoding is no encoding; its length counts', () => {
    expect(
      rangeBody(200, headers({ 'content-encoding': 'identity', 'content-length': '5', etag: '"a"' })),
    ).toMatchObject({ length: 5, refusal: undefined });
  });

  it('a multipart 206 (no Content-Range of one part) is never continued', () => {
    const body = rangeBody(
      206,
      headers({ 'content-type': 'multipart/byteranges; boundary=x', etag: '"v1"' }),
    );
    expect(body.refusal?.code).toBe('range-mismatch');
  });
});

describe('judgeRange: never a splice of another representation', () => {
  const body = rangeBody(200, headers({ 'content-length': '1000', etag: '"v1"' }));
  const judge = (status: number, record: Record<string, string>, offset = 400) =>
    judgeRange(body, offset, status, headers(record));

  it('a 206 from the offset to the end, of the same length and ETag, is spliced', () => {
    expect(judge(206, { 'content-range': 'bytes 400-999/1000', etag: '"v1"' })).toEqual({
      type: 'splice',
      length: 1000,
    });
  });

  it.each([
    [
      'another ETag',
      206,
      { 'content-range': 'bytes 400-999/1000', etag: '"v2"' },
      'changed',
      /ETag is now "v2", not "v1"/,
    ],
    ['no ETag on the 206', 206, { 'content-range': 'bytes 400-999/1000' }, 'changed', /206 carries no ETag/],
    [
      'a weak form of the ETag',
      206,
      { 'content-range': 'bytes 400-999/1000', etag: 'W/"v1"' },
      'changed',
      /ETag/,
    ],
    ['a 200 with another ETag (If-Range did its job)', 200, { etag: '"v2"' }, 'changed', /ETag is now "v2"/],
    ['a 200 with the same ETag (no range support)', 200, { etag: '"v1"' }, 'no-ranges', /whole body \(200\)/],
    [
      'a 206 starting elsewhere',
      206,
      { 'content-range': 'bytes 0-999/1000', etag: '"v1"' },
      'range-mismatch',
      /starts at 0, not at 400/,
    ],
    [
      'a 206 of another length',
      206,
      { 'content-range': 'bytes 400-1099/1100', etag: '"v1"' },
      'range-mismatch',
      /length of 1100, not 1000/,
    ],
    [
      'a 206 ending early',
      206,
      { 'content-range': 'bytes 400-499/1000', etag: '"v1"' },
      'range-mismatch',
      /ends at 499, not at 999/,
    ],
    ['a 206 without Content-Range', 206, { etag: '"v1"' }, 'range-mismatch', /Access-Control-Expose-Headers/],
    [
      'a 206 gzip-encoded',
      206,
      { 'content-range': 'bytes 400-999/1000', etag: '"v1"', 'content-encoding': 'gzip' },
      'encoded',
      /gzip/,
    ],
    [
      'a 416 of another length',
      416,
      { 'content-range': 'bytes */400' },
      'unsatisfiable',
      /bytes 400- do not exist/,
    ],
    ['a 404', 404, {}, 'status', /answered with 404/],
    ['a 503', 503, {}, 'status', /answered with 503/],
  ])('%s: refused', (_label, status, record, code, reason) => {
    const verdict = judge(status, record);
    expect(verdict).toMatchObject({ type: 'refuse', code });
    expect(verdict.type === 'refuse' && verdict.reason).toMatch(reason);
  });

  it('a 416 stating the length already received means the body was complete (a length learned only now)', () => {
    const chunked = rangeBody(200, headers({ etag: '"v1"' }));
    expect(judgeRange(chunked, 1000, 416, headers({ 'content-range': 'bytes */1000' }))).toEqual({
      type: 'done',
    });
    expect(judgeRange(chunked, 1000, 416, headers({ 'content-range': 'bytes */1200' }))).toMatchObject({
      code: 'unsatisfiable',
    });
  });

  it('a body of unknown length learns it from the 206, which must then end at its last byte', () => {
    const chunked = rangeBody(200, headers({ etag: '"v1"' }));
    expect(
      judgeRange(chunked, 10, 206, headers({ 'content-range': 'bytes 10-99/100', etag: '"v1"' })),
    ).toEqual({
      type: 'splice',
      length: 100,
    });
    expect(
      judgeRange(chunked, 10, 206, headers({ 'content-range': 'bytes 10-49/100', etag: '"v1"' })),
    ).toMatchObject({
      code: 'range-mismatch',
    });
  });

  it('a strong ETag that matches decides: a Last-Modified that moved is no change (RFC 9110 If-Range)', () => {
    const both = rangeBody(
      200,
      headers({ 'content-length': '1000', etag: '"v1"', 'last-modified': SECOND_BEFORE, date: DATE }),
    );
    expect(both.validator).toBe('"v1"');
    const part = { 'content-range': 'bytes 400-999/1000', etag: '"v1"' };
    expect(judgeRange(both, 400, 206, headers({ ...part, 'last-modified': DATE }))).toEqual({
      type: 'splice',
      length: 1000,
    });
    expect(
      judgeRange(both, 400, 206, headers({ ...part, etag: '"v2"', 'last-modified': SECOND_BEFORE })),
    ).toMatchObject({
      code: 'changed',
    });
    // A 200 without an ETag: the moved Last-Modified is all that shows why the rest was not sent.
    expect(judgeRange(both, 400, 200, headers({ 'last-modified': DATE }))).toMatchObject({ code: 'changed' });
  });

  it('a Last-Modified validator: the answer is of the same representation while its Last-Modified is the same', () => {
    const dated = rangeBody(
      200,
      headers({ 'content-length': '1000', etag: 'W/"x"', 'last-modified': SECOND_BEFORE, date: DATE }),
    );
    expect(dated.validator).toBe(SECOND_BEFORE);
    const part = { 'content-range': 'bytes 400-999/1000', 'last-modified': SECOND_BEFORE };
    expect(judgeRange(dated, 400, 206, headers(part))).toMatchObject({ type: 'splice' });
    expect(judgeRange(dated, 400, 206, headers({ ...part, etag: 'W/"x"' }))).toMatchObject({
      type: 'splice',
    });
    expect(judgeRange(dated, 400, 206, headers({ ...part, etag: 'W/"y"' }))).toMatchObject({
      code: 'changed',
    });
    expect(judgeRange(dated, 400, 206, headers({ ...part, 'last-modified': DATE }))).toMatchObject({
      code: 'changed',
    });
  });
});
