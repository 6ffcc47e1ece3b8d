import { HttpResponse, type Path } from 'msw';
import { checked, fail, range } from '../options/check.js';
import { describeValue } from '../options/show.js';
import { type KitHandler, kitHandler } from './handlers.js';

/** The error fetch's body fails with when the connection breaks mid-body. */
const terminated = () => new TypeError('terminated');

/** A body of `pieces`, one per read, that breaks after the last when `cut` says so (a connection lost). */
function pieces(parts: readonly Uint8Array[], cut: boolean): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>(
    {
      // One piece per pull: an error raised with pieces still queued would drop them.
      pull(controller) {
        const part = parts[next++];
        if (part !== undefined) controller.enqueue(part);
        else if (cut) controller.error(terminated());
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/** Offsets or counts, ascending, each a whole number: `name` in errors. */
function cuts(value: unknown, name: string): number[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) fail(name, value, 'a number or a list of numbers');
  const check = range(Number.MAX_SAFE_INTEGER, 1, 'an integer');
  const valid = list.map((item, i) => check(item, Array.isArray(value) ? `${name}[${i}]` : name) as number);
  if (valid.some((n, i) => i > 0 && n <= (valid[i - 1] as number)))
    fail(name, value, `ascending, got [${valid.join(', ')}]`, RangeError);
  return valid;
}

/** The next cut after `from` that has not happened yet, taken from `pending`. */
function nextCut(pending: number[], from: number): number | undefined {
  while (pending.length > 0 && (pending[0] as number) <= from) pending.shift();
  return pending.shift();
}

/** Options of `cutBody`. */
export interface CutBodyOptions {
  /** Where the connection breaks, in bytes of the body: one offset, or several for one break per answer. */
  at: number | readonly number[];
  /**
   * The body served.
   * @default a text of 4096 bytes (or twice the last cut), readable as `handler.body`
   */
  body?: string | Uint8Array | undefined;
}

/** `length` bytes of readable text: the alphabet, over and over. */
function text(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => 97 + (i % 26));
}

/**
 * A download whose connection breaks after `at` bytes: the first answer (a 200 with a strong `ETag` and
 * `Accept-Ranges: bytes`) is cut there; a `Range: bytes=N-` request (with a matching `If-Range`, or none) gets
 * the rest as a 206, and is cut at the next offset of `at` past N. `handler.body` is the whole body, to compare.
 */
export function cutBody(url: Path, options: CutBodyOptions): KitHandler & { readonly body: Uint8Array } {
  const { at, body } = checked(
    options,
    {
      at: cuts,
      body: (value, name) =>
        typeof value === 'string' || value instanceof Uint8Array
          ? value
          : fail(name, value, `a string or a Uint8Array, got ${describeValue(value)}`),
    },
    'cutBody',
    'the cutBody options ({ at }) to be an object',
    'cutBody.',
  ) as { at?: number[]; body?: string | Uint8Array };
  if (at === undefined)
    fail('cutBody.at', undefined, 'given: where the body breaks, in bytes ({ at: 1000 })');
  const whole =
    typeof body === 'string'
      ? new TextEncoder().encode(body)
      : (body ?? text(Math.max(4096, 2 * Math.max(...at))));
  if (Math.max(...at) >= whole.length)
    fail(
      'cutBody.at',
      at,
      `below the body's length (${whole.length} bytes), got ${Math.max(...at)}`,
      RangeError,
    );
  const pending = [...at];
  const etag = '"kit-body-1"';
  const handler = kitHandler('cutBody', url, (request) => {
    const size = whole.length;
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.get('range') ?? '');
    const ifRange = request.headers.get('if-range');
    const partial = range !== null && (ifRange === null || ifRange === etag);
    const first = partial ? Number(range[1]) : 0;
    const last = partial && range[2] ? Math.min(size - 1, Number(range[2])) : size - 1;
    const headers: Record<string, string> = {
      ETag: etag,
      'Accept-Ranges': 'bytes',
      'Content-Type': 'application/octet-stream',
    };
    if (first >= size)
      return new HttpResponse(null, {
        status: 416,
        headers: { ...headers, 'Content-Range': `bytes */${size}` },
      });
    headers['Content-Length'] = String(last + 1 - first);
    if (partial) headers['Content-Range'] = `bytes ${first}-${last}/${size}`;
    const cut = nextCut(pending, first);
    const served = whole.subarray(first, Math.min(last + 1, cut ?? size));
    return new HttpResponse(pieces([served], cut !== undefined && cut <= last), {
      status: partial ? 206 : 200,
      headers,
    });
  });
  return Object.assign(handler, { body: whole });
}

