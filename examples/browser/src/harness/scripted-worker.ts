import { HttpResponse, http } from 'msw';
import { type SetupWorker, setupWorker } from 'msw/browser';

/** The simulated API lives on the page's own origin, below /api, where MSW's service worker answers it. */
export const API = `${location.origin}/api`;

/** One scripted answer: a status, a full response, or a network failure (as test-utils' ScriptedApi). */
export type Step =
  | number
  | 'network-error'
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string };

/** What the worker saw of one request: plain data, so it crosses `page.evaluate` as it is. */
export interface Hit {
  readonly method: string;
  readonly url: string;
  /** Lower-case names, as fetch's Headers give them. */
  readonly headers: Record<string, string>;
  readonly body: string;
}

export interface Route {
  readonly hits: Hit[];
}

/**
 * MSW's browser worker with scripted routes that answer their steps in order (the last one repeats). The
 * handlers run in the page, so `hits` is the server-side record of every request that reached the worker.
 */
export class ScriptedWorker {
  readonly worker: SetupWorker;
  readonly #routes = new Map<string, { steps: readonly Step[]; hits: Hit[] }>();

  constructor() {
    this.worker = setupWorker(
      http.all(`${API}/*`, async ({ request }) => {
        const path = new URL(request.url).pathname.slice('/api'.length);
        const route = this.#routes.get(path);
        if (!route) return HttpResponse.text(`no script for ${path}`, { status: 599 });
        route.hits.push({
          method: request.method,
          url: request.url,
          headers: Object.fromEntries(request.headers),
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

  /** Scripts `path` (e.g. '/items', below /api) and returns its server-side record. */
  script(path: string, steps: readonly Step[]): Route {
    if (steps.length === 0) throw new Error('A script needs at least one step.');
    const route = { steps, hits: [] as Hit[] };
    this.#routes.set(path, route);
    return route;
  }

  /** Registers the worker (public/mockServiceWorker.js) and waits until it controls the page. */
  async start(): Promise<void> {
    // Anything outside /api (the page's own files) goes to the real server.
    await this.worker.start({ quiet: true, onUnhandledFrame: 'bypass' });
  }

  reset(): void {
    this.#routes.clear();
  }
}
