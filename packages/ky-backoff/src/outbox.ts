// `ky-backoff/outbox`: keyed writes that the retries could not complete wait in backoff-core's outbox. A separate
// entry, so an app that never imports it carries none of the outbox.
import { replayableBody } from 'backoff-core/adapter';
import { Outbox, type OutboxOptions, type QueuedReason } from 'backoff-core/outbox';

export {
  MemoryOutboxStore,
  type OutboxEntry,
  type OutboxEvent,
  type OutboxOptions,
  type OutboxReport,
  type OutboxStore,
  QueuedError,
} from 'backoff-core/outbox';

type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;
type Options = Record<string, unknown> & { fetch?: Fetch; method?: string; body?: unknown };
type KyCall = (input: unknown, options?: Options) => Promise<Response> & { json?: unknown };

const SHORTCUTS = new Set(['get', 'post', 'put', 'patch', 'head', 'delete', 'query']);

/** The request ky built, caught before it was sent: its URL and headers as ky and its hooks made them. */
class Captured extends Error {
  readonly request: Request;
  constructor(request: Request) {
    super('captured');
    this.request = request;
  }
}

function capturedIn(error: unknown): Request | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    if (current instanceof Captured) return current.request;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A ky instance with an outbox: `api.outbox` lists, replays and drops what was queued. */
export type WithOutbox<I> = I & { readonly outbox: Outbox };

/**
 * Adds an outbox to an instance made by `kyBackoff`: a write (any method but GET, HEAD and OPTIONS) with an
 * Idempotency-Key that its retries could not complete (offline, a network failure, a status in `queueStatuses`)
 * is written to `options.store`, and the call rejects with a `QueuedError`. Replays go through the same instance
 * (its hooks, its policy) with the same key. Returns a new instance; `api.outbox` is the outbox (an instance
 * `api.extend()` makes has none: add it to that one). The key is read from the `Idempotency-Key` header.
 */
export function kyOutbox<I>(instance: I, options: OutboxOptions): WithOutbox<I> {
  if (typeof instance !== 'function') {
    throw new TypeError(
      'Expected `instance` to be a ky instance made by kyBackoff: `kyOutbox(kyBackoff(ky), { store })`.',
    );
  }
  const ky = instance as unknown as KyCall;
  const outbox = new Outbox(options, async (entry, body) => {
    try {
      // A URL, not a string: ky adds the instance's prefix to a string only, and the entry's URL is whole.
      const response = await ky(new URL(entry.url), {
        method: entry.method,
        headers: entry.headers,
        body: body ?? undefined,
        throwHttpErrors: false,
      });
      return { status: response.status, response };
    } catch (error) {
      return { error };
    }
  });

  const call = async (input: unknown, given: Options = {}, shortcut?: string): Promise<Response> => {
    const method = (shortcut ?? given.method ?? 'get').toUpperCase();
    if (!outbox.keeps(method)) return ky(input, { ...given, method });
    const own = given.fetch;
    const options: Options = { ...given, method };
    const firstSent = outbox.now();
    // A stream is sent as it is and refused at queue time: ky's Request copy of it is not the caller's to keep.
    const oneShot = !replayableBody(given.body);
    const queue = async (request: Request, reason: QueuedReason, cause?: unknown): Promise<never> => {
      const key = request.headers.get('idempotency-key') ?? '';
      const body = oneShot ? given.body : request.body === null ? undefined : await request.blob();
      throw await outbox.queue(
        { key, method, url: request.url, headers: request.headers, body, firstSent },
        reason,
        cause,
      );
    };

    // Offline, or writes waiting: the request ky would send is built (its hooks run once) and not sent.
    if (outbox.offline() || (await outbox.list()).length > 0) {
      const capture: Fetch = (request) => Promise.reject(new Captured(request.clone()));
      const request = await ky(input, { ...options, fetch: capture, backoff: false, retry: 0 }).then(
        () => undefined,
        capturedIn,
      );
      if (request?.headers.get('idempotency-key')) {
        if (outbox.offline()) return queue(request, 'offline');
        if (await outbox.waiting(outbox.groupOf(method, request.url))) return queue(request, 'behind');
      }
    }

    // The last attempt's request, as it went (with the key a policy generated), kept in case it must be queued.
    let last: Request | undefined;
    const recording: Fetch = (request, init) => {
      last = request.clone();
      return (own ?? globalThis.fetch)(request, init);
    };
    try {
      const response = await ky(input, { ...options, fetch: recording });
      return response;
    } catch (error) {
      const status = (error as { response?: { status?: unknown } } | null)?.response?.status;
      const keyed = last?.headers.get('idempotency-key');
      if (last === undefined || !keyed) throw error;
      if (typeof status === 'number') {
        if (outbox.queuesStatus(status)) return queue(last, 'failed', error);
        throw error;
      }
      if (!outbox.queuesError(error, given.signal as AbortSignal | undefined)) throw error;
      return queue(last, 'failed', error);
    }
  };

  /** ky's promise: the call, with its body shortcuts (`await api.post(url, options).json()`). */
  const answer = (promise: Promise<Response>) =>
    Object.assign(promise, {
      json: () => promise.then((response) => (response.status === 204 ? '' : response.json())),
      text: () => promise.then((response) => response.text()),
      blob: () => promise.then((response) => response.blob()),
      arrayBuffer: () => promise.then((response) => response.arrayBuffer()),
      formData: () => promise.then((response) => response.formData()),
    });

  const shortcuts = new Map<string, (input: unknown, options?: Options) => Promise<Response>>();
  return new Proxy(instance as unknown as object, {
    apply: (_target, _this, [input, options]) => answer(call(input, options)),
    get: (target, key, receiver) => {
      if (key === 'outbox') return outbox;
      const value = Reflect.get(target, key, receiver);
      if (typeof key === 'string' && typeof value === 'function' && SHORTCUTS.has(key)) {
        let shortcut = shortcuts.get(key);
        if (shortcut === undefined) {
          shortcut = (input, options) => answer(call(input, options, key));
          shortcuts.set(key, shortcut);
        }
        return shortcut;
      }
      return value;
    },
  }) as WithOutbox<I>;
}
