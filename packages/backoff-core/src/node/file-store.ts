// `backoff-core/outbox/node`: an outbox store in a directory, for Node. Node built-ins only, and only in this entry.
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { OutboxEntry, OutboxStore } from '../features/outbox/entry.js';

const code = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

/** Whether process `pid` is alive (on this machine): signal 0 checks without sending anything. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is another user's.
    return code(error) === 'EPERM';
  }
}

/** A lock file's name for any lock name: letters kept, the rest hex, so a URL's origin is a safe file name. */
const fileName = (name: string): string =>
  name.replace(/[^a-zA-Z0-9_-]/g, (char) => `.${char.charCodeAt(0).toString(16)}`);

/**
 * An outbox store in a directory: one JSON file per entry, written to a temporary file, flushed to disk, renamed
 * into place and its directory flushed, so a write the caller was told is queued survives `kill -9` and a power
 * loss, and a crash mid-write leaves no half entry. A replay's lock is a file created exclusively, holding the
 * process id: a lock whose process is gone (killed mid-replay) is taken over. Processes sharing the directory
 * never replay one entry at once.
 */
export class FileOutboxStore implements OutboxStore {
  readonly directory: string;
  readonly #entries: string;
  readonly #temporary: string;
  readonly #locks: string;
  #ready: Promise<void> | undefined;

  constructor(directory: string) {
    if (typeof directory !== 'string' || directory === '') {
      throw new TypeError(
        `Expected \`directory\` to be the path of a directory for the outbox's files, got ${typeof directory === 'string' ? '""' : typeof directory}.`,
      );
    }
    this.directory = directory;
    this.#entries = join(directory, 'entries');
    this.#temporary = join(directory, 'tmp');
    this.#locks = join(directory, 'locks');
  }

  #prepare(): Promise<void> {
    this.#ready ??= Promise.all(
      [this.#entries, this.#temporary, this.#locks].map((path) => mkdir(path, { recursive: true })),
    ).then(() => this.#sweep());
    return this.#ready;
  }

  /**
   * Removes what a killed process left half-written: its temporary files (an entry never renamed into place was
   * never reported queued). Each name carries its writer's process id; a live writer's files stay.
   */
  async #sweep(): Promise<void> {
    for (const directory of [this.#temporary, this.#locks]) {
      for (const name of await readdir(directory)) {
        const pid = Number(/\.(\d+)\.[0-9a-f]{8}$/.exec(name)?.[1]);
        if (Number.isInteger(pid) && pid > 0 && !alive(pid))
          await unlink(join(directory, name)).catch(() => {});
      }
    }
  }

  async add(entry: OutboxEntry): Promise<void> {
    await this.#prepare();
    const temporary = join(this.#temporary, `${entry.id}.${process.pid}.${randomBytes(4).toString('hex')}`);
    const file = await open(temporary, 'wx');
    try {
      await file.writeFile(JSON.stringify(entry));
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, join(this.#entries, `${fileName(entry.id)}.json`));
    await this.#syncDirectory(this.#entries);
  }

  async list(): Promise<OutboxEntry[]> {
    await this.#prepare();
    const names = (await readdir(this.#entries)).filter((name) => name.endsWith('.json')).sort();
    const entries: OutboxEntry[] = [];
    for (const name of names) {
      try {
        entries.push(JSON.parse(await readFile(join(this.#entries, name), 'utf8')) as OutboxEntry);
      } catch (error) {
        // Removed by another process since the listing: it was replayed there.
        if (code(error) !== 'ENOENT') throw error;
      }
    }
    return entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async remove(id: string): Promise<void> {
    await this.#prepare();
    try {
      await unlink(join(this.#entries, `${fileName(id)}.json`));
    } catch (error) {
      if (code(error) === 'ENOENT') return;
      throw error;
    }
    await this.#syncDirectory(this.#entries);
  }

  async withLock(name: string, task: () => Promise<void>): Promise<boolean> {
    await this.#prepare();
    const path = join(this.#locks, `${fileName(name)}.lock`);
    if (!(await this.#take(path))) return false;
    try {
      await task();
      return true;
    } finally {
      await unlink(path).catch(() => {});
    }
  }

  /** Creates the lock file, or takes it over from a process that is gone. */
  async #take(path: string): Promise<boolean> {
    for (let tries = 0; tries < 3; tries++) {
      if (await createExclusive(path, String(process.pid))) return true;
      const holder = await readPid(path);
      if (holder === undefined) continue; // released meanwhile: try again
      if (holder === -1 || alive(holder)) return false;
      // Gone: one process breaks the stale lock, under a lock of its own, so two never both take it.
      const breaker = `${path}.break`;
      if (!(await createExclusive(breaker, String(process.pid)))) {
        const breaking = await readPid(breaker);
        if (breaking !== undefined && breaking !== -1 && !alive(breaking))
          await unlink(breaker).catch(() => {});
        return false;
      }
      try {
        if ((await readPid(path)) === holder) await unlink(path).catch(() => {});
      } finally {
        await unlink(breaker).catch(() => {});
      }
    }
    return false;
  }

  async #syncDirectory(path: string): Promise<void> {
    // Makes the rename or unlink itself durable. Not every platform can open a directory (Windows): skipped there.
    let directory: Awaited<ReturnType<typeof open>> | undefined;
    try {
      directory = await open(path, 'r');
      await directory.sync();
    } catch (error) {
      if (!['EISDIR', 'EPERM', 'EACCES', 'EINVAL'].includes(String(code(error)))) throw error;
    } finally {
      await directory?.close();
    }
  }
}

/**
 * Creates `path` with `content` unless it exists. The content is written to a file of its own first and linked
 * into place (a link fails if the path exists): a lock file is never seen empty, even after a crash.
 */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const file = await open(temporary, 'wx');
  try {
    await file.writeFile(content);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if (code(error) === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => {});
  }
}

/**
 * The process id in a lock file: `undefined` when the file is gone, -1 when it holds none (not written by this
 * store: treated as held).
 */
async function readPid(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : -1;
  } catch (error) {
    if (code(error) === 'ENOENT') return undefined;
    throw error;
  }
}
