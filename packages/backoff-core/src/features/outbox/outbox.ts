import { idempotencyKeyProblem } from '../../decide/idempotency.js';
import { classifyError } from '../../http/outcome.js';
import { browserNetworkStatus, type NetworkStatus } from '../../run/offline.js';
import { defaultTimers, type TimerProvider } from '../../run/sleep.js';
import { bodyKind, decodeBody, encodeBody, type OutboxEntry, type OutboxStore } from './entry.js';

/** What happened to a write in the outbox, as `outbox.on(listener)` hears it. */
export type OutboxEvent =
  | {
      readonly type: 'queued';
      readonly entry: OutboxEntry;
      /**
       * `'offline'`: the device was offline, nothing was sent; `'failed'`: it was sent and failed (the network,
       * or a status in `queueStatuses` after the policy's retries); `'behind'`: earlier writes of its group were
       * still waiting, so it waits behind them to keep their order.
       */
      readonly reason: QueuedReason;
    }
  | {
      readonly type: 'replayed';
      readonly entry: OutboxEntry;
      readonly status: number;
      /** The client's own response (fetch's `Response`, the `AxiosResponse`). */
      readonly response: unknown;
    }
  | {
      readonly type: 'failed';
      readonly entry: OutboxEntry;
      readonly status: number;
      readonly response: unknown;
    }
  | { readonly type: 'expired'; readonly entry: OutboxEntry; readonly age: number }
  /** The store failed during a replay this outbox started by itself (at start, when back online). */
  | { readonly type: 'error'; readonly error: unknown };

/** Why a write was queued rather than sent now. */
export type QueuedReason = 'offline' | 'failed' | 'behind';

/** Options of an outbox, the same for `withOutbox`, axios and ky. */
export interface OutboxOptions {
  /** Where entries are kept: `new MemoryOutboxStore()`, the Node file store, IndexedDB, or your own. */
  store: OutboxStore;
  /**
   * How long after its first send a write may still be replayed, in ms: the server's key retention (24 hours at
   * Stripe). An older entry is dropped and reported as `'expired'`, never sent: the server no longer knows its key.
   * @default 86_400_000 (24 hours)
   */
  maxAge?: number | undefined;
  /**
   * Headers never written to the store (case-insensitive). Your `beforeAttempt` sets them again on each send,
   * replays included, from the credentials current then.
   * @default ['authorization', 'cookie', 'proxy-authorization']
   */
  secretHeaders?: readonly string[] | undefined;
  /**
   * The group of a write: a group's writes are replayed one at a time, in the order they were queued.
   * @default the URL's origin
   */
  group?: ((request: { readonly method: string; readonly url: string }) => string) | undefined;
  /**
   * Final statuses that queue a keyed write (the policy's retries are already spent, or its deadline passed).
   * A replay answered with one of them stays queued; any other status of 400 or above ends the entry as `'failed'`.
   * @default [408, 425, 429, 502, 503, 504]
   */
  queueStatuses?: readonly number[] | undefined;
  /**
   * Replay what the store holds as soon as the outbox is made (at start-up).
   * @default true
   */
  replayOnStart?: boolean | undefined;
  /**
   * The device's online state: offline, a keyed write is queued without being sent; back online, the outbox
   * replays. `false`: never treat the device as offline.
   * @default the policy's `network`, or the browser's; none in Node
   */
  network?: NetworkStatus | false | undefined;
  /** @default the policy's `now`, or Date.now */
  now?: (() => number) | undefined;
  /**
   * Also replay every this many ms while entries wait: where no `online` event says the network is back (Node), or
   * for writes the server refused with a 503 a while ago. The timer does not keep a Node process alive.
   * @default undefined (replays at start-up, back online, and on `retry()` only)
   */
  retryEvery?: number | undefined;
  /** @default the policy's `timers`, or the global setTimeout */
  timers?: TimerProvider | undefined;
}

/** What one replay pass did. */
export interface OutboxReport {
  readonly replayed: number;
  readonly failed: number;
  readonly expired: number;
  /** Entries left in the store after the pass (kept by a failure, or a group another tab or process replays). */
  readonly remaining: number;
}

/** How one replay's send ended: a status, or an error (the network). */
export type OutboxAnswer =
  | { readonly status: number; readonly response: unknown }
  | { readonly error: unknown };

