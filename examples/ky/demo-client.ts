// What `pnpm demo` (examples/demo) runs for this example, on the kit's scenarios; the example itself is src/main.ts.
import { type ExampleClient, errorText } from '@backoff/example-kit';
import { getBackoffResult } from 'backoff-core';
import ky, { isHTTPError } from 'ky';
import { type KyBackoffOptions, kyBackoff } from 'ky-backoff';

/** ky with ky-backoff as an example client. A final 503 rejects with ky's own HTTPError. */
export function kyClient(options: KyBackoffOptions = {}): ExampleClient {
  const api = kyBackoff(ky, options);
  return {
    name: 'ky + ky-backoff',
    slug: 'ky',
    async send({ method, url, headers, json, backoff }) {
      try {
        const response = await api(url, { method, json, backoff, ...(headers ? { headers } : {}) });
        await response.text();
        return { status: response.status, error: undefined, result: getBackoffResult(response) };
      } catch (error) {
        const status = isHTTPError(error) ? error.response.status : undefined;
        return { status, error: errorText(error), result: getBackoffResult(error) };
      }
    },
  };
}
