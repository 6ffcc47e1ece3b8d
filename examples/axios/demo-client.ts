// What `pnpm demo` (examples/demo) runs for this example, on the kit's scenarios; the example itself is src/main.ts.
import { type ExampleClient, errorText } from '@backoff/example-kit';
import axios from 'axios';
import { type AxiosBackoffOptions, axiosBackoff } from 'axios-backoff';
import { getBackoffResult } from 'backoff-core';

/** An axios instance with axios-backoff as an example client. A final 503 rejects with axios's own AxiosError. */
export function axiosClient(options: AxiosBackoffOptions = {}): ExampleClient {
  const instance = axios.create();
  axiosBackoff(instance, options);
  return {
    name: 'axios + axios-backoff',
    slug: 'axios',
    async send({ method, url, headers, json, backoff }) {
      try {
        const response = await instance.request({
          method,
          url,
          data: json,
          backoff,
          ...(headers ? { headers } : {}),
        });
        return { status: response.status, error: undefined, result: getBackoffResult(response) };
      } catch (error) {
        const status = axios.isAxiosError(error) ? error.response?.status : undefined;
        return { status, error: errorText(error), result: getBackoffResult(error) };
      }
    },
  };
}
