import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type Fault, parseFaultPath, type Step, toFault } from './faults.js';

/** What the server saw of one request, and what it did with it: the record every fault test asserts on. */
export interface FaultHit {
  /** 1-based arrival order over the whole server (every path). */
  readonly order: number;
  /** 1-based arrival order on this path. */
  readonly attempt: number;
  readonly path: string;
  /** The request target as sent (path and query). */
  readonly url: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  /** The Idempotency-Key header as received (repeated headers joined with ', '). */
  readonly idempotencyKey: string | undefined;
  readonly body: string;
  /** Arrival time on the server's clock (`now`): a VirtualClock's when the test injects one. */
  readonly at: number;
  /** Which TCP connection it came on (1-based, in order of connection). */
  readonly connection: number;
  /** Whether that connection had served a request before (a kept-alive socket reused by the client). */
  readonly reused: boolean;
  /** What the server did: a status, or the fault's name. */
  readonly answer: string;
  /**
   * The delay the server asked for, in ms, when it sent a well-formed Retry-After (delay-seconds or an
   * HTTP-date): the client must not come back earlier. Hostile values are not a request for anything.
   */
  readonly asked: number | undefined;
}

/** Server-side counters of one path. */
export interface PathStats {
  readonly attempts: number;
  readonly methods: readonly string[];
  readonly idempotencyKeys: readonly (string | undefined)[];
  readonly arrivals: readonly number[];
}

interface Script {
  readonly steps: readonly Fault[];
  /** Arrival time of the path's first hit, for `unavailable`. */
  first: number | undefined;
  hits: number;
}

const DELAY_SECONDS = /^\d+$/;

/** The delay a Retry-After header value asks for, when it is one the RFC allows (1*DIGIT or an IMF-fixdate). */
function askedDelay(fault: Fault & { kind: 'respond' }, now: number): number | undefined {
  const entry = Object.entries(fault.headers ?? {}).find(([name]) => name.toLowerCase() === 'retry-after');
  const value = entry?.[1];
  if (typeof value !== 'string') return undefined;
  if (DELAY_SECONDS.test(value)) return Number(value) * 1000;
  // Only a canonical IMF-fixdate counts: Date.parse would roll '31 Feb' into March.
  const date = Date.parse(value);
  return !Number.isNaN(date) && new Date(date).toUTCString() === value ? Math.max(0, date - now) : undefined;
}

/**
 * A node:http server on 127.0.0.1 (an ephemeral port) that misbehaves on purpose. Each path answers a script of
 * faults in arrival order, the last one repeating: registered with `script(path, steps)`, or written in the path
 * itself as `/fault/<step>,<step>/<anything>` (see `parseFaultPath`). `refuse()` closes the listening socket and
 * `recover()` listens again on the same port. Everything the server sees is recorded in `hits`.
 */
export class FaultServer {
  readonly hits: FaultHit[] = [];
  /** The clock arrival times and `unavailable` windows are measured on. Inject a VirtualClock's `now`. */
  now: () => number = () => Date.now();
  readonly #server: Server;
  readonly #scripts = new Map<string, Script>();
  readonly #connections = new Map<Socket, { id: number; served: number }>();
  readonly #watchers = new Set<(hit: FaultHit) => void>();
  #connectionCount = 0;
  /** Requests received, over the server's life: `forget()` and `reset()` do not rewind it. */
  #arrivals = 0;
  #port = 0;
  #listening = false;

