import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server on 127.0.0.1 whose every path answers 503 `failures` times, then 200 with `{"ok":true}`. */
export interface FlakyServer {
  readonly base: string;
  /** Requests per path, as the server saw them. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

export function startFlakyServer(failures: number): Promise<FlakyServer> {
  const hits = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const count = (hits.get(path) ?? 0) + 1;
    hits.set(path, count);
    request.resume();
    if (count <= failures) response.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
    else response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, close });
    });
  });
}
