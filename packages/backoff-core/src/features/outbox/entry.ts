/**
 * A request body as an outbox keeps it: text as it is, bytes as base64, so that every store (a file, IndexedDB,
 * Redis) can write it as JSON.
 */
export type OutboxBody =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'bytes'; readonly base64: string };

/** A write waiting in the outbox: what is sent again, with the same key, when it is replayed. */
export interface OutboxEntry {
  /** Unique, and in the order the writes were queued when compared as strings. */
  readonly id: string;
  /** The Idempotency-Key the write was first sent with; every replay sends it again. */
  readonly key: string;
  /** Writes of one group are replayed one at a time, in order (the URL's origin by default). */
  readonly group: string;
  readonly method: string;
  readonly url: string;
  /** The headers to send, without the secret ones (`secretHeaders`): `beforeAttempt` adds those at replay. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: OutboxBody | undefined;
  /** When the caller first sent the write (ms since the epoch): `maxAge` counts from here. */
  readonly firstSent: number;
  /** When it was written to the outbox (ms since the epoch). */
  readonly queuedAt: number;
}

/**
 * Where an outbox keeps its entries. Each method may answer now or with a Promise. `add` must have made the entry
 * durable when it resolves (the caller is then told the write was queued); `list` gives every entry, sorted by
 * `id`; `remove` of an entry already gone does nothing.
 */
export interface OutboxStore {
  add(entry: OutboxEntry): void | PromiseLike<void>;
  list(): readonly OutboxEntry[] | PromiseLike<readonly OutboxEntry[]>;
  remove(id: string): void | PromiseLike<void>;
  /**
   * Runs `task` while holding the lock `name`, unless another holder (this process, another tab, another process)
   * has it: then `task` does not run and the answer is `false`. A replay holds its group's lock, so no entry is
   * replayed twice at once.
   */
  withLock(name: string, task: () => Promise<void>): Promise<boolean>;
}

/** A store in this process's memory: for tests, and for apps that only want replay while the process lives. */
export class MemoryOutboxStore implements OutboxStore {
  readonly #entries = new Map<string, OutboxEntry>();
  readonly #locks = new Set<string>();

  add(entry: OutboxEntry): void {
    this.#entries.set(entry.id, entry);
  }

  list(): OutboxEntry[] {
    return [...this.#entries.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  remove(id: string): void {
    this.#entries.delete(id);
  }

  async withLock(name: string, task: () => Promise<void>): Promise<boolean> {
    if (this.#locks.has(name)) return false;
    this.#locks.add(name);
    try {
      await task();
      return true;
    } finally {
      this.#locks.delete(name);
    }
  }
}

const toBase64 = (bytes: Uint8Array): string => {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
};

/** The bytes or text an outbox keeps of a body. */
export function decodeBody(body: OutboxBody | undefined): string | Uint8Array<ArrayBuffer> | undefined {
  if (body === undefined) return undefined;
  if (body.type === 'text') return body.text;
  const binary = atob(body.base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * A body as an outbox keeps it, with the Content-Type fetch would have given it; `undefined` when it cannot be
 * kept (a stream, FormData, an async iterable): the caller refuses to queue it.
 */
export async function encodeBody(
  body: unknown,
): Promise<{ body: OutboxBody | undefined; contentType?: string } | undefined> {
  if (body === undefined || body === null) return { body: undefined };
  if (typeof body === 'string') return { body: { type: 'text', text: body } };
  if (typeof URLSearchParams !== 'undefined' && body instanceof URLSearchParams) {
    return {
      body: { type: 'text', text: body.toString() },
      contentType: 'application/x-www-form-urlencoded;charset=UTF-8',
    };
  }
  if (body instanceof ArrayBuffer) return { body: { type: 'bytes', base64: toBase64(new Uint8Array(body)) } };
  if (ArrayBuffer.isView(body)) {
    const view = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    return { body: { type: 'bytes', base64: toBase64(view) } };
  }
  if (typeof Blob !== 'undefined' && body instanceof Blob) {
    const bytes = new Uint8Array(await body.arrayBuffer());
    return body.type === ''
      ? { body: { type: 'bytes', base64: toBase64(bytes) } }
      : { body: { type: 'bytes', base64: toBase64(bytes) }, contentType: body.type };
  }
  return undefined;
}

/** What a body is, for an error message. */
export function bodyKind(body: unknown): string {
  if (typeof body !== 'object' || body === null) return typeof body;
  const named = (body as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof named === 'string' && named !== '' ? `a ${named}` : 'an object';
}
