import type { HeaderGetter } from '../../http/headers.js';
import { ResumeError, type ResumeErrorCode } from './errors.js';
import { EventStream } from './event-stream.js';
import type { ResolvedResumeOptions } from './options.js';
import { judgeRange, type RangeBody, rangeBody, rangeRequest } from './ranges.js';

/** What the splicer asks of the call when a body is cut after the headers: one more attempt of the request. */
export interface ReopenRequest {
  /**
   * Headers to set on a copy of the original request for this attempt (`Range` and `If-Range`, or
   * `Last-Event-ID`), over the caller's own; empty for a restart from zero. Never cumulative: each reopen is the
   * original request plus these.
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The error the body broke with (the cut). */
  readonly cause: unknown;
  /**
   * Bytes of the body the caller has so far (of whole events, for an event stream): more than at the previous
   * reopen means the last one made progress.
   */
  readonly received: number;
  /** A wait the stream itself asked for (an event stream's `retry:` field, ms), used instead of the computed backoff. */
  readonly wait?: number | undefined;
  /**
   * Aborted when the caller cancels the body while the reopen is pending: stop waiting, send nothing more (the
   * promise may then settle any way: it is no longer read).
   */
  readonly signal: AbortSignal;
}

/**
 * One more attempt of the same request under the call's retry accounting. Resolves with the next response to
 * judge (206, 200, 416, 204, 404...: the splicer decides); rejects with the error the caller's body must fail with
 * (retries, budget or deadline exhausted: the cut itself; the caller's abort). The runner does the wait, the
 * budget token, the count, the deadline, the abort, the metrics and the result.
 */
export type Reopen<R> = (request: ReopenRequest) => Promise<R>;

/** What a body needs from its call to go on across cuts. */
export interface ResumeCall<R> {
  /** The request's method: only the bodies of safe methods (GET, HEAD) are ever resumed; another's cut says so. */
  readonly method: string;
  readonly reopen: Reopen<R>;
  readonly options: ResolvedResumeOptions;
  /** The caller's signal: a body that breaks once it is aborted fails as it broke, never resumed. */
  readonly signal?: AbortSignal | undefined;
  /** Where the body comes from, for error messages (the response's URL). */
  readonly url?: string | undefined;
  /** Told the `ResumeError` the body fails with, before it does: the call's result says so. */
  readonly failed?: ((error: ResumeError) => void) | undefined;
}

/** One response's body as the splicer reads it, whatever the client. */
export interface Part {
  readonly status: number;
  readonly header: HeaderGetter;
  /** The next chunk, `undefined` at the end; rejects with the error the body broke with. */
  read(): Promise<Uint8Array | undefined>;
  /** Stops reading and lets the connection go. Never throws. */
  cancel(reason?: unknown): void;
}

const SAFE = new Set(['GET', 'HEAD']);

/**
 * Whether `resume` takes a response's body over: a 200's or a 206's (a download, an event stream), whatever the
 * method. Only a safe method's goes on after a cut; another's then fails saying why (see `Splicer`).
 */
export function resumable(status: number): boolean {
  return status === 200 || status === 206;
}

