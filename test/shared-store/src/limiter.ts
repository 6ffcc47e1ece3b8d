import { createServer, type Server } from 'node:http';

/** What the limiter saw: every request's arrival (ms, wall clock) and status. */
export interface Arrival {
  readonly at: number;
  readonly status: number;
}

export interface Limiter {
  readonly url: string;
  readonly arrivals: Arrival[];
  /** From now on every answer is a 500 (an outage), or back to normal. */
  down(on: boolean): void;
  close(): Promise<void>;
}

/**
 * A fixed-window limiter's answer to a request at `now` (ms): `limit` per `window` ms, windows aligned on the
 * epoch, as express-rate-limit answers with `standardHeaders: 'draft-8'` (`headers: false`: bare 429s).
 */
export function fixedWindow({ limit, window, headers }: { limit: number; window: number; headers: boolean }) {
  let current = -1;
  let used = 0;
  return (now: number): { status: number; fields: Record<string, string> } => {
    const index = Math.floor(now / window);
    if (index !== current) {
      current = index;
      used = 0;
    }
    used++;
    const status = used > limit ? 429 : 200;
    const fields: Record<string, string> = {};
    if (headers) {
      const reset = Math.max(1, Math.ceil(((index + 1) * window - now) / 1000));
      fields['ratelimit-policy'] = `"limit"; q=${limit}; w=${window / 1000}`;
      fields.ratelimit = `"limit"; r=${Math.max(0, limit - used)}; t=${reset}`;
      if (status === 429) fields['retry-after'] = String(reset);
    }
    return { status, fields };
  };
}

/**
 * A fixed-window limiter on 127.0.0.1, as express-rate-limit answers with `standardHeaders: 'draft-8'`: `limit`
 * per `window` ms, windows aligned on the wall clock. `headers: false` answers bare 429s (nothing but the status).
 */
export async function startLimiter({
  limit,
  window,
  headers,
}: {
  limit: number;
  window: number;
  headers: boolean;
}): Promise<Limiter> {
  const arrivals: Arrival[] = [];
  const answer = fixedWindow({ limit, window, headers });
  let outage = false;
  const server: Server = createServer((_request, response) => {
    const now = Date.now();
    if (outage) {
      arrivals.push({ at: now, status: 500 });
      response.writeHead(500).end('down');
      return;
    }
    const { status, fields } = answer(now);
    arrivals.push({ at: now, status });
    response.writeHead(status, fields).end(status === 200 ? 'ok' : 'slow down');
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    down: (on) => {
      outage = on;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
