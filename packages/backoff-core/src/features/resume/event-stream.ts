/**
 * An event stream (`text/event-stream`) read as the HTML standard's parser reads it (§9.2.6: lines end in CR, LF
 * or CRLF, one leading BOM is ignored, a blank line dispatches the event), for two things only: which bytes form
 * complete events, so that a cut never hands half an event over, and what a reconnection needs (the id of the
 * last event dispatched, the `retry:` time). The caller parses the events themselves from the bytes it gets.
 */

const CR = 0x0d;
const LF = 0x0a;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = [0xef, 0xbb, 0xbf];
const ID = [0x69, 0x64];
const RETRY = [0x72, 0x65, 0x74, 0x72, 0x79];
const EMPTY = new Uint8Array(0);

const decoder = new TextDecoder();
const same = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

/** The index of the first CR or LF in `bytes` at or after `from`, or `bytes.length`. */
function lineEnd(bytes: Uint8Array, from: number): number {
  const cr = bytes.indexOf(CR, from);
  const lf = bytes.indexOf(LF, from);
  return cr === -1 ? (lf === -1 ? bytes.length : lf) : lf === -1 ? cr : Math.min(cr, lf);
}

/**
 * Holds an event stream back to whole events and keeps what a reconnection needs. `push` each chunk as it arrives
 * and hand over what it returns; `reconnect` when a new connection starts, `end` when the stream ends.
 */
export class EventStream {
  /** The id of the last event dispatched: what `Last-Event-ID` carries ('' before any, or after an empty `id:`). */
  lastEventId = '';
  /** Whether a dispatched event set an id: the server numbers its events, so it can go on after one. */
  hasIds = false;
  /** The reconnection time the stream asked for with `retry:`, in ms. */
  retry: number | undefined;
  /** Bytes handed over so far. */
  delivered = 0;
  /** Whether part of an unfinished event was handed over (it outgrew the bound): a cut now would split it. */
  torn = false;

  readonly #maxEventSize: number;
  /** The unfinished event's bytes. */
  #held: Uint8Array[] = [];
  #heldSize = 0;
  /** The first bytes of a connection, until they show whether a BOM leads; `undefined` once they have. */
  #start: Uint8Array | undefined = EMPTY;
  #reconnected = false;
  // The current line: whether it is still blank, its field name (6 bytes at most: longer is no field of ours),
  // whether its colon was seen, and, for `id` and `retry`, its value (after one optional leading space).
  #blank = true;
  #name: number[] = [];
  #named = false;
  #field: 'id' | 'retry' | undefined;
  #spaced = false;
  #value: Uint8Array[] = [];
  /** The last line ended in CR: an LF right after it is the rest of a CRLF. */
  #cr = false;
  /** The id field of the event being read (the standard's last event ID buffer), and whether it set one. */
  #idBuffer = '';
  #idSet = false;

  constructor(maxEventSize: number) {
    this.#maxEventSize = maxEventSize;
  }

