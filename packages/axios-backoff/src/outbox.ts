// `axios-backoff/outbox`: keyed writes that the retries could not complete wait in backoff-core's outbox. A separate
// entry, so an app that never imports it carries none of the outbox.
import type {
  AxiosAdapter,
  AxiosError,
  AxiosInstance,
  AxiosResponse,
  InternalAxiosRequestConfig,
} from 'axios';
import { generateIdempotencyKey } from 'backoff-core/adapter';
import { Outbox, type OutboxOptions, type QueuedReason } from 'backoff-core/outbox';
import type { Installation } from './retry-adapter.js';

export {
  MemoryOutboxStore,
  type OutboxEntry,
  type OutboxEvent,
  type OutboxOptions,
  type OutboxReport,
  type OutboxStore,
  QueuedError,
} from 'backoff-core/outbox';

// A string key: axios's mergeConfig keeps a config's own string keys, not its symbols.
const REPLAY = 'backoffOutboxReplay';

/**
 * Adds an outbox to an axios instance that `axiosBackoff` is installed on: a write (any method but GET, HEAD and
 * OPTIONS) with an Idempotency-Key that its retries could not complete (offline, a network failure, a status in
 * `queueStatuses`) is written to `options.store`, and the request rejects with a `QueuedError`. Replays go through
 * the same instance (its interceptors, its policy) with the same key. Returns the outbox: `on`, `list`, `retry`,
 * `drop`, `close`.
 */
export function axiosOutbox(instance: AxiosInstance, options: OutboxOptions): Outbox {
  const installation = (instance as unknown as Record<symbol, Installation | undefined>)[
    Symbol.for('axios-backoff.installed')
  ];
  if (installation === undefined || !installation.active) {
    throw new Error(
      'axiosOutbox needs axiosBackoff on this instance: call `axiosBackoff(instance, options)` first, then `axiosOutbox(instance, { store })`.',
    );
  }
  if (installation.wrap !== undefined) {
    throw new Error('axiosOutbox is already installed on this axios instance: use the outbox it returned.');
  }
  const policy = installation.policy.options;
  const outbox = new Outbox(
    options,
    async (entry, body) => {
      try {
        const config = {
          method: entry.method,
          url: entry.url,
          headers: { ...entry.headers },
          data: body instanceof Uint8Array ? body.buffer : body,
          // The body is kept as it was sent: no transform again.
          transformRequest: [(data: unknown) => data],
          [REPLAY]: true,
        };
        const response = await instance.request(config);
        return { status: response.status, response };
      } catch (error) {
        const response = (error as Partial<AxiosError> | null)?.response;
        return response === undefined ? { error } : { status: response.status, response };
      }
    },
    { network: policy.network, now: policy.now, timers: policy.timers },
  );

  installation.wrap =
    (retrying: AxiosAdapter): AxiosAdapter =>
    async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
      const method = (config.method ?? 'get').toUpperCase();
      if ((config as unknown as Record<string, unknown>)[REPLAY] === true || !outbox.keeps(method)) {
        return retrying(config);
      }
      // The key as axios will send it: a blank one is none, and a header set to `false` is not sent at all.
      const sent = () => {
        const value = config.headers.get(policy.idempotencyKeyHeader);
        return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
      };
      // A key the policy would generate is made here, so the outbox knows the key the server saw.
      const auto = policy.idempotencyKey;
      if (sent() === undefined && auto !== false && !policy.methods.has(method)) {
        config.headers.set(policy.idempotencyKeyHeader, generateIdempotencyKey(auto));
      }
      const key = sent();
      if (key === undefined) return retrying(config);
      const write = {
        key,
        method,
        url: instance.getUri(config),
        headers: Object.entries(config.headers.toJSON() as Record<string, unknown>)
          .filter(([, value]) => typeof value === 'string' || typeof value === 'number')
          .map(([name, value]): [string, string] => [name, String(value)]),
        body: config.data,
        firstSent: outbox.now(),
      };
      const queue = async (reason: QueuedReason, cause?: unknown): Promise<never> => {
        throw await outbox.queue(write, reason, cause);
      };
      if (outbox.offline()) return queue('offline');
      if (await outbox.waiting(outbox.groupOf(method, write.url))) return queue('behind');
      try {
        return await retrying(config);
      } catch (error) {
        const response = (error as Partial<AxiosError> | null)?.response;
        if (response !== undefined) {
          if (outbox.queuesStatus(response.status)) return queue('failed', error);
          throw error;
        }
        if (!outbox.queuesError(error, config.signal as AbortSignal | undefined)) throw error;
        return queue('failed', error);
      }
    };
  return outbox;
}
