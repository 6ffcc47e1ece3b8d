/**
 * Byte ranges (RFC 9110 §14): what a body cut after the headers may be continued with, and whether an answer
 * continues it. Pure: a response is read through its header getter and status.
 */

import type { HeaderGetter } from '../../http/headers.js';
import { parseHttpDate } from '../../http/http-date.js';
import type { ResumeErrorCode } from './errors.js';

/** A `Content-Range` of bytes: a part (`first-last/length`, `length` undefined for `*`), or unsatisfied (`* /length`). */
export interface ContentRange {
  readonly first: number | undefined;
  readonly last: number | undefined;
  readonly length: number | undefined;
}

const PART = /^bytes[ \t]+(\d{1,15})-(\d{1,15})\/(\d{1,15}|\*)$/i;
const UNSATISFIED = /^bytes[ \t]+\*\/(\d{1,15})$/i;

/** Parses a `Content-Range` header; `undefined` when it is absent or malformed (a last before its first...). */
export function parseContentRange(value: string | undefined): ContentRange | undefined {
  const text = value?.trim() ?? '';
  const unsatisfied = UNSATISFIED.exec(text);
  if (unsatisfied) return { first: undefined, last: undefined, length: Number(unsatisfied[1]) };
  const part = PART.exec(text);
  if (!part) return undefined;
  const [first, last] = [Number(part[1]), Number(part[2])];
  const length = part[3] === '*' ? undefined : Number(part[3]);
  return first > last || (length !== undefined && last >= length) ? undefined : { first, last, length };
}

// An opaque-tag without the weakness prefix (RFC 9110 §8.8.3).
const STRONG_ETAG = /^"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * The `If-Range` value that makes a server send the rest only of this very representation: its ETag when strong;
 * otherwise its `Last-Modified`, only when strong by RFC 9110 §8.8.2.2 (the response's `Date` at least one second
 * later: a change within the same second would keep the same date). A weak ETag never is one.
 */
export function ifRangeValidator(header: HeaderGetter): string | undefined {
  const etag = header('etag')?.trim();
  if (etag !== undefined && STRONG_ETAG.test(etag)) return etag;
  const modified = header('last-modified')?.trim();
  const date = header('date')?.trim();
  if (modified === undefined || date === undefined) return undefined;
  // `now` only places a two-digit RFC 850 year: the Date header's own reading places Last-Modified's.
  const sent = parseHttpDate(date, 0);
  const changed = sent === undefined ? undefined : parseHttpDate(modified, sent);
  return sent !== undefined && changed !== undefined && sent - changed >= 1000 ? modified : undefined;
}

/** Whether a response's body is content-coded: its bytes are not the ones a reader of the decoded body counts. */
export function isEncoded(header: HeaderGetter): boolean {
  const coding = header('content-encoding')?.trim().toLowerCase();
  return coding !== undefined && coding !== '' && coding !== 'identity';
}

/** Why a body cannot be continued with a range (`reason` completes "cannot be resumed: ..."). */
export interface Refusal {
  readonly code: ResumeErrorCode;
  readonly reason: string;
}

/** What the response that started a body says about continuing it. */
export interface RangeBody {
  /** Offset in the representation of the body's first byte: 0, or the first of the caller's own range. */
  readonly start: number;
  /** Offset of the body's last byte, when known. */
  readonly last: number | undefined;
  /** The representation's complete length, when known. */
  readonly length: number | undefined;
  /** The `If-Range` value to send. */
  readonly validator: string | undefined;
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
  /** Why no range can continue it, if none can. */
  readonly refusal: Refusal | undefined;
}

const lengthOf = (header: HeaderGetter): number | undefined => {
  const value = header('content-length')?.trim();
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
};

/** Reads, from the `200` or `206` that started a body, where it lies in its representation and how to continue it. */
export function rangeBody(status: number, header: HeaderGetter): RangeBody {
  const validator = ifRangeValidator(header);
  const etag = header('etag')?.trim();
  const lastModified = header('last-modified')?.trim();
  const known = { validator, etag, lastModified };
  const encoded = isEncoded(header);
  const refusal: Refusal | undefined = encoded
    ? {
        code: 'encoded',
        reason: `the body is encoded (Content-Encoding: ${header('content-encoding')?.trim()}), and a range counts encoded bytes while the body is read decoded`,
      }
    : header('accept-ranges')?.trim().toLowerCase() === 'none'
      ? { code: 'no-ranges', reason: 'the server does not serve ranges (Accept-Ranges: none)' }
      : validator === undefined
        ? {
            code: 'no-validator',
            reason: `the response has no strong ETag${etag === undefined ? '' : ` (its ETag ${etag} is weak)`} and no Last-Modified at least one second before its Date, so nothing proves that the rest would belong to the same representation`,
          }
        : undefined;
  if (status === 206) {
    const range = parseContentRange(header('content-range'));
    if (range?.first === undefined) {
      return {
        start: 0,
        last: undefined,
        length: undefined,
        ...known,
        refusal: refusal ?? {
          code: 'range-mismatch',
          reason: 'the 206 has no Content-Range of one part (a multipart/byteranges body is not continued)',
        },
      };
    }
    return { start: range.first, last: range.last, length: range.length, ...known, refusal };
  }
  const length = encoded ? undefined : lengthOf(header);
  return { start: 0, last: length === undefined ? undefined : length - 1, length, ...known, refusal };
}

