import { type BackoffClientDriver, fetchRequestInit, fetchResponseBody } from '@backoff/test-utils';
import { getBackoffResult as getResult, withBackoff } from 'backoff-core';

// withBackoff resolves with a final 503 (fetch semantics) and rejects with fetch's own errors.
export const withBackoffDriver: BackoffClientDriver = {
  name: 'withBackoff(fetch)',
  rejectsOnHttpError: false,
  create(baseUrl, options) {
    const fetchWithBackoff = withBackoff(undefined, options);
    return {
      async send(request) {
        const { path } = request;
        const init = fetchRequestInit(request);
        try {
          const response = await fetchWithBackoff(`${baseUrl}${path}`, init);
          await response.text();
          return { ok: true, status: response.status, result: getResult(response) };
        } catch (error) {
          return { ok: false, error, status: undefined, result: getResult(error) };
        }
      },
    };
  },
  readBody: fetchResponseBody,
  errorKind(error) {
    if (error instanceof DOMException && error.name === 'AbortError') return 'abort';
    if (error instanceof TypeError) return 'network';
    return 'other';
  },
};
