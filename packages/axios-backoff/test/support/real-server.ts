import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server saw of one request: the server-side record every socket test asserts on. */
export interface RealHit {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body as received, byte for byte. */
  readonly body: Buffer;
}

/** Answers hit number `n` (1-based); may destroy the socket, stall, or write part of a response. */
export type RealHandler = (n: number, req: IncomingMessage, res: ServerResponse) => void;

/**
 * A real node:http server on 127.0.0.1, for what only a socket can do (resets, refusals, stalls). Each request
 * is read to its end and recorded before the handler runs.
 */
export class RealServer {
  readonly hits: RealHit[] = [];
  readonly #server;

  constructor(handler: RealHandler) {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { method = '', url = '', headers } = req;
        this.hits.push({ method, url, headers, body: Buffer.concat(chunks) });
        handler(this.hits.length, req, res);
      });
    });
  }

  /** Listens on `port` (0: any free one) and returns the base URL. */
  listen(port = 0): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => {
        const { port: bound } = this.#server.address() as AddressInfo;
        resolve(`http://127.0.0.1:${bound}`);
      });
    });
  }

  /** Closes the server and every connection still open (stalled requests included). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }
}

/** A loopback port that was just closed: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const probe = new RealServer(() => {});
  const url = await probe.listen();
  await probe.close();
  return Number(new URL(url).port);
}