  /** Takes the next chunk; returns the bytes that may be handed over now (whole events: often none). */
  push(chunk: Uint8Array): Uint8Array {
    let bytes = chunk;
    if (this.#start !== undefined) {
      const start = concat([this.#start, chunk]);
      if (start.length < BOM.length && start.every((byte, i) => byte === BOM[i])) {
        this.#start = start;
        return EMPTY;
      }
      this.#start = undefined;
      const bom = BOM.every((byte, i) => start[i] === byte);
      bytes = bom ? start.subarray(BOM.length) : start;
      // The caller's parser ignores a BOM only at the very start of what it reads: a later connection's is dropped.
      if (bom && !this.#reconnected) this.#hold(start.subarray(0, BOM.length));
    }
    const out: Uint8Array[] = [];
    const boundary = this.#parse(bytes);
    let rest = bytes;
    if (boundary !== -1) {
      out.push(...this.#held, bytes.subarray(0, boundary));
      this.#held = [];
      this.#heldSize = 0;
      this.torn = false;
      rest = bytes.subarray(boundary);
    }
    if (this.torn) out.push(rest);
    else this.#hold(rest);
    if (this.#heldSize > this.#maxEventSize) {
      out.push(...this.#held);
      this.#held = [];
      this.#heldSize = 0;
      this.torn = true;
    }
    return this.#out(out);
  }

  /** The stream ended: what is left (an unfinished event, handed over as it is: the caller's parser drops it). */
  end(): Uint8Array {
    const rest = this.#out([...(this.#start === undefined ? [] : [this.#start]), ...this.#held]);
    this.#start = undefined;
    this.#held = [];
    this.#heldSize = 0;
    return rest;
  }

  /**
   * A new connection starts: the unfinished event is dropped (the server sends it again after `lastEventId`), a
   * BOM may lead again, and the id buffer starts from the last dispatched id, as browsers keep it.
   */
  reconnect(): void {
    this.#held = [];
    this.#heldSize = 0;
    this.torn = false;
    this.#start = EMPTY;
    // Once bytes were handed over, the caller's parser is past the start where a BOM is ignored.
    this.#reconnected = this.delivered > 0;
    // The cut line is dropped unprocessed: its end was never seen.
    this.#newLine();
    this.#cr = false;
    this.#idBuffer = this.lastEventId;
    this.#idSet = false;
  }

  #hold(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#held.push(bytes);
    this.#heldSize += bytes.length;
  }

  #out(parts: readonly Uint8Array[]): Uint8Array {
    const bytes = concat(parts.filter((part) => part.length > 0));
    this.delivered += bytes.length;
    return bytes;
  }

  /** Parses `bytes`; returns the offset just past the last blank line (the end of an event) in them, or -1. */
  #parse(bytes: Uint8Array): number {
    let boundary = -1;
    let i = 0;
    while (i < bytes.length) {
      if (this.#cr) {
        this.#cr = false;
        if (bytes[i] === LF) {
          // The LF of a CRLF that ended an event goes with that event.
          if (boundary === i) boundary = i + 1;
          i++;
          continue;
        }
      }
      const end = lineEnd(bytes, i);
      this.#take(bytes, i, end);
      if (end === bytes.length) break;
      this.#cr = bytes[end] === CR;
      if (this.#endLine()) boundary = end + 1;
      i = end + 1;
    }
    return boundary;
  }

  /** Takes bytes `[from, to)` of the current line (no CR or LF among them). */
  #take(bytes: Uint8Array, from: number, to: number): void {
    if (from === to) return;
    this.#blank = false;
    let i = from;
    if (!this.#named) {
      while (i < to && bytes[i] !== COLON) {
        if (this.#name.length <= RETRY.length) this.#name.push(bytes[i] as number);
        i++;
      }
      if (i === to) return;
      this.#named = true;
      this.#field = same(this.#name, ID) ? 'id' : same(this.#name, RETRY) ? 'retry' : undefined;
      i++;
    }
    if (this.#field === undefined || i === to) return;
    if (!this.#spaced) {
      this.#spaced = true;
      if (bytes[i] === SPACE) i++;
    }
    if (i < to) this.#value.push(bytes.subarray(i, to));
  }

  /** Ends the current line and processes it; returns whether it was blank (an event was dispatched). */
  #endLine(): boolean {
    const blank = this.#blank;
    if (blank) {
      // Dispatch: the id buffer becomes the last event ID, whether or not the event has data.
      this.lastEventId = this.#idBuffer;
      this.hasIds ||= this.#idSet;
      this.#idSet = false;
    } else {
      // A line without a colon is a field name with an empty value.
      const field = this.#named
        ? this.#field
        : same(this.#name, ID)
          ? 'id'
          : same(this.#name, RETRY)
            ? 'retry'
            : undefined;
      const value = decoder.decode(concat([EMPTY, ...this.#value]));
      if (field === 'id' && !value.includes('\0')) {
        this.#idBuffer = value;
        this.#idSet = true;
      } else if (field === 'retry' && /^[0-9]+$/.test(value) && Number.isSafeInteger(Number(value))) {
        this.retry = Number(value);
      }
    }
    this.#newLine();
    return blank;
  }

  #newLine(): void {
    this.#blank = true;
    this.#name = [];
    this.#named = false;
    this.#field = undefined;
    this.#spaced = false;
    this.#value = [];
  }
}
