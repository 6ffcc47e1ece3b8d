import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the demo server. `'reset'` destroys the socket before any response. */
export type DemoStep =
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>> }
  | 'reset';

/** A request as the server saw it: the timeline's server-side column. */
export interface ServerHit {
  readonly path: string;
  readonly method: string;
  readonly idempotencyKey: string | undefined;
  readonly answer: string;
}

/** A running flaky server on 127.0.0.1; scripts are per path, the last step repeats. */
export interface FlakyServer {
  readonly url: string;
  readonly hits: ServerHit[];
  script(path: string, steps: readonly DemoStep[]): void;
  close(): Promise<void>;
}

/** Starts the demo's embedded server on an ephemeral loopback port. */
export async function startFlakyServer(): Promise<FlakyServer> {
  const scripts = new Map<string, { steps: readonly DemoStep[]; served: number }>();
  const hits: ServerHit[] = [];

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const script = scripts.get(path);
    // Drain the body first so a POST's bytes are all read before we answer.
    request.resume();
    request.on('end', () => {
      const step: DemoStep = script
        ? (script.steps[Math.min(script.served++, script.steps.length - 1)] as DemoStep)
        : { status: 404 };
      const key = request.headers['idempotency-key'];
      hits.push({
        path,
        method: request.method ?? 'GET',
        idempotencyKey: Array.isArray(key) ? key.join(', ') : key,
        answer: step === 'reset' ? 'reset' : String(step.status),
      });
      if (step === 'reset') {
        request.socket.destroy();
        return;
      }
      response.writeHead(step.status, { 'content-type': 'text/plain', ...step.headers });
      response.end(`${step.status}\n`);
    });
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    script: (path, steps) => {
      scripts.set(path, { steps, served: 0 });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
