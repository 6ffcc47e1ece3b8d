import { HttpResponse, http } from 'msw';
import { setupWorker } from 'msw/browser';

/** What the flaky endpoint does: the failures it answers first, then a 200 (or never, for 'always-503'). */
export type Scenario = '503-503-200' | '429-retry-after-200' | 'always-503' | 'ok';

export const FLAKY_URL = `${location.origin}/api/flaky`;

/** One request the endpoint answered, for the page's server log. */
export interface ServerEntry {
  readonly method: string;
  readonly status: number;
  /** ms since the call started (`performance.now()` based). */
  readonly at: number;
}

function failure(scenario: Scenario, attempt: number): Response | undefined {
  if (scenario === 'always-503') return new HttpResponse('Service Unavailable', { status: 503 });
  if (scenario === '429-retry-after-200' && attempt === 1) {
    return new HttpResponse('Too Many Requests', { status: 429, headers: { 'Retry-After': '3' } });
  }
  if (scenario === '503-503-200' && attempt <= 2)
    return new HttpResponse('Service Unavailable', { status: 503 });
  return undefined;
}

/**
 * The flaky endpoint, served by MSW's service worker (public/mockServiceWorker.js): no real server is needed.
 * `reset` starts a new call's script; `onRequest` sees every request it answers.
 */
export function flakyApi(onRequest: (entry: ServerEntry) => void) {
  let scenario: Scenario = '503-503-200';
  let attempts = 0;
  let startedAt = 0;
  const worker = setupWorker(
    http.all(FLAKY_URL, ({ request }) => {
      attempts += 1;
      const response =
        failure(scenario, attempts) ?? HttpResponse.json({ message: `Hello, on attempt ${attempts}.` });
      onRequest({ method: request.method, status: response.status, at: performance.now() - startedAt });
      return response;
    }),
  );
  return {
    start: () => worker.start({ quiet: true, onUnhandledFrame: 'bypass' }),
    reset(next: Scenario) {
      scenario = next;
      attempts = 0;
      startedAt = performance.now();
    },
  };
}
