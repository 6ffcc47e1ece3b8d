import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
}

/** A real HTTP server on another loopback origin, recording every request per path (preflights included). */
export interface CorsServer {
  /** e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** Everything that reached `path`, in order, OPTIONS preflights included. */
  seen(path: string): SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts the server on 127.0.0.1 (an ephemeral port). It allows any origin, method and requested header (so a
 * preflight always succeeds and is only ever counted, never a cause of failure). Every path answers its first
 * non-OPTIONS request with 503 and later ones with 200, so a client with retries makes a second attempt. Paths
 * below /paced/ answer every request with 200 and a spent 1-per-second quota (the RateLimit fields), exposed to
 * the page with `Access-Control-Expose-Headers` below /paced/exposed/ only.
 */
export async function startCorsServer(): Promise<CorsServer> {
  const seen = new Map<string, SeenRequest[]>();
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const list = seen.get(path) ?? [];
    seen.set(path, list);
    list.push({ method: request.method ?? '', headers: request.headers });
    const origin = request.headers.origin ?? '*';
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Vary', 'Origin');
    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, POST, PUT, PATCH, DELETE');
      const asked = request.headers['access-control-request-headers'];
      if (asked) response.setHeader('Access-Control-Allow-Headers', asked);
      response.writeHead(204).end();
      return;
    }
    request.resume();
    if (path.startsWith('/paced/')) {
      const quota = { RateLimit: '"default";r=0;t=1', 'RateLimit-Policy': '"default";q=1;w=1' };
      const exposed = path.startsWith('/paced/exposed/')
        ? { 'Access-Control-Expose-Headers': 'RateLimit, RateLimit-Policy' }
        : {};
      request.on('end', () => response.writeHead(200, { ...quota, ...exposed }).end('ok'));
      return;
    }
    request.on('end', () => {
      const attempt = list.filter((r) => r.method !== 'OPTIONS').length;
      response.writeHead(attempt === 1 ? 503 : 200, { 'content-type': 'text/plain' }).end(String(attempt));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen: (path) => seen.get(path) ?? [],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
