import { type SetupServer, setupServer } from 'msw/node';
import { type Route as RouteOf, ScriptedRoutes, type Step } from './scripted-routes.js';

export type { Step };

/**
 * The base URL of the simulated API. MSW answers before any socket opens; if interception ever failed, a
 * loopback port that nothing listens on fails fast instead of reaching out.
 */
export const API = 'http://127.0.0.1:4599';

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
  readonly #routes = new ScriptedRoutes<Hit>(async (request) => ({
    method: request.method,
    url: request.url,
    headers: new Headers(request.headers),
    body: await request.text(),
  }));

  constructor() {
    this.server = setupServer(this.#routes.handler(API));
  }

  /** Scripts `path` (e.g. '/items') and returns its server-side record. */
  script(path: string, steps: readonly Step[]): Route {
    return this.#routes.script(path, steps);
  }

  listen(): void {
    this.server.listen({ onUnhandledFrame: 'error' });
  }

  reset(): void {
    this.#routes.reset();
    this.server.resetHandlers();
  }

  close(): void {
    this.server.close();
  }
}
