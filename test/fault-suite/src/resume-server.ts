import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** 64 KiB: the block the seeded bodies are generated and written in. */
const BLOCK = 64 * 1024;

/** Block `index` of the seeded body `seed`: xorshift32 words, so no body is ever held whole. */
function block(seed: number, index: number): Uint8Array {
  const words = new Uint32Array(BLOCK / 4);
  let x = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return new Uint8Array(words.buffer);
}

/** Bytes `[from, to)` of the seeded body `seed`, in pieces of at most one block. */
export function* seededBytes(seed: number, from: number, to: number): Generator<Uint8Array> {
  for (let at = from; at < to; ) {
    const index = Math.floor(at / BLOCK);
    const start = at - index * BLOCK;
    const piece = block(seed, index).subarray(start, Math.min(BLOCK, start + (to - at)));
    yield piece;
    at += piece.length;
  }
}

/** The sha256 (hex) of the seeded body `seed` of `size` bytes. */
export function seededSha256(seed: number, size: number): string {
  const hash = createHash('sha256');
  for (const piece of seededBytes(seed, 0, size)) hash.update(piece);
  return hash.digest('hex');
}

/** A file the server serves: a seeded body, its validators, and where its responses are cut. */
export interface ServedFile {
  size: number;
  seed: number;
  /** The strong ETag, or none. */
  etag: string | undefined;
  /** Whether Range requests are honoured (a server without range support always sends the whole body). */
  ranges: boolean;
  /** Offsets (absolute) at which a response is cut: each is used once, by the first response that reaches it. */
  cuts: number[];
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** The status every Range request is answered with instead (a 503: the server is failing meanwhile). */
  rangeStatus?: number;
  /** Serve ranges whatever `If-Range` says (a server that ignores it: only the client can tell the file changed). */
  ignoresIfRange?: boolean;
  /**
   * Each cut waits for it once the bytes before it are flushed: a test whose reader must have taken bytes before
   * the cut says so here (a client drops the chunks its caller has not pulled yet when the connection breaks).
   */
  beforeCut?: () => Promise<void>;
}

/** One event of a served event stream. */
export interface ServedEvent {
  readonly id: string;
  readonly data: string;
}

/** An event stream the server serves: its events, and what each connection does. */
export interface ServedEvents {
  readonly events: readonly ServedEvent[];
  /** Per connection, in order: its `retry:` value, its line ending, and after how many events it is cut (mid-event). */
  readonly connections: readonly { retry: number; eol: string; cutAfter: number | undefined }[];
  /** Each cut waits for it once the bytes before it are flushed (see `ServedFile.beforeCut`). */
  readonly beforeCut?: () => Promise<void>;
}

/** What the server saw of one request. */
export interface ResumeHit {
  readonly path: string;
  readonly method: string;
  readonly range: string | undefined;
  readonly ifRange: string | undefined;
  readonly lastEventId: string | undefined;
  readonly status: number;
  /** Body bytes written for it. */
  sent: number;
  /** Settles when its response is over: finished, cut, or closed by the client. */
  readonly closed: Promise<unknown>;
}

/** A string as the bytes of one event, with `eol` as its line ending. */
function eventText(event: ServedEvent, eol: string): string {
  return `id: ${event.id}${eol}data: ${event.data}${eol}${eol}`;
}

/**
 * The text a caller reads when every connection's whole events reach it once: each connection's `retry:` line and
 * the events it sent before its cut, the first connection's BOM only.
 */
export function wholeEventsText({ events, connections }: ServedEvents): string {
  let from = 0;
  const parts = connections.map(({ retry, eol, cutAfter }) => {
    const sent = events.slice(from, cutAfter === undefined ? undefined : from + cutAfter);
    from += sent.length;
    return `retry: ${retry}${eol}${sent.map((event) => eventText(event, eol)).join('')}`;
  });
  return `\uFEFF${parts.join('')}`;
}

/**
 * A node:http server on 127.0.0.1 that serves seeded files with Range and If-Range (RFC 9110), and event streams
 * that resume after `Last-Event-ID`, cutting their responses where told. Every request is recorded in `hits`,
 * with the body bytes written for it.
 */
export class ResumeServer {
  readonly hits: ResumeHit[] = [];
  readonly files = new Map<string, ServedFile>();
  readonly streams = new Map<string, ServedEvents>();
  readonly #server: Server;