/** The headers that ask for the body's bytes from `offset` (absolute in the representation) on. */
export function rangeRequest(body: RangeBody, offset: number): Record<string, string> {
  return { Range: `bytes=${offset}-${body.last ?? ''}`, 'If-Range': body.validator ?? '' };
}

/** What to do with the answer to `rangeRequest(body, offset)`. */
export type RangeVerdict =
  /** The answer carries exactly the missing bytes: read on from it. `length`: the complete length, if known now. */
  | { readonly type: 'splice'; readonly length: number | undefined }
  /** A `416` stating the length already received: the cut came after the last byte. */
  | { readonly type: 'done' }
  | ({ readonly type: 'refuse' } & Refusal);

const weakless = (etag: string) => etag.replace(/^W\//, '');

/** Why an answer is not of the body's representation, if it is not: a changed ETag or Last-Modified. */
function changed(body: RangeBody, header: HeaderGetter, partial: boolean): string | undefined {
  const etag = header('etag')?.trim();
  const strong = body.etag !== undefined && body.validator === body.etag;
  if (body.etag !== undefined && etag !== undefined) {
    // The strong ETag sent in If-Range must come back exactly, and then decides alone (RFC 9110 §13.1.5): a
    // Last-Modified that moved is no change. A weak one (kept only to tell a change) compares weakly.
    const same = strong ? etag === body.etag : weakless(etag) === weakless(body.etag);
    if (!same) return `its ETag is now ${etag}, not ${body.etag}`;
    if (strong) return undefined;
  }
  // A 206 must repeat the ETag it was matched on (RFC 9110 §15.3.7): without it nothing shows which it is.
  if (partial && strong && etag === undefined) return 'the 206 carries no ETag';
  const modified = header('last-modified')?.trim();
  if (body.lastModified !== undefined && modified !== undefined && modified !== body.lastModified) {
    return `its Last-Modified is now ${modified}, not ${body.lastModified}`;
  }
  return undefined;
}

/** Judges the answer (`status`, `header`) to `rangeRequest(body, offset)`: never a splice of another representation. */
export function judgeRange(
  body: RangeBody,
  offset: number,
  status: number,
  header: HeaderGetter,
): RangeVerdict {
  const change =
    status === 200 || status === 206 || status === 416 ? changed(body, header, status === 206) : undefined;
  if (change !== undefined) {
    return { type: 'refuse', code: 'changed', reason: `the representation changed: ${change}` };
  }
  if (status === 200) {
    return {
      type: 'refuse',
      code: 'no-ranges',
      reason: `the server answered a Range request with the whole body (200), not the rest (206)`,
    };
  }
  const range = parseContentRange(header('content-range'));
  if (status === 416) {
    return range?.first === undefined && range?.length === offset && body.last === undefined
      ? { type: 'done' }
      : {
          type: 'refuse',
          code: 'unsatisfiable',
          reason: `the server says bytes ${offset}- do not exist (416, Content-Range: ${header('content-range') ?? 'none'})`,
        };
  }
  if (status !== 206) {
    return { type: 'refuse', code: 'status', reason: `the request for the rest was answered with ${status}` };
  }
  if (isEncoded(header)) {
    return {
      type: 'refuse',
      code: 'encoded',
      reason: `the 206 is encoded (Content-Encoding: ${header('content-encoding')?.trim()})`,
    };
  }
  const length = body.length ?? range?.length;
  const last = body.last ?? (length === undefined ? undefined : length - 1);
  const mismatch =
    range?.first === undefined
      ? `it has no Content-Range of one part (${header('content-range') ?? 'none'}; a cross-origin response shows it only when the server lists it in Access-Control-Expose-Headers)`
      : range.first !== offset
        ? `its Content-Range starts at ${range.first}, not at ${offset}`
        : body.length !== undefined && range.length !== undefined && range.length !== body.length
          ? `its Content-Range states a length of ${range.length}, not ${body.length}`
          : last !== undefined && range.last !== last
            ? `its Content-Range ends at ${range.last}, not at ${last}`
            : undefined;
  return mismatch === undefined
    ? { type: 'splice', length }
    : { type: 'refuse', code: 'range-mismatch', reason: `the 206 does not continue the body: ${mismatch}` };
}