/** One event of `eventStream`: its `data`, and an `id` (by default its place, from 1) and `event` name. */
export interface ServerEvent {
  readonly data: string;
  readonly id?: string | undefined;
  readonly event?: string | undefined;
}

/** Options of `eventStream`. */
export interface EventStreamOptions {
  /** The events, in order: a string is an event's data. */
  events: readonly (string | ServerEvent)[];
  /**
   * After how many events the connection breaks (counted over the whole stream), once each: `2`, or `[2, 4]` for
   * two breaks. The break comes in the middle of the next event, so a client that hands over unfinished events
   * shows it. A reconnection with `Last-Event-ID` goes on after that event.
   * @default undefined (no break)
   */
  cutAfter?: number | readonly number[] | undefined;
  /** A `retry:` field (ms) at the start of each connection: the wait a client should make before reconnecting. */
  retry?: number | undefined;
}

function serialize(event: ServerEvent & { id: string }): string {
  const data = event.data
    .split('\n')
    .map((line) => `data: ${line}\n`)
    .join('');
  return `id: ${event.id}\n${event.event === undefined ? '' : `event: ${event.event}\n`}${data}\n`;
}

function checkEvents(value: unknown, name: string): (ServerEvent & { id: string })[] {
  if (!Array.isArray(value))
    fail(name, value, `a list of events (strings or { data, id, event }), got ${describeValue(value)}`);
  return value.map((event: unknown, i) => {
    if (typeof event === 'string') return { data: event, id: String(i + 1) };
    if (typeof (event as ServerEvent | null)?.data !== 'string')
      fail(
        `${name}[${i}]`,
        event,
        `a string or { data, id, event } with a string \`data\`, got ${describeValue(event)}`,
      );
    return { ...(event as ServerEvent), id: (event as ServerEvent).id ?? String(i + 1) };
  });
}

/**
 * A `text/event-stream` of `events` whose connection breaks after `cutAfter` events; a reconnection with
 * `Last-Event-ID` gets the events after that id (an unknown id: all of them), and the stream ends after the last.
 */
export function eventStream(url: Path, options: EventStreamOptions): KitHandler {
  const valid = checked(
    options,
    { events: checkEvents, cutAfter: cuts, retry: range() },
    'eventStream',
    'the eventStream options ({ events }) to be an object',
    'eventStream.',
  ) as { events?: (ServerEvent & { id: string })[]; cutAfter?: number[]; retry?: number };
  const { events, retry } = valid;
  if (events === undefined)
    fail('eventStream.events', undefined, "given: the events to send (['a', 'b', 'c'])");
  const pending = [...(valid.cutAfter ?? [])];
  const encoder = new TextEncoder();
  return kitHandler('eventStream', url, (request) => {
    const last = request.headers.get('last-event-id');
    const from = last === null ? 0 : events.findIndex((event) => event.id === last) + 1;
    const cut = nextCut(pending, from);
    const prefix = retry === undefined ? [] : [`retry: ${retry}\n\n`];
    const sent = [...prefix, ...events.slice(from, cut).map(serialize)];
    const unfinished = cut === undefined ? undefined : events[cut];
    // Half of the next event, its id line included: a client must not count it as received.
    if (unfinished !== undefined) {
      const next = serialize(unfinished);
      sent.push(next.slice(0, Math.ceil(next.length / 2)));
    }
    // The length of the whole rest of the stream: in Node, MSW ends a body of unknown length by closing the
    // connection, so a break would look like the end.
    const length = encoder.encode([...prefix, ...events.slice(from).map(serialize)].join('')).length;
    return new HttpResponse(
      pieces(
        sent.map((part) => encoder.encode(part)),
        unfinished !== undefined,
      ),
      {
        status: 200,
        headers: {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-cache',
          'Content-Length': String(length),
        },
      },
    );
  });
}
