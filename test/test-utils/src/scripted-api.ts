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
  readonly #routes = new Map<string, ScriptedRoutes<Hit>>();

  /** `origins`: the base URLs it answers for, each with routes of its own. */
  constructor(origins: readonly string[] = [API]) {
    for (const origin of origins) {
      this.#routes.set(
        origin,
        new ScriptedRoutes<Hit>(async (request) => ({
          method: request.method,
          url: request.url,
          headers: new Headers(request.headers),
          body: await request.text(),
        })),
      );
    }
    this.server = setupServer(...[...this.#routes].map(([origin, routes]) => routes.handler(origin)));
  }

  /** Scripts `path` (e.g. '/items') of `origin` and returns its server-side record. */
  script(path: string, steps: readonly Step[], origin = API): Route {
    const routes = this.#routes.get(origin);
    if (routes === undefined) throw new Error(`This ScriptedApi does not answer for ${origin}.`);
    return routes.script(path, steps);
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
