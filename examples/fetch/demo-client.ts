// What `pnpm demo` (examples/demo) runs for this example, on the kit's scenarios; the example itself is src/main.ts.
import type { ExampleClient } from '@backoff/example-kit';
import { errorText } from '@backoff/example-kit';
import { type BackoffOptions, getBackoffResult, withBackoff } from 'backoff-core';

/** `withBackoff(fetch)` as an example client. A final 503 resolves, as fetch does. */
export function fetchClient(options: BackoffOptions = {}): ExampleClient {
  const fetchWithBackoff = withBackoff(fetch, options);
  return {
    name: 'fetch + withBackoff',
    slug: 'fetch',
    async send({ method, url, headers, json, backoff }) {
      try {
        const response = await fetchWithBackoff(url, {
          method,
          headers: { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
          backoff,
        });
        await response.text();
        return { status: response.status, error: undefined, result: getBackoffResult(response) };
      } catch (error) {
        return { status: undefined, error: errorText(error), result: getBackoffResult(error) };
      }
    },
  };
}
