import type { OutboxEntry, OutboxStore } from './entry.js';

/** What the Web Locks API looks like, as far as the store uses it. */
interface Locks {
  request(
    name: string,
    options: { ifAvailable: boolean },
    callback: (lock: unknown) => Promise<boolean>,
  ): Promise<boolean>;
}

const ENTRIES = 'entries';

const done = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

const committed = (transaction: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error ?? new Error('The outbox transaction was aborted.'));
  });

/**
 * An outbox store in IndexedDB, for pages and workers: entries outlive a reload, a closed tab and a browser
 * restart, and every tab of the origin sees the same ones. A replay holds a Web Lock per group (`navigator.locks`),
 * so two tabs never replay one entry at once; where Web Locks are missing, the lock is this page's alone.
 */
export class IndexedDbOutboxStore implements OutboxStore {
  readonly name: string;
  #db: Promise<IDBDatabase> | undefined;
  readonly #held = new Set<string>();

  /** `name`: the database's name; pages that share it share the outbox. */
  constructor(name = 'backoff-outbox') {
    if (typeof name !== 'string' || name === '') {
      throw new TypeError(
        `Expected \`name\` to be a non-empty string (the IndexedDB database's name), got ${typeof name === 'string' ? '""' : typeof name}.`,
      );
    }
    this.name = name;
  }

  #open(): Promise<IDBDatabase> {
    this.#db ??= new Promise<IDBDatabase>((resolve, reject) => {
      if (typeof indexedDB === 'undefined') {
        reject(
          new Error(
            'IndexedDbOutboxStore needs IndexedDB: in Node, use FileOutboxStore from backoff-core/outbox/node.',
          ),
        );
        return;
      }
      const request = indexedDB.open(this.name, 1);
      request.onupgradeneeded = () => {
        request.result.createObjectStore(ENTRIES, { keyPath: 'id' });
      };
      request.onsuccess = () => {
        const db = request.result;
        // Another tab upgrading the database: this one lets go, and opens again at its next use.
        db.onversionchange = () => {
          db.close();
          this.#db = undefined;
        };
        resolve(db);
      };
      request.onerror = () => reject(request.error);
    });
    return this.#db;
  }

  async add(entry: OutboxEntry): Promise<void> {
    const db = await this.#open();
    // Strict: the entry is on disk when the caller is told it was queued.
    const transaction = db.transaction(ENTRIES, 'readwrite', { durability: 'strict' });
    transaction.objectStore(ENTRIES).put(entry);
    await committed(transaction);
  }

  async list(): Promise<OutboxEntry[]> {
    const db = await this.#open();
    // Sorted by the key, the entry's id.
    return done(
      db.transaction(ENTRIES, 'readonly').objectStore(ENTRIES).getAll() as IDBRequest<OutboxEntry[]>,
    );
  }

  async remove(id: string): Promise<void> {
    const db = await this.#open();
    const transaction = db.transaction(ENTRIES, 'readwrite', { durability: 'strict' });
    transaction.objectStore(ENTRIES).delete(id);
    await committed(transaction);
  }

  withLock(name: string, task: () => Promise<void>): Promise<boolean> {
    const locks = (globalThis as { navigator?: { locks?: Locks } }).navigator?.locks;
    if (locks !== undefined) {
      return locks.request(`${this.name}:${name}`, { ifAvailable: true }, async (lock) => {
        if (lock === null) return false;
        await task();
        return true;
      });
    }
    if (this.#held.has(name)) return Promise.resolve(false);
    this.#held.add(name);
    return task().then(
      () => {
        this.#held.delete(name);
        return true;
      },
      (error: unknown) => {
        this.#held.delete(name);
        throw error;
      },
    );
  }
}