/** A write as a client hands it to the outbox to queue. */
export interface QueuedWrite {
  readonly key: string;
  readonly method: string;
  readonly url: string;
  /** The headers as they would be sent; the secret ones are left out of the store. */
  readonly headers: Iterable<[string, string]>;
  /** The body as the client would send it: a string, bytes, a Blob or URLSearchParams can be kept, a stream not. */
  readonly body: unknown;
  readonly firstSent: number;
}

/** One replay as a client sends it: the entry, and its body as a string or bytes. */
export type OutboxSend = (
  entry: OutboxEntry,
  body: string | Uint8Array<ArrayBuffer> | undefined,
) => Promise<OutboxAnswer>;

/**
 * What the caller of a keyed write gets when it was queued instead of sent: `entry` is what the outbox keeps
 * (its `key` and `id`), `reason` why, `cause` the failure that queued it. Show "will be sent" and listen for
 * `'replayed'`.
 */
export class QueuedError extends Error {
  override readonly name = 'QueuedError';
  readonly entry: OutboxEntry;
  readonly reason: QueuedReason;

  constructor(entry: OutboxEntry, reason: QueuedReason, cause?: unknown) {
    const why =
      reason === 'offline'
        ? 'the device is offline'
        : reason === 'behind'
          ? 'earlier writes to the same group are waiting'
          : 'it could not be completed now';
    super(
      `${entry.method} ${entry.url} was queued in the outbox (${why}); it is sent again with the same key.`,
      {
        cause,
      },
    );
    this.entry = entry;
    this.reason = reason;
  }
}

const DAY = 86_400_000;
const DEFAULT_SECRETS = ['authorization', 'cookie', 'proxy-authorization'];
const DEFAULT_QUEUE_STATUSES = [408, 425, 429, 502, 503, 504];

const originOf = ({ url }: { url: string }): string => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

function checkOptions(options: OutboxOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`Expected outbox options with a \`store\`, got ${String(options)}.`);
  }
  const { store, maxAge } = options;
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof store.add !== 'function' ||
    typeof store.list !== 'function' ||
    typeof store.remove !== 'function' ||
    typeof store.withLock !== 'function'
  ) {
    throw new TypeError(
      'Expected `store` to be an outbox store (add, list, remove, withLock): pass `new MemoryOutboxStore()` or a durable one.',
    );
  }
  const { group, secretHeaders, queueStatuses, retryEvery } = options;
  if (group !== undefined && typeof group !== 'function') {
    throw new TypeError(
      `Expected \`group\` to be a function of the request (\`({ method, url }) => string\`), got ${typeof group}.`,
    );
  }
  if (
    secretHeaders !== undefined &&
    !(Array.isArray(secretHeaders) && secretHeaders.every((name) => typeof name === 'string'))
  ) {
    throw new TypeError(
      `Expected \`secretHeaders\` to be a list of header names, got ${String(secretHeaders)}.`,
    );
  }
  if (
    queueStatuses !== undefined &&
    !(
      Array.isArray(queueStatuses) &&
      queueStatuses.every((status) => Number.isInteger(status) && status >= 400 && status <= 599)
    )
  ) {
    throw new RangeError(
      `Expected \`queueStatuses\` to be a list of statuses from 400 to 599, got ${String(queueStatuses)}.`,
    );
  }
  if (
    retryEvery !== undefined &&
    !(typeof retryEvery === 'number' && retryEvery > 0 && Number.isFinite(retryEvery))
  ) {
    throw new RangeError(`Expected \`retryEvery\` to be a number of ms above 0, got ${String(retryEvery)}.`);
  }
  if (maxAge !== undefined && !(typeof maxAge === 'number' && maxAge > 0)) {
    throw new RangeError(
      `Expected \`maxAge\` to be a number of ms above 0 (the server's key retention), got ${String(maxAge)}.`,
    );
  }
}

// Reads: nothing to keep for later.
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
// Failures after which the write may not have been applied and can be sent again with its key.
const QUEUED_KINDS = new Set(['network', 'not-sent', 'timeout']);

/**
 * The outbox's rules, shared by every client: what is queued, and how entries are replayed. A client gives it
 * the send of one replay (through its own policy) and asks it to queue what it could not complete.
 */
export class Outbox {
  readonly store: OutboxStore;
  readonly #maxAge: number;
  readonly #secrets: Set<string>;
  readonly #group: (request: { method: string; url: string }) => string;
  readonly #queueStatuses: Set<number>;
  readonly #network: NetworkStatus | undefined;
  readonly #now: () => number;
  readonly #send: OutboxSend;
  readonly #listeners = new Set<(event: OutboxEvent) => void>();
  readonly #instance = Math.random().toString(36).slice(2, 10).padEnd(8, '0');
  #counter = 0;
  #last = 0;
  #closed = false;
  #current: Promise<OutboxReport> | undefined;
  #next: Promise<OutboxReport> | undefined;
  readonly #removeOnline: (() => void) | undefined;
  readonly #timers: TimerProvider;
  readonly #every: number | undefined;
  #timer: unknown;

