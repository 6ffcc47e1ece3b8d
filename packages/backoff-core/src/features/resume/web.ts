import { type HeaderGetter, headerGetter } from '../../http/headers.js';
import { webResponseBody } from '../../http/web-body.js';
import { type Part, type ResumeCall, resumable, Splicer } from './splicer.js';

/** A web stream body as the splicer reads it. */
export function webStreamPart(
  status: number,
  header: HeaderGetter,
  body: ReadableStream<Uint8Array> | null,
): Part {
  // Taken at once: a client that lets go of the response it handed over (ky, after its afterResponse hooks)
  // cannot cancel a locked body from under the caller's.
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined = body?.locked
    ? undefined
    : body?.getReader();
  return {
    status,
    header,
    read: async () => {
      if (body === null) return undefined;
      reader ??= body.getReader();
      const { done, value } = await reader.read();
      return done ? undefined : value;
    },
    cancel: (reason) => {
      try {
        (reader === undefined ? body?.cancel(reason) : reader.cancel(reason))?.catch(() => {});
      } catch {
        // A body another reader holds is not ours to cancel.
      }
    },
  };
}

/** A fetch `Response`'s body as the splicer reads it. */
const webPart = (response: Response): Part =>
  webStreamPart(response.status, headerGetter(response.headers), response.body);

/** The caller's stream over a splicer: read one chunk per chunk asked for. */
export function webStreamOf(splicer: Pick<Splicer<never>, 'next' | 'cancel'>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        const chunk = await splicer.next();
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
      cancel: (reason) => splicer.cancel(reason),
    },
    // Nothing is read ahead of the caller: the body on the wire is read as fast as the caller reads.
    { highWaterMark: 0 },
  );
}

/**
 * The caller's body of `first`: a stream that goes on across cuts (see `Splicer`), read one chunk per chunk asked
 * for (a method other than GET and HEAD fails, when cut, saying why it does not go on). `first.body` itself when it
 * is not taken over: no body, a status other than 200 and 206, a body that is no web stream (a fetch polyfill's), or
 * one already being read.
 */
export function resumeBody(first: Response, call: ResumeCall<Response>): ReadableStream<Uint8Array> | null {
  const body = first.body;
  // A body already being read (locked) is someone else's: only a fresh one is taken over.
  if (body === null || typeof body.getReader !== 'function' || body.locked || !resumable(first.status)) {
    return body;
  }
  return webStreamOf(new Splicer(webPart(first), { url: first.url || undefined, ...call }, webPart));
}

/**
 * The response the caller gets: `first` with a body that goes on across cuts, or `first` itself when its body is
 * not resumed. `new Response()` sets `url`, `redirected` and `type` afresh, so the original's are kept as own
 * properties.
 */
export function resumeResponse(first: Response, call: ResumeCall<Response>): Response {
  const body = resumeBody(first, call);
  return body === first.body || body === null ? first : (webResponseBody(first).with(body) as Response);
}
