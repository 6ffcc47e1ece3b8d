import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one scripted connection does: answer, reset the socket, or hang until the client gives up. */
export type SocketStep =
  | number
  | 'reset'
  | 'hang'
  | {
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly midBodyReset?: true;
    };

/** One request as the server saw it: its order, method, headers and full body. */
export interface SocketHit {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A real `node:http` server on 127.0.0.1 for what only a socket can do (resets, refusals, silence). `hits` is the
 * server-side record; the script's last step repeats. `received` resolves when the nth request has arrived.
 */
export class SocketServer {
  readonly hits: SocketHit[] = [];
  readonly #server: Server;
  readonly #steps: readonly SocketStep[];
  readonly #waiters = new Map<number, () => void>();

  private constructor(steps: readonly SocketStep[]) {
    this.#steps = steps;
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.hits.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const n = this.hits.length;
        const step = this.#steps[Math.min(n, this.#steps.length) - 1] as SocketStep;
        this.#waiters.get(n)?.();
        if (step === 'hang') return;
        if (step === 'reset') {
          request.socket.destroy();
          return;
        }
        const { status, headers = {}, midBodyReset } = typeof step === 'number' ? { status: step } : step;
        if (midBodyReset) {
          // Headers and half a body go out, then the connection dies: the client already has its response.
          response.writeHead(status, { ...headers, 'content-length': '1000' });
          response.write('partial', () => request.socket.destroy());
          return;
        }
        response.writeHead(status, { 'content-type': 'text/plain', ...headers });
        response.end(String(status));
      });
    });
  }

  /** Starts a server on 127.0.0.1 (a free port, or `port`) answering `steps` in order. */
  static async start(steps: readonly SocketStep[], port = 0): Promise<SocketServer> {
    const server = new SocketServer(steps);
    await new Promise<void>((resolve, reject) => {
      server.#server.once('error', reject);
      server.#server.listen(port, '127.0.0.1', () => resolve());
    });
    return server;
  }

  /** A port on 127.0.0.1 that nothing listens on (it was free a moment ago): connecting to it is refused. */
  static async freePort(): Promise<number> {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
  }

  get url(): string {
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Resolves once the server has received its nth request (1-based). */
  received(n: number): Promise<void> {
    if (this.hits.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.set(n, resolve));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
