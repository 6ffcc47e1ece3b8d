import { HttpResponse, http } from 'msw';
import { type SetupServer, setupServer } from 'msw/node';
import { type Route as RouteOf, ScriptedRoutes, type Step } from './scripted-routes.js';

export type { Step };

/**
 * The base URL of the simulated API. MSW answers before any socket opens; if interception ever failed, a
 * loopback port that nothing listens on fails fast instead of reaching out.
 */
export const API = 'http://127.0.0.1:4599';

/** A second simulated origin (another port on loopback): what a client that talks to two backends sees. */
export const API_2 = 'http://127.0.0.1:4598';

/** What the server saw of one request. */
export interface Hit {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: string;
}

/** A scripted route: `hits` is the server-side record of every request it got. */
export type Route = RouteOf<Hit>;

/**
 * An MSW server whose routes answer a script of steps in order (the last step repeats). Counting happens on
 * the server side, so a test sees exactly what reached "the network".
 */
export class ScriptedApi {
  readonly server: SetupServer;
  readonly #record = async (request: Request): Promise<Hit> => ({
    method: request.method,
    url: request.url,
    headers: new Headers(request.headers),
    body: await request.text(),
  });
  readonly #routes = new Map<string, ScriptedRoutes<Hit>>();

  /** `origins`: the base URLs it answers for, each with routes of its own. */
  constructor(origins: readonly string[] = [API]) {
    for (const origin of origins) {
      this.#routes.set(origin, new ScriptedRoutes<Hit>(this.#record));
    }
    this.server = setupServer(...[...this.#routes].map(([origin, routes]) => routes.handler(origin)));
  }

  /** Scripts `path` (e.g. '/items') of `origin` and returns its server-side record. */
  script(path: string, steps: readonly Step[], origin = API): Route {
    const routes = this.#routes.get(origin);
    if (routes === undefined) throw new Error(`This ScriptedApi does not answer for ${origin}.`);
    return routes.script(path, steps);
  }

  /**
   * A fixed-window rate limiter on `path`, answering as express-rate-limit 8 does with `standardHeaders:
   * 'draft-7'`: every answer carries `RateLimit: limit=L, remaining=R, reset=S` and `RateLimit-Policy: L;w=W`; a
   * request over the limit gets a 429 with `Retry-After: S` too (S = whole seconds left in the window, rounded
   * up). The window starts with the first request after the previous one ended, on the clock `now`.
   */
  limiter(
    path: string,
    { limit, windowMs, now }: { limit: number; windowMs: number; now: () => number },
  ): Route {
    const route: Route = { hits: [] };
    let windowStart = Number.NEGATIVE_INFINITY;
    let count = 0;
    this.server.use(
      http.all(`${API}${path}`, async ({ request }) => {
        route.hits.push(await this.#record(request));
        const t = now();
        if (t >= windowStart + windowMs) {
          windowStart = t;
          count = 0;
        }
        count++;
        const reset = String(Math.ceil((windowStart + windowMs - t) / 1000));
        const headers: Record<string, string> = {
          RateLimit: `limit=${limit}, remaining=${Math.max(0, limit - count)}, reset=${reset}`,
          'RateLimit-Policy': `${limit};w=${windowMs / 1000}`,
        };
        if (count <= limit) return new HttpResponse('ok', { status: 200, headers });
        return new HttpResponse('Too many requests', {
          status: 429,
          headers: { ...headers, 'Retry-After': reset },
        });
      }),
    );
    return route;
  }

  listen(): void {
    this.server.listen({ onUnhandledFrame: 'error' });
  }

  reset(): void {
    for (const routes of this.#routes.values()) routes.reset();
    this.server.resetHandlers();
  }

  close(): void {
    this.server.close();
  }
}
