import type { Backoff } from '../../backoff.js';
import { generateIdempotencyKey } from '../../decide/idempotency.js';
import type { FetchInput, FetchLike } from '../../fetch.js';
import { browserNetworkStatus } from '../../run/offline.js';
import { Outbox, type OutboxOptions, type OutboxSend, type QueuedReason } from './outbox.js';

/** A fetch whose keyed writes that cannot be completed now wait in an outbox; `outbox` lists, replays and drops them. */
export type FetchWithOutbox = ((input: FetchInput, init?: RequestInit) => Promise<Response>) & {
  readonly outbox: Outbox;
};

const urlOf = (input: FetchInput): string =>
  typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;

/**
 * The headers fetch will send (init's replace the Request's). A Request's are copied one by one: `new Headers()`
 * of another realm's Headers (a Request made where MSW or a polyfill installed its own classes) loses some.
 */
function headersOf(init: RequestInit | undefined, request: Request | undefined): Headers {
  if (init?.headers !== undefined || request === undefined) return new Headers(init?.headers);
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    headers.append(name, value);
  });
  return headers;
}

/**
 * Wraps a fetch (best: a `withBackoff` one, whose policy the writes and their replays go through) with a durable
 * outbox. A write (any method but GET, HEAD and OPTIONS) that carries an Idempotency-Key and cannot be completed
 * now (the device is offline, the network failed, or it ended with a status in `queueStatuses`) is written to the
 * store, and the call rejects with a `QueuedError`. A keyless write is never queued. Entries are replayed with the
 * same key at start-up, when the device is back online and on `outbox.retry()`.
 */
export function withOutbox(
  fetchFn: FetchLike & { backoff?: Backoff },
  options: OutboxOptions,
): FetchWithOutbox {
  if (typeof fetchFn !== 'function') {
    throw new TypeError(
      `Expected \`fetch\` to be a function (best: one made by withBackoff), got ${fetchFn === null ? 'null' : typeof fetchFn}.`,
    );
  }
  const policy = fetchFn.backoff?.options;
  const keyHeader = policy?.idempotencyKeyHeader ?? 'Idempotency-Key';
  const send: FetchLike = (input, init) => fetchFn(input, init);

  const replay: OutboxSend = async (entry, body) => {
    const response = await send(entry.url, {
      method: entry.method,
      headers: entry.headers,
      body: body ?? null,
    });
    return { status: response.status, response };
  };
  const outbox = new Outbox(options, replay, {
    network: policy === undefined ? browserNetworkStatus() : policy.network,
    now: policy?.now,
    timers: policy?.timers,
  });

  const call = async (input: FetchInput, init?: RequestInit): Promise<Response> => {
    const request = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    if (!outbox.keeps(method)) return send(input, init);
    const headers = headersOf(init, request);
    // A blank value is no key: a server cannot deduplicate on it (the policy generates one in its place).
    let key = headers.get(keyHeader)?.trim() || null;
    // A key the policy would generate is made here, so the outbox knows the key the server saw.
    const auto = policy?.idempotencyKey;
    if (key === null && auto !== undefined && auto !== false && !policy?.methods.has(method)) {
      key = generateIdempotencyKey(auto);
      headers.set(keyHeader, key);
      init = { ...init, headers };
    }
    if (key === null) return send(input, init);

    const url = urlOf(input);
    const firstSent = outbox.now();
    // A Request's body is read by the send: a copy is kept in case it must be queued.
    const kept = init?.body === undefined && request?.body ? request.clone() : undefined;
    const queue = async (reason: QueuedReason, cause?: unknown): Promise<never> => {
      const body = init?.body ?? (kept === undefined ? undefined : await kept.blob());
      throw await outbox.queue({ key, method, url, headers, body, firstSent }, reason, cause);
    };

    if (outbox.offline()) return queue('offline');
    if (await outbox.waiting(outbox.groupOf(method, url))) return queue('behind');
    let response: Response;
    try {
      response = await send(input, init);
    } catch (error) {
      if (!outbox.queuesError(error, init?.signal ?? request?.signal)) throw error;
      return queue('failed', error);
    }
    if (!outbox.queuesStatus(response.status)) return response;
    response.body?.cancel().catch(() => {});
    return queue('failed', response);
  };
  return Object.assign(call, { outbox });
}
