import { type Route as RouteOf, ScriptedRoutes, type Step } from '@backoff/test-utils/scripted-routes';
import { type SetupWorker, setupWorker } from 'msw/browser';

export type { Step };

/** The simulated API lives on the page's own origin, below /api, where MSW's service worker answers it. */
export const API = `${location.origin}/api`;

/** What the worker saw of one request: plain data, so it crosses `page.evaluate` as it is. */
export interface Hit {
  readonly method: string;
  readonly url: string;
  /** Lower-case names, as fetch's Headers give them. */
  readonly headers: Record<string, string>;
  readonly body: string;
  /** When it reached the worker, on the running case's virtual clock (ms since the case began). */
  readonly at: number;
}

export type Route = RouteOf<Hit>;

/**
 * MSW's browser worker with the scripted routes of @backoff/test-utils (the same handler as the Node tests'
 * ScriptedApi). The handler runs in the page, so `hits` is the server-side record of every request that reached
 * the worker.
 */
export class ScriptedWorker {
  readonly worker: SetupWorker;
  /** The running case's clock, read as each request arrives: the worker-side time of every hit. */
  now: () => number = () => 0;
  readonly #routes = new ScriptedRoutes<Hit>(async (request) => {
    const at = this.now();
    return {
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: await request.text(),
      at,
    };
  });

  constructor() {
    this.worker = setupWorker(this.#routes.handler(API));
  }

  /** Scripts `path` (e.g. '/items', below /api) and returns its server-side record. */
  script(path: string, steps: readonly Step[]): Route {
    return this.#routes.script(path, steps);
  }

  /** Registers the worker (public/mockServiceWorker.js) and waits until it controls the page. */
  async start(): Promise<void> {
    // Anything outside /api (the page's own files) goes to the real server.
    await this.worker.start({ quiet: true, onUnhandledFrame: 'bypass' });
  }

  /** Answers the requests a `'no-answer'` step still holds. */
  release(): void {
    this.#routes.release();
  }

  reset(): void {
    this.#routes.reset();
  }
}