/** Whether a response is an event stream (its media type, parameters aside). */
export function isEventStream(header: HeaderGetter): boolean {
  return header('content-type')?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

/** An event id as a header value: its UTF-8 bytes, one character per byte, as browsers send `Last-Event-ID`. */
function headerValue(id: string): string {
  if (/^[\x20-\x7e]*$/.test(id)) return id;
  let value = '';
  for (const byte of new TextEncoder().encode(id)) value += String.fromCharCode(byte);
  return value;
}

/**
 * Reads one body across cuts: `next()` gives the caller's next chunk. A cut (a failed read) is repaired with one
 * more attempt (`reopen`) only when what comes back is provably the rest of the same body: a restart when nothing
 * reached the caller, the missing byte range of the same representation, or an event stream after the last event
 * the caller got. Pull-based: one chunk is read per chunk asked for, so memory stays bounded.
 */
export class Splicer<R> {
  readonly #call: ResumeCall<R>;
  readonly #open: (response: R) => Part;
  readonly #status: number;
  #part: Part;
  /** Set for an event stream (read as whole events). */
  readonly #events: EventStream | undefined;
  /** Set for a byte body: where it lies in its representation. */
  #range: RangeBody | undefined;
  /** The offset in the representation of the next byte to read. */
  #offset = 0;
  /** Bytes handed to the caller (of a byte body). */
  #received = 0;
  #finished = false;
  #cancelled = false;
  #pending: AbortController | undefined;

  constructor(first: Part, call: ResumeCall<R>, open: (response: R) => Part) {
    this.#call = call;
    this.#open = open;
    this.#status = first.status;
    this.#part = first;
    // An unsafe method's body is never continued: its events need not be held back.
    if (call.options.eventStreams && this.#safe && isEventStream(first.header)) {
      this.#events = new EventStream(call.options.maxEventSize);
    } else {
      this.#startBytes(first);
    }
  }

  /** The caller's next chunk, `undefined` at the end; rejects with what the body fails with. */
  async next(): Promise<Uint8Array | undefined> {
    while (!this.#finished) {
      let chunk: Uint8Array | undefined;
      try {
        chunk = await this.#part.read();
      } catch (cut) {
        if (this.#cancelled) return undefined;
        try {
          await this.#recover(cut);
        } catch (error) {
          this.#finished = true;
          throw error;
        }
        continue;
      }
      if (this.#cancelled) return undefined;
      const events = this.#events;
      if (chunk === undefined) {
        this.#finished = true;
        const rest = events?.end();
        return rest !== undefined && rest.length > 0 ? rest : undefined;
      }
      const out = events === undefined ? chunk : events.push(chunk);
      if (out.length === 0) continue;
      if (events === undefined) {
        this.#received += out.length;
        this.#offset += out.length;
      }
      return out;
    }
    return undefined;
  }

  /** The caller cancelled the body: stop reading, and stop a reopen under way. */
  cancel(reason?: unknown): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#finished = true;
    this.#part.cancel(reason);
    this.#pending?.abort(reason);
  }

  #startBytes(part: Part): void {
    this.#range = rangeBody(part.status, part.header);
    this.#offset = this.#range.start;
  }

  get #safe(): boolean {
    return SAFE.has(this.#call.method.toUpperCase());
  }

  /** Bytes of the body the caller has. */
  get #delivered(): number {
    return this.#events?.delivered ?? this.#received;
  }

  #fail(code: ResumeErrorCode, reason: string, cut: unknown): never {
    const what = this.#call.url ? `The body of ${this.#call.url}` : 'The body';
    const error = new ResumeError(
      code,
      `${what} was cut after ${this.#delivered} bytes and cannot be resumed: ${reason}.`,
      this.#delivered,
      cut,
    );
    this.#call.failed?.(error);
    throw error;
  }

  /** Repairs a cut: replaces the part, or finishes the body, or throws what the caller's body fails with. */
  async #recover(cut: unknown): Promise<void> {
    const { options, signal, method } = this.#call;
    if (signal?.aborted) throw cut;
    if (!this.#safe) {
      this.#fail(
        'unsafe-method',
        `resume continues the bodies of GET and HEAD only: a ${method.toUpperCase()} is not sent again to continue its body`,
        cut,
      );
    }
    const events = this.#events;
    if (this.#delivered === 0) {
      if (!options.restart) throw cut;
      return this.#restart(cut, events?.retry);
    }
    if (events !== undefined) return this.#reconnect(events, cut);
    if (!options.ranges) throw cut;
    const range = this.#range as RangeBody;
    if (range.refusal !== undefined) this.#fail(range.refusal.code, range.refusal.reason, cut);
    // Cut after the last byte (the connection broke at the very end): nothing is missing.
    if (range.last !== undefined && this.#offset > range.last) {
      this.#finished = true;
      return;
    }
    const part = await this.#reopen(rangeRequest(range, this.#offset), cut, undefined);
    if (part === undefined) return;
    const verdict = judgeRange(range, this.#offset, part.status, part.header);
    if (verdict.type !== 'splice') {
      part.cancel();
      if (verdict.type === 'refuse') this.#fail(verdict.code, verdict.reason, cut);
      this.#finished = true;
      return;
    }
    // What the 206 taught (a length the first response did not state) holds for the next cut too.
    const length = verdict.length;
    this.#range = { ...range, length, last: range.last ?? (length === undefined ? undefined : length - 1) };
    this.#part = part;
  }

  /** Nothing reached the caller: the whole request again, if it comes back as the same kind of answer. */
  async #restart(cut: unknown, wait: number | undefined): Promise<void> {
    const part = await this.#reopen({}, cut, wait);
    if (part === undefined) return;
    const events = this.#events;
    if (part.status !== this.#status) {
      part.cancel();
      this.#fail(
        'status',
        `the request sent again was answered with ${part.status}, not ${this.#status}`,
        cut,
      );
    }
    if (events !== undefined && !isEventStream(part.header)) {
      part.cancel();
      this.#fail(
        'changed',
        `the request sent again is no event stream (${part.header('content-type')})`,
        cut,
      );
    }
    this.#part = part;
    if (events === undefined) this.#startBytes(part);
    else events.reconnect();
  }

  /** An event stream cut after whole events: reconnect after the last one the caller got. */
  async #reconnect(events: EventStream, cut: unknown): Promise<void> {
    if (events.torn) {
      this.#fail(
        'event-too-large',
        `the cut came inside an event larger than maxEventSize (${this.#call.options.maxEventSize} bytes), part of which was already handed over`,
        cut,
      );
    }
    // No id to go on from (none ever, or an empty `id:` reset it): a reconnection without one starts wherever the
    // server starts, which may repeat events the caller got; only a caller who said it can take that reconnects.
    const noId = events.lastEventId === '';
    if (noId && !this.#call.options.replayEvents) {
      this.#fail(
        'no-event-id',
        events.hasIds
          ? 'an event with an empty id reset the last event id, so a reconnection could not tell the server where to go on and might repeat the events already received (replayEvents allows that)'
          : 'its events carry no id, so a reconnection could neither skip the events already received nor be sure to miss none (replayEvents allows a reconnection anyway)',
        cut,
      );
    }
    const headers: Record<string, string> = noId ? {} : { 'Last-Event-ID': headerValue(events.lastEventId) };
    const part = await this.#reopen(headers, cut, events.retry);
    if (part === undefined) return;
    // 204 is how a server tells an event stream's client to stop reconnecting.
    if (part.status === 204) {
      part.cancel();
      this.#finished = true;
      return;
    }
    if (part.status !== 200) {
      part.cancel();
      this.#fail('status', `the reconnection was answered with ${part.status}`, cut);
    }
    if (!isEventStream(part.header)) {
      part.cancel();
      this.#fail('changed', `the reconnection is no event stream (${part.header('content-type')})`, cut);
    }
    this.#part = part;
    events.reconnect();
  }

  /** Asks the call for one more attempt; `undefined` when the caller cancelled meanwhile. */
  async #reopen(
    headers: Record<string, string>,
    cause: unknown,
    wait: number | undefined,
  ): Promise<Part | undefined> {
    const pending = new AbortController();
    this.#pending = pending;
    let response: R;
    try {
      response = await this.#call.reopen({
        headers,
        cause,
        wait,
        received: this.#delivered,
        signal: pending.signal,
      });
    } catch (error) {
      if (this.#cancelled) return undefined;
      throw error;
    } finally {
      this.#pending = undefined;
    }
    const part = this.#open(response);
    if (this.#cancelled) {
      part.cancel();
      return undefined;
    }
    return part;
  }
}
