import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer of the demo server. `'reset'` destroys the socket before any response. */
export type DemoStep =
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>> }
  | 'reset';

/** A request as the server saw it: the timeline's rows come from here, not from the client. */
export interface ServerHit {
  readonly path: string;
  readonly method: string;
  readonly idempotencyKey: string | undefined;
  /** The status sent, or 'reset'. */
  readonly answer: string;
}

/** A running flaky server on 127.0.0.1; scripts are per path, the last step repeats. */
export interface FlakyServer {
  readonly url: string;
  readonly hits: readonly ServerHit[];
  script(path: string, steps: readonly DemoStep[]): void;
  /** Calls `listener` with every request as the server answers it; returns a function that stops it. */
  watch(listener: (hit: ServerHit) => void): () => void;
  close(): Promise<void>;
}

/** Starts the examples' embedded server on an ephemeral loopback port. */
export async function startFlakyServer(): Promise<FlakyServer> {
  const scripts = new Map<string, { steps: readonly DemoStep[]; served: number }>();
  const hits: ServerHit[] = [];
  const listeners = new Set<(hit: ServerHit) => void>();

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const script = scripts.get(path);
    // Read the whole body first, so a POST's bytes have all arrived before the answer.
    request.resume();
    request.on('end', () => {
      const step: DemoStep = script
        ? (script.steps[Math.min(script.served++, script.steps.length - 1)] as DemoStep)
        : { status: 404 };
      const key = request.headers['idempotency-key'];
      const hit: ServerHit = {
        path,
        method: request.method ?? 'GET',
        idempotencyKey: Array.isArray(key) ? key.join(', ') : key,
        answer: step === 'reset' ? 'reset' : String(step.status),
      };
      hits.push(hit);
      for (const listener of listeners) listener(hit);
      if (step === 'reset') {
        request.socket.destroy();
        return;
      }
      response.writeHead(step.status, { 'content-type': 'text/plain', ...step.headers });
      response.end(`${step.status}\n`);
    });
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    script: (path, steps) => {
      scripts.set(path, { steps, served: 0 });
    },
    watch: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
