import { fetchRequestInit, fetchResponseBody, type Settled } from '@backoff/test-utils';
import { getBackoffResult, withBackoff } from 'backoff-core';
import type { FetchLike } from 'backoff-core/adapter';
import type { FaultDriver } from '../driver.js';

/**
 * fetch with a per-attempt timeout, as a careful caller writes one: its own timer, cleared when the attempt
 * settles, aborting with a `TimeoutError` DOMException (what `AbortSignal.timeout` uses). The caller's signal
 * still aborts the attempt, with the caller's reason.
 */
export function timedFetch(ms: number): FetchLike {
  return async (input, init) => {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException(`The attempt timed out after ${ms} ms`, 'TimeoutError')),
      ms,
    );
    const outer = init?.signal;
    const onAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort, { once: true });
    try {
      return await fetch(input, { ...init, signal: controller.signal });
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  };
}

/** backoff-core's own fetch wrapper over Node's global fetch (undici). A final 503 resolves, as fetch does. */
export const withBackoffDriver: FaultDriver = {
  name: 'withBackoff(fetch)',
  rejectsOnHttpError: false,
  bodyInAttempt: false,
  create(baseUrl, options, transport = {}) {
    const fetchWithBackoff = withBackoff(
      transport.timeout === undefined ? undefined : timedFetch(transport.timeout),
      options,
    );
    return {
      async send(request): Promise<Settled> {
        const { path } = request;
        const init = fetchRequestInit(request);
        let response: Response;
        try {
          response = await fetchWithBackoff(`${baseUrl}${path}`, init);
        } catch (error) {
          return { ok: false, error, status: undefined, result: getBackoffResult(error) };
        }
        const result = getBackoffResult(response);
        try {
          await response.text();
        } catch (error) {
          // The body is read after the call resolved: its failure is the caller's, with the call's result.
          return { ok: false, error, status: response.status, result };
        }
        return { ok: true, status: response.status, result };
      },
      close: () => {},
    };
  },
  readBody: fetchResponseBody,
  errorKind(error) {
    if (error instanceof DOMException && error.name === 'AbortError') return 'abort';
    if (error instanceof DOMException && error.name === 'TimeoutError') return 'timeout';
    if (error instanceof TypeError) return 'network';
    return 'other';
  },
  isOwnError: (error) => error instanceof TypeError || error instanceof DOMException,
};