  constructor(
    options: OutboxOptions,
    send: OutboxSend,
    defaults: {
      network?: NetworkStatus | undefined;
      now?: (() => number) | undefined;
      timers?: TimerProvider | undefined;
    } = {},
  ) {
    checkOptions(options);
    this.store = options.store;
    this.#maxAge = options.maxAge ?? DAY;
    this.#secrets = new Set((options.secretHeaders ?? DEFAULT_SECRETS).map((name) => name.toLowerCase()));
    this.#group = options.group ?? originOf;
    this.#queueStatuses = new Set(options.queueStatuses ?? DEFAULT_QUEUE_STATUSES);
    // The client's policy's, when it has one (its `network: false` too); else the browser's.
    this.#network =
      options.network === false
        ? undefined
        : (options.network ?? ('network' in defaults ? defaults.network : browserNetworkStatus()));
    this.#now = options.now ?? defaults.now ?? Date.now;
    this.#send = send;
    this.#timers = options.timers ?? defaults.timers ?? defaultTimers;
    this.#every = options.retryEvery;
    this.#removeOnline = this.#network?.onOnline(() => this.#background());
    this.#tick();
    if (options.replayOnStart !== false) queueMicrotask(() => this.#background());
  }

  /** Listens to what happens to queued writes; returns a function that stops listening. */
  on(listener: (event: OutboxEvent) => void): () => void {
    const own = (event: OutboxEvent) => listener(event);
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  /** The outbox's clock (ms since the epoch): a write's first send is stamped with it. */
  now(): number {
    return this.#now();
  }

  /** Whether the device is offline now (a keyed write is then queued unsent). */
  offline(): boolean {
    return this.#network !== undefined && !this.#network.isOnline();
  }

  /** Whether a request of `method` may be queued: a write; a read has nothing to keep for later. */
  keeps(method: string): boolean {
    return !READS.has(method.toUpperCase());
  }

  /**
   * Whether the error a write's retries ended with queues it: the network failed, it was never sent, or it timed
   * out; not the caller's own abort, nor an error of the request itself.
   */
  queuesError(error: unknown, signal?: AbortSignal | null): boolean {
    return !signal?.aborted && QUEUED_KINDS.has(classifyError(error));
  }

  /** Whether a final status queues a write (and keeps a replayed one). */
  queuesStatus(status: number): boolean {
    return this.#queueStatuses.has(status);
  }

  /** The group of a write. */
  groupOf(method: string, url: string): string {
    return this.#group({ method, url });
  }

  /** Whether writes of `group` wait in the store: a new one then queues behind them. */
  async waiting(group: string): Promise<boolean> {
    return (await this.store.list()).some((entry) => entry.group === group);
  }

  /**
   * Writes `write` to the store, tells the listeners and answers the `QueuedError` the client rejects with. A body
   * that cannot be kept (a stream, FormData) is refused: the answer is then a TypeError that says how to pass it.
   */
  async queue(write: QueuedWrite, reason: QueuedReason, cause?: unknown): Promise<QueuedError | TypeError> {
    // A key that cannot travel would fail every replay, and hold back its group until it expired.
    const problem = idempotencyKeyProblem(write.key);
    if (problem !== undefined) {
      return new TypeError(
        `${write.method} ${write.url} cannot be queued in the outbox: its Idempotency-Key ${JSON.stringify(write.key)} cannot be sent as it is: ${problem}.`,
        { cause },
      );
    }
    const encoded = await encodeBody(write.body);
    if (encoded === undefined) {
      return new TypeError(
        `${write.method} ${write.url} could not be sent now and cannot be queued in the outbox: its body is ${bodyKind(write.body)}, which is read once. Pass the body as a string, bytes, a Blob or URLSearchParams to have it kept.`,
        { cause },
      );
    }
    const queuedAt = this.#now();
    // Ids sort in the order writes were queued here, even if the clock steps back.
    this.#last = Math.max(this.#last, queuedAt);
    this.#counter += 1;
    const headers: Record<string, string> = {};
    for (const [name, value] of write.headers) {
      if (!this.#secrets.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    if (encoded.contentType !== undefined) headers['content-type'] ??= encoded.contentType;
    const entry: OutboxEntry = {
      id: `${String(this.#last).padStart(15, '0')}-${String(this.#counter).padStart(9, '0')}-${this.#instance}`,
      key: write.key,
      group: this.groupOf(write.method, write.url),
      method: write.method,
      url: write.url,
      headers,
      body: encoded.body,
      firstSent: write.firstSent,
      queuedAt,
    };
    await this.store.add(entry);
    this.#emit({ type: 'queued', entry, reason });
    // Queued behind others while online: the replay running now may have missed it.
    if (reason === 'behind' && !this.offline()) this.#background();
    return new QueuedError(entry, reason, cause);
  }

  /** The entries waiting, oldest first. */
  async list(): Promise<OutboxEntry[]> {
    return [...(await this.store.list())];
  }

  /** Removes an entry unsent (the user cancelled it). Resolves `true` if it was there. */
  async drop(id: string): Promise<boolean> {
    const found = (await this.store.list()).some((entry) => entry.id === id);
    if (found) await this.store.remove(id);
    return found;
  }

  /**
   * Replays what the store holds now: each group in order, one entry at a time, under the group's lock. A
   * group stops at its first entry that fails again (the rest keep their order for the next replay). A call
   * made while a replay runs is answered by the pass after it, so nothing queued meanwhile is missed.
   */
  retry(): Promise<OutboxReport> {
    if (this.#next !== undefined) return this.#next;
    if (this.#current !== undefined) {
      this.#next = this.#current.then(
        () => this.#start(),
        () => this.#start(),
      );
      return this.#next;
    }
    return this.#start();
  }

  /** Stops replaying when back online; a replay under way ends after its current entry. */
  close(): void {
    this.#closed = true;
    this.#removeOnline?.();
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The `retryEvery` timer: a replay each time it fires, then the next one. */
  #tick(): void {
    if (this.#every === undefined || this.#closed) return;
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      this.#background();
      this.#tick();
    }, this.#every);
    // Node's timers would keep the process alive for a replay no one waits for.
    (this.#timer as { unref?: () => void } | undefined)?.unref?.();
  }

  #start(): Promise<OutboxReport> {
    this.#next = undefined;
    const pass = this.#pass();
    this.#current = pass;
    const clear = () => {
      if (this.#current === pass) this.#current = undefined;
    };
    pass.then(clear, clear);
    return pass;
  }

  #background(): void {
    if (this.#closed || this.offline()) return;
    this.retry().catch((error: unknown) => this.#emit({ type: 'error', error }));
  }

  async #pass(): Promise<OutboxReport> {
    const counts = { replayed: 0, failed: 0, expired: 0 };
    if (!this.#closed) {
      const groups = new Set((await this.store.list()).map((entry) => entry.group));
      await Promise.all(
        [...groups].map((group) =>
          this.store.withLock(`backoff-outbox:${group}`, () => this.#replayGroup(group, counts)),
        ),
      );
    }
    return { ...counts, remaining: (await this.store.list()).length };
  }

  async #replayGroup(group: string, counts: { replayed: number; failed: number; expired: number }) {
    // Read again under the lock: another holder may have replayed some since the pass listed them.
    const entries = (await this.store.list()).filter((entry) => entry.group === group);
    for (const entry of entries) {
      if (this.#closed) return;
      const age = this.#now() - entry.firstSent;
      if (age > this.#maxAge) {
        await this.store.remove(entry.id);
        counts.expired += 1;
        this.#emit({ type: 'expired', entry, age });
        continue;
      }
      if (this.offline()) return;
      let answer: OutboxAnswer;
      try {
        answer = await this.#send(entry, decodeBody(entry.body));
      } catch (error) {
        answer = { error };
      }
      if (!('status' in answer) || this.#queueStatuses.has(answer.status)) return;
      await this.store.remove(entry.id);
      if (answer.status < 400) {
        counts.replayed += 1;
        this.#emit({ type: 'replayed', entry, status: answer.status, response: answer.response });
      } else {
        counts.failed += 1;
        this.#emit({ type: 'failed', entry, status: answer.status, response: answer.response });
      }
    }
  }

  #emit(event: OutboxEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (error) {
        // A listener's bug must not stop the replay nor lose the entry; it is reported where the platform reports.
        const report = (globalThis as { reportError?: (error: unknown) => void }).reportError;
        if (typeof report === 'function') report(error);
      }
    }
  }
}
