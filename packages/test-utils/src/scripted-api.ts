import { HttpResponse, http } from 'msw';
import { type SetupServer, setupServer } from 'msw/node';

/**
 * The base URL of the simulated API. MSW answers before any socket opens; if interception ever failed, a
 * loopback port that nothing listens on fails fast instead of reaching out.
 */
export const API = 'http://127.0.0.1:4599';

/** One scripted answer: a status, a full response, or a network failure. */
export type Step =
  | number
  | 'network-error'
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string };

/** What the server saw of one request. */
export interface Hit {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: string;
}

/** A scripted route: `hits` is the server-side record of every request it got. */
export interface Route {
  readonly hits: Hit[];
}

/**
 * An MSW server whose routes answer a script of steps in order (the last step repeats). Counting happens on
 * the server side, so a test sees exactly what reached "the network".
 */
export class ScriptedApi {
  readonly server: SetupServer;
  readonly #routes = new Map<string, { steps: readonly Step[]; hits: Hit[] }>();

  constructor() {
    this.server = setupServer(
      http.all(`${API}/*`, async ({ request }) => {
        const path = new URL(request.url).pathname;
        const route = this.#routes.get(path);
        if (!route) return HttpResponse.text(`no script for ${path}`, { status: 599 });
        route.hits.push({
          method: request.method,
          url: request.url,
          headers: new Headers(request.headers),
          body: await request.text(),
        });
        const step = route.steps[Math.min(route.hits.length, route.steps.length) - 1] as Step;
        if (step === 'network-error') return HttpResponse.error();
        if (typeof step === 'number') return new HttpResponse(String(step), { status: step });
        return new HttpResponse(step.body ?? String(step.status), {
          status: step.status,
          headers: step.headers ?? {},
        });
      }),
    );
  }

  /** Scripts `path` (e.g. '/items') and returns its server-side record. */
  script(path: string, steps: readonly Step[]): Route {
    if (steps.length === 0) throw new Error('A script needs at least one step.');
    const route = { steps, hits: [] as Hit[] };
    this.#routes.set(path, route);
    return route;
  }

  listen(): void {
    this.server.listen({ onUnhandledFrame: 'error' });
  }

  reset(): void {
    this.#routes.clear();
    this.server.resetHandlers();
  }

  close(): void {
    this.server.close();
  }
}
