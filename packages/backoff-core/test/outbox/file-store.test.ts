import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutboxEntry } from 'backoff-core/outbox';
import { FileOutboxStore } from 'backoff-core/outbox/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'outbox-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const entry = (id: string, key = id): OutboxEntry => ({
  id,
  key,
  group: 'https://api.test',
  method: 'POST',
  url: 'https://api.test/orders',
  headers: { 'idempotency-key': key },
  body: { type: 'bytes', base64: 'AAEC/w==' },
  firstSent: 1_000,
  queuedAt: 1_000,
});

/** A process id no process has (above Linux's and macOS's limits). */
const DEAD_PID = 2_147_483_646;

describe('FileOutboxStore', () => {
  it('keeps entries across instances (a restart), sorted by id, and leaves no temporary file', async () => {
    const store = new FileOutboxStore(directory);
    await store.add(entry('000000000000002-000000001-b'));
    await store.add(entry('000000000000001-000000001-a'));
    await store.add(entry('000000000000001-000000002-a'));
    const reopened = new FileOutboxStore(directory);
    expect((await reopened.list()).map((e) => e.id)).toEqual([
      '000000000000001-000000001-a',
      '000000000000001-000000002-a',
      '000000000000002-000000001-b',
    ]);
    expect(await reopened.list()).toContainEqual(entry('000000000000002-000000001-b'));
    expect(await readdir(join(directory, 'tmp'))).toEqual([]);
  });

  it('remove takes an entry out for every instance; removing it again does nothing', async () => {
    const store = new FileOutboxStore(directory);
    await store.add(entry('a'));
    await store.add(entry('b'));
    await store.remove('a');
    await store.remove('a');
    expect((await new FileOutboxStore(directory).list()).map((e) => e.id)).toEqual(['b']);
  });

  it('a lock held by one instance (another process, as far as the files go) is refused to the other until released', async () => {
    const one = new FileOutboxStore(directory);
    const two = new FileOutboxStore(directory);
    const order: string[] = [];
    let release = () => {};
    let started = () => {};
    const inside = new Promise<void>((resolve) => {
      started = resolve;
    });
    const held = one.withLock('backoff-outbox:https://api.test', async () => {
      order.push('one');
      started();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    await inside;
    expect(await two.withLock('backoff-outbox:https://api.test', async () => void order.push('two'))).toBe(
      false,
    );
    // Another group's lock is free.
    expect(
      await two.withLock('backoff-outbox:https://other.test', async () => void order.push('other')),
    ).toBe(true);
    release();
    expect(await held).toBe(true);
    expect(await two.withLock('backoff-outbox:https://api.test', async () => void order.push('two'))).toBe(
      true,
    );
    expect(order).toEqual(['one', 'other', 'two']);
    expect((await readdir(join(directory, 'locks'))).filter((name) => !name.endsWith('.lock'))).toEqual([]);
  });

  it("a lock left by a process that is gone (killed mid-replay) is taken over; a live process's is not", async () => {
    const store = new FileOutboxStore(directory);
    await store.list();
    const path = (name: string) =>
      join(
        directory,
        'locks',
        `${name.replace(/[^a-zA-Z0-9_-]/g, (c) => `.${c.charCodeAt(0).toString(16)}`)}.lock`,
      );
    await writeFile(path('dead'), String(DEAD_PID));
    await writeFile(path('live'), String(process.ppid));
    let ran = 0;
    expect(await store.withLock('dead', async () => void ran++)).toBe(true);
    expect(await store.withLock('live', async () => void ran++)).toBe(false);
    expect(ran).toBe(1);
  });

  it("a killed writer's temporary files are swept when the store opens; a live writer's stay", async () => {
    const store = new FileOutboxStore(directory);
    await store.list();
    const dead = join(directory, 'tmp', `000000000000001-000000001-a.${DEAD_PID}.0a1b2c3d`);
    const live = join(directory, 'tmp', `000000000000001-000000002-a.${process.pid}.0a1b2c3d`);
    const lockTemporary = join(directory, 'locks', `g.lock.${DEAD_PID}.0a1b2c3d`);
    await writeFile(dead, '{"half":');
    await writeFile(live, '{"half":');
    await writeFile(lockTemporary, String(DEAD_PID));
    expect(await new FileOutboxStore(directory).list()).toEqual([]);
    expect(await readdir(join(directory, 'tmp'))).toEqual([live.slice(live.lastIndexOf('/') + 1)]);
    expect(await readdir(join(directory, 'locks'))).toEqual([]);
  });

  it('a task that throws releases the lock', async () => {
    const store = new FileOutboxStore(directory);
    await expect(
      store.withLock('g', async () => {
        throw new Error('task failed');
      }),
    ).rejects.toThrow('task failed');
    expect(await store.withLock('g', async () => {})).toBe(true);
  });

  it('a bad directory: a clear error naming it', () => {
    expect(() => new FileOutboxStore('')).toThrow(/`directory`.*got ""/);
  });
});
