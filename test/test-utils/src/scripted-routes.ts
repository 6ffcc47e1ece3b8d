import { type HttpHandler, HttpResponse, http } from 'msw';

/** One scripted answer: a status, a full response, or a network failure. */
export type Step =
  | number
  | 'network-error'
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string };

/** A scripted route: `hits` is the server-side record of every request it got. */
export interface Route<H> {
  readonly hits: H[];
}

/** The response MSW sends for one step. */
function answer(step: Step): Response {
  if (step === 'network-error') return HttpResponse.error();
  if (typeof step === 'number') return new HttpResponse(String(step), { status: step });
  return new HttpResponse(step.body ?? String(step.status), {
    status: step.status,
    headers: step.headers ?? {},
  });
}

/**
 * Routes that answer a script of steps in order (the last step repeats), as one MSW handler: the same code behind
 * the Node server (`ScriptedApi`) and the page's service worker (examples/browser). `record` turns a request into
 * the hit kept on the route, so counting happens on the server side. Only `msw` itself is imported: this file
 * runs in a page too (`@backoff/test-utils/scripted-routes`).
 */
export class ScriptedRoutes<H> {
  readonly #routes = new Map<string, { steps: readonly Step[]; hits: H[] }>();
  readonly #record: (request: Request) => Promise<H>;

  constructor(record: (request: Request) => Promise<H>) {
    this.#record = record;
  }

  /** Scripts `path` (below the handler's base, e.g. '/items') and returns its server-side record. */
  script(path: string, steps: readonly Step[]): Route<H> {
    if (steps.length === 0) throw new Error('A script needs at least one step.');
    const route = { steps, hits: [] as H[] };
    this.#routes.set(path, route);
    return route;
  }

  reset(): void {
    this.#routes.clear();
  }

  /** The MSW handler for every request below `base` (an absolute URL without a trailing slash). */
  handler(base: string): HttpHandler {
    const prefix = new URL(base).pathname.replace(/\/$/, '');
    return http.all(`${base}/*`, async ({ request }) => {
      const path = new URL(request.url).pathname.slice(prefix.length);
      const route = this.#routes.get(path);
      if (!route) return HttpResponse.text(`no script for ${path}`, { status: 599 });
      route.hits.push(await this.#record(request));
      return answer(route.steps[Math.min(route.hits.length, route.steps.length) - 1] as Step);
    });
  }
}