  constructor() {
    this.#server = createServer((req, res) => this.#handle(req, res));
    this.#server.on('connection', (socket: Socket) => {
      this.#connections.set(socket, { id: ++this.#connectionCount, served: 0 });
      socket.on('close', () => this.#connections.delete(socket));
      // A client that resets its side while we stall or write must not crash the server.
      socket.on('error', () => {});
    });
  }

  /** The base URL, e.g. `http://127.0.0.1:41234`. Valid after the first `listen()`, also while refusing. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  get port(): number {
    return this.#port;
  }

  /** Connections open right now (kept-alive ones included). */
  get openConnections(): number {
    return this.#connections.size;
  }

  /** Listens on `port` (0: any free one), on 127.0.0.1 only. The backlog fits 1,000 simultaneous connects. */
  listen(port = this.#port): Promise<string> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      this.#server.once('error', onError);
      this.#server.listen({ port, host: '127.0.0.1', backlog: 2048 }, () => {
        this.#server.off('error', onError);
        this.#port = (this.#server.address() as AddressInfo).port;
        this.#listening = true;
        resolve(this.url);
      });
    });
  }

  /**
   * Stops listening and drops every open connection, keeping the port: until `recover()`, connecting is refused
   * (ECONNREFUSED), as with a server that went down.
   */
  refuse(): Promise<void> {
    if (!this.#listening) return Promise.resolve();
    this.#listening = false;
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  /** Listens again on the same port after `refuse()`. */
  async recover(): Promise<void> {
    if (this.#listening) return;
    await this.listen(this.#port);
  }

  /** Scripts `path` (the last step repeats) and starts its counters afresh. */
  script(path: string, steps: readonly Step[]): void {
    if (steps.length === 0) throw new Error('A script needs at least one step.');
    this.#scripts.set(path, { steps: steps.map(toFault), first: undefined, hits: 0 });
  }

  /** Calls `watcher` with every hit as it is recorded (after the server acted); returns a function that stops it. */
  watch(watcher: (hit: FaultHit) => void): () => void {
    this.#watchers.add(watcher);
    return () => this.#watchers.delete(watcher);
  }

  /** The hits of one path, in arrival order. */
  hitsOf(path: string): FaultHit[] {
    return this.hits.filter((hit) => hit.path === path);
  }

  /** Server-side counters of one path: attempts, methods, Idempotency-Key values and arrival times. */
  stats(path: string): PathStats {
    const hits = this.hitsOf(path);
    return {
      attempts: hits.length,
      methods: hits.map((hit) => hit.method),
      idempotencyKeys: hits.map((hit) => hit.idempotencyKey),
      arrivals: hits.map((hit) => hit.at),
    };
  }

  /** Forgets the scripts and hits of some paths (finished logical requests), keeping the others'. */
  forget(paths: Iterable<string>): void {
    const gone = new Set(paths);
    for (const path of gone) this.#scripts.delete(path);
    const kept = this.hits.filter((hit) => !gone.has(hit.path));
    this.hits.splice(0, this.hits.length, ...kept);
  }

  /** Forgets every script and hit (the arrival and connection numbering go on). */
  reset(): void {
    this.#scripts.clear();
    this.hits.length = 0;
  }

  /** Closes the server and every connection still open, stalled requests included. */
  close(): Promise<void> {
    this.#server.closeAllConnections();
    if (!this.#listening) return Promise.resolve();
    this.#listening = false;
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #scriptOf(path: string): Script {
    let script = this.#scripts.get(path);
    if (script === undefined) {
      const steps = parseFaultPath(path);
      script = { steps: steps ?? [toFault(404)], first: undefined, hits: 0 };
      this.#scripts.set(path, script);
    }
    return script;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      const script = this.#scriptOf(path);
      const at = this.now();
      script.first ??= at;
      script.hits++;
      const fault = script.steps[Math.min(script.hits, script.steps.length) - 1] as Fault;
      const connection = this.#connections.get(req.socket) ?? { id: 0, served: 0 };
      const reused = connection.served > 0;
      connection.served++;
      const key = req.headers['idempotency-key'];
      const order = ++this.#arrivals;
      const answer = this.#act(fault, req, res, { at, first: script.first, reused, order });
      const hit: FaultHit = {
        order,
        attempt: script.hits,
        path,
        url: req.url ?? '',
        method: req.method ?? '',
        headers: req.headers,
        idempotencyKey: Array.isArray(key) ? key.join(', ') : key,
        body: Buffer.concat(chunks).toString(),
        at,
        connection: connection.id,
        reused,
        answer: answer.answer,
        asked: answer.asked,
      };
      this.hits.push(hit);
      for (const watcher of this.#watchers) watcher(hit);
    });
  }

  /** Carries out one fault; returns what was done, for the record. */
  #act(
    fault: Fault,
    req: IncomingMessage,
    res: ServerResponse,
    context: { at: number; first: number; reused: boolean; order: number },
  ): { answer: string; asked?: number | undefined } {
    const socket = req.socket;
    switch (fault.kind) {
      case 'respond': {
        res.writeHead(fault.status, fault.headers as Record<string, string | string[]>);
        res.end(fault.body ?? String(fault.status));
        return { answer: String(fault.status), asked: askedDelay(fault, context.at) };
      }
      case 'reset':
        // RST, not FIN: the client sees ECONNRESET before any byte of a response.
        socket.resetAndDestroy();
        return { answer: 'reset' };
      case 'cut-body': {
        // Headers and half the body are flushed, then the connection closes: the body stops short.
        const body = 'x'.repeat(64);
        res.writeHead(fault.status, { 'content-type': 'text/plain', 'content-length': String(body.length) });
        res.write(body.slice(0, body.length / 2), () => socket.destroy());
        return { answer: 'cut-body' };
      }
      case 'headers-only':
        // A complete header block that promises a body, then the connection closes.
        res.writeHead(fault.status, { 'content-type': 'text/plain', 'content-length': '64' });
        res.flushHeaders();
        res.write('', () => socket.end());
        return { answer: 'headers-only' };
      case 'stall':
        // Never answered: the client's own timeout (or the server's close) ends it.
        return { answer: 'stall' };
      case 'reset-reused':
        // The keep-alive race: the client sends on a kept-alive socket that the server is closing.
        if (context.reused) {
          socket.resetAndDestroy();
          return { answer: 'reset-reused' };
        }
        res.end('fresh connection');
        return { answer: '200' };
      case 'unavailable': {
        const down = context.at - context.first < fault.forMs;
        if (!down) {
          res.end('recovered');
          return { answer: '200' };
        }
        const headers = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
        res.writeHead(503, headers);
        res.end('unavailable');
        return {
          answer: '503',
          asked: askedDelay({ kind: 'respond', status: 503, headers }, context.at),
        };
      }
      case 'every': {
        if (context.order % fault.k === 0) {
          res.writeHead(fault.status);
          res.end(String(fault.status));
          return { answer: String(fault.status) };
        }
        res.end('ok');
        return { answer: '200' };
      }
    }
  }
}