  /**
   * `cors`: answer pages of other origins (a browser test): every origin allowed, every requested header allowed on
   * a preflight (not recorded in `hits`), the validators and `Content-Range` exposed to the page, nothing cached.
   */
  constructor({ cors = false }: { cors?: boolean } = {}) {
    this.#server = createServer((req, res) => {
      if (cors) {
        res.setHeader('access-control-allow-origin', '*');
        res.setHeader('access-control-expose-headers', 'ETag, Last-Modified, Content-Range, Accept-Ranges');
        // Chromium's HTTP cache keeps a cut body and completes it with range requests of its own: not stored, every
        // request the server sees is the page's.
        res.setHeader('cache-control', 'no-store');
        if (req.method === 'OPTIONS') {
          const asked = req.headers['access-control-request-headers'];
          if (asked) res.setHeader('access-control-allow-headers', asked);
          res.writeHead(204).end();
          return;
        }
      }
      const path = req.url ?? '/';
      const file = this.files.get(path);
      const events = this.streams.get(path);
      const done = file
        ? this.#serveFile(req, res, file)
        : events
          ? this.#serveEvents(req, res, events)
          : undefined;
      if (done === undefined) res.writeHead(404).end();
      else done.catch(() => res.destroy());
    });
  }

  async listen(): Promise<string> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }

  /** Body bytes written for `path`, over every response. */
  sent(path: string): number {
    return this.hits.filter((hit) => hit.path === path).reduce((sum, hit) => sum + hit.sent, 0);
  }

  #hit(req: IncomingMessage, res: ServerResponse, status: number): ResumeHit {
    const header = (name: string) => req.headers[name] as string | undefined;
    const hit: ResumeHit = {
      path: req.url ?? '/',
      method: req.method ?? 'GET',
      range: header('range'),
      ifRange: header('if-range'),
      lastEventId: header('last-event-id'),
      status,
      sent: 0,
      closed: once(res, 'close'),
    };
    this.hits.push(hit);
    return hit;
  }

  async #serveFile(req: IncomingMessage, res: ServerResponse, file: ServedFile): Promise<void> {
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    if (range !== null && file.rangeStatus !== undefined) {
      this.#hit(req, res, file.rangeStatus);
      res.writeHead(file.rangeStatus, { 'content-type': 'text/plain' }).end('unavailable');
      return;
    }
    const partial =
      range !== null &&
      file.ranges &&
      (ifRange === undefined || ifRange === file.etag || file.ignoresIfRange === true);
    const first = partial ? Number(range[1]) : 0;
    const last = partial && range[2] ? Math.min(Number(range[2]), file.size - 1) : file.size - 1;
    const headers: Record<string, string> = {
      'content-type': 'application/octet-stream',
      ...(file.etag === undefined ? {} : { etag: file.etag }),
      ...(file.ranges ? { 'accept-ranges': 'bytes' } : {}),
      ...file.headers,
    };
    if (partial && first >= file.size) {
      this.#hit(req, res, 416);
      res.writeHead(416, { ...headers, 'content-range': `bytes */${file.size}` }).end();
      return;
    }
    const status = partial ? 206 : 200;
    const hit = this.#hit(req, res, status);
    if (partial) headers['content-range'] = `bytes ${first}-${last}/${file.size}`;
    headers['content-length'] = String(last - first + 1);
    res.writeHead(status, headers);
    const cutIndex = file.cuts.findIndex((cut) => cut >= first && cut <= last);
    const cut = cutIndex === -1 ? undefined : (file.cuts.splice(cutIndex, 1)[0] as number);
    await this.#write(
      res,
      seededBytes(file.seed, first, cut ?? last + 1),
      hit,
      cut !== undefined,
      file.beforeCut,
    );
  }

  /** Writes `pieces` with backpressure; then ends the response, or cuts the connection once they are flushed. */
  async #write(
    res: ServerResponse,
    pieces: Iterable<Uint8Array>,
    hit: ResumeHit,
    cut: boolean,
    beforeCut?: () => Promise<void>,
  ): Promise<void> {
    const closed = once(res, 'close');
    res.flushHeaders();
    let last = new Promise<void>((resolve) => res.write('', () => resolve()));
    for (const piece of pieces) {
      if (res.destroyed) return;
      hit.sent += piece.length;
      last = new Promise((resolve) => res.write(piece, () => resolve()));
      if (res.writableNeedDrain) await Promise.race([once(res, 'drain'), closed]);
    }
    if (!cut) {
      res.end();
      return;
    }
    // Cut once what was written is flushed: the client gets every byte before the cut.
    await Promise.race([last, closed]);
    await Promise.race([beforeCut?.(), closed]);
    res.socket?.destroy();
  }

  async #serveEvents(req: IncomingMessage, res: ServerResponse, served: ServedEvents): Promise<void> {
    const connection = this.hits.filter((hit) => hit.path === req.url).length;
    const plan = served.connections[connection];
    const hit = this.#hit(req, res, plan === undefined ? 204 : 200);
    if (plan === undefined) {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    const after = req.headers['last-event-id'];
    const from = after === undefined ? 0 : served.events.findIndex((event) => event.id === after) + 1;
    const sending = served.events.slice(from, plan.cutAfter === undefined ? undefined : from + plan.cutAfter);
    let text = `\uFEFFretry: ${plan.retry}${plan.eol}${sending.map((event) => eventText(event, plan.eol)).join('')}`;
    const next = served.events[from + sending.length];
    // The cut comes inside the next event, after its id line: an id no event was dispatched with.
    if (plan.cutAfter !== undefined && next !== undefined)
      text += `id: ${next.id}${plan.eol}data: ${next.data.slice(0, 3)}`;
    await this.#write(
      res,
      [new TextEncoder().encode(text)],
      hit,
      plan.cutAfter !== undefined,
      served.beforeCut,
    );
  }
}
