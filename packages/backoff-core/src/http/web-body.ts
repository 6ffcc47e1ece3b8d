import { headerGetter } from './headers.js';
import type { ResponseBody } from './response-body.js';

/**
 * A fetch `Response`'s body as the runner resumes it (`Client.body`). The response the caller gets keeps the
 * original's status, headers, `url`, `redirected` and `type` (`new Response()` would set the last three afresh).
 */
export function webResponseBody(response: Response): ResponseBody<Response> {
  return {
    status: response.status,
    header: headerGetter(response.headers),
    stream: response.body,
    url: response.url || undefined,
    with: (stream) => {
      const resumed = new Response(stream as ReadableStream<Uint8Array>, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
      for (const key of ['url', 'redirected', 'type'] as const) {
        Object.defineProperty(resumed, key, { value: response[key], configurable: true });
      }
      return resumed;
    },
  };
}
