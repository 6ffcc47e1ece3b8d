import { type HttpHandler, HttpResponse, http } from 'msw';

/**
 * One scripted answer: a status, a full response, a network failure, or `'no-answer'`: nothing until the request
 * is aborted (then a network error) or `release()` (then a 200), as a server that hangs. In a page, MSW's
 * service worker gives the handler a Request without the caller's signal: there only `release()` ends it.
 */
export type Step =
  | number
  | 'network-error'
  | 'no-answer'
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string };

/** A scripted route: `hits` is the server-side record of every request it got. */
export interface Route<H> {
  readonly hits: H[];
}

/** The response MSW sends for one step. */
function answer(step: Exclude<Step, 'no-answer'>): Response {
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
  /** Ends each request held by a `'no-answer'` step. */
  readonly #held = new Set<() => void>();

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

  /** Answers every request a `'no-answer'` step still holds (with a 200), so none outlives its test. */
  release(): void {
    for (const end of [...this.#held]) end();
  }

  reset(): void {
    this.release();
    this.#routes.clear();
  }

  #noAnswer(signal: AbortSignal): Promise<Response> {
    return new Promise((resolve) => {
      const end = (response: Response) => {
        this.#held.delete(release);
        signal.removeEventListener('abort', abort);
        resolve(response);
      };
      const release = () => end(answer(200));
      const abort = () => end(answer('network-error'));
      this.#held.add(release);
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort);
    });
  }

  /** The MSW handler for every request below `base` (an absolute URL without a trailing slash). */
  handler(base: string): HttpHandler {
    const prefix = new URL(base).pathname.replace(/\/$/, '');
    return http.all(`${base}/*`, async ({ request }) => {
      const path = new URL(request.url).pathname.slice(prefix.length);
      const route = this.#routes.get(path);
      if (!route) return HttpResponse.text(`no script for ${path}`, { status: 599 });
      route.hits.push(await this.#record(request));
      const step = route.steps[Math.min(route.hits.length, route.steps.length) - 1] as Step;
      return step === 'no-answer' ? this.#noAnswer(request.signal) : answer(step);
    });
  }
}
