import { afterEach, describe, expect, it, vi } from 'vitest';
import { type NodeRedisLike, RedisStore } from '../src/index.ts';
import { T } from './support/fixtures.ts';

// How long the store waits for Redis, on a virtual clock: a client that answers after the delays the test gives
// (or never), timed by fake timers, the round trips measured by a fake performance.now().

/** A client whose answers come after `delays()` ms each (`Infinity`: never); `answered` counts them. */
function scripted(delays: () => number) {
  let answered = 0;
  const answer = () =>
    new Promise<string[]>((resolve) => {
      const delay = delays();
      if (delay === Infinity) return;
      setTimeout(() => {
        answered++;
        resolve([String(T), '0']);
      }, delay);
    });
  const client: NodeRedisLike = { evalSha: answer, eval: answer };
  return { client, answered: () => answered };
}

/** One `read` through the store, run to its end on the virtual clock: whether Redis answered it (else local). */
async function read(store: RedisStore, ms = 2000): Promise<boolean> {
  const before = store.stats().fallbacks;
  const done = store.pacer.read('k', T);
  await vi.advanceTimersByTimeAsync(ms);
  await done;
  return store.stats().fallbacks === before && !store.local;
}

describe('RedisStore: the wait for Redis', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const fake = () =>
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });

  it('answers that take 400 ms (a loaded host): the wait grows to them, no fallback (a fixed 250 ms fell back on each)', async () => {
    fake();
    const { client } = scripted(() => 400);
    const store = new RedisStore({ client, clock: 'caller' });
    for (let i = 0; i < 20; i++) expect(await read(store)).toBe(true);
    expect(store.stats()).toMatchObject({ fallbacks: 0, lateAnswers: 0, roundTrip: 400 });
    expect(store.stats().timeout).toBe(404);
    store.close();
  });

  it('a Redis that answered in 1 ms and then hangs: the store falls back after 250 ms (the floor), not at the cap', async () => {
    fake();
    let hang = false;
    const { client } = scripted(() => (hang ? Infinity : 1));
    const onFallback = vi.fn();
    const store = new RedisStore({ client, clock: 'caller', onFallback });
    for (let i = 0; i < 10; i++) await read(store);
    expect(store.stats().timeout).toBe(250);
    hang = true;
    void store.pacer.read('k', T);
    await vi.advanceTimersByTimeAsync(249);
    expect(store.local).toBe(false);
    // The wait's timer, then one more turn of the loop (the store's allowance for a reply read late).
    await vi.advanceTimersByTimeAsync(2);
    expect(store.local).toBe(true);
    expect(onFallback).toHaveBeenCalledTimes(1);
    expect(store.stats()).toMatchObject({ fallbacks: 1, resumes: 0 });
    store.close();
  });

  it('before any answer, the store waits the whole `timeout`', async () => {
    fake();
    const { client } = scripted(() => 900);
    const store = new RedisStore({ client, clock: 'caller' });
    expect(store.stats()).toMatchObject({ timeout: 1000, roundTrip: undefined });
    expect(await read(store)).toBe(true);
    store.close();
  });

  it('an answer that came late is counted and widens the wait; the store resumes and stops falling back', async () => {
    fake();
    let delay = 1;
    const { client } = scripted(() => delay);
    const onResume = vi.fn();
    const store = new RedisStore({ client, clock: 'caller', probeInterval: 100, onResume });
    for (let i = 0; i < 10; i++) await read(store);
    delay = 300;
    expect(await read(store)).toBe(false);
    expect(store.stats()).toMatchObject({ fallbacks: 1, lateAnswers: 1 });
    expect(store.stats().timeout).toBe(558);
    await vi.advanceTimersByTimeAsync(1000);
    expect(onResume).toHaveBeenCalledTimes(1);
    // 300 ms answers from now on: within the wait.
    for (let i = 0; i < 10; i++) expect(await read(store)).toBe(true);
    expect(store.stats()).toMatchObject({ fallbacks: 1, resumes: 1, lateAnswers: 1 });
    store.close();
  });

  it('`minTimeout` raises the floor: a Redis that answered in 1 ms may then take 600 ms without a fallback', async () => {
    fake();
    let delay = 1;
    const { client } = scripted(() => delay);
    const store = new RedisStore({ client, clock: 'caller', minTimeout: 800 });
    for (let i = 0; i < 10; i++) await read(store);
    expect(store.stats().timeout).toBe(800);
    delay = 600;
    expect(await read(store)).toBe(true);
    expect(store.stats()).toMatchObject({ fallbacks: 0, lateAnswers: 0 });
    store.close();
  });

  it('a `minTimeout` that is no number of ms is refused, naming the option', () => {
    expect(() => new RedisStore({ client: scripted(() => 1).client, minTimeout: -1 })).toThrow(
      'Expected `minTimeout` to be a number of ms above 0, got -1.',
    );
  });

  it('`timeout` caps the wait, and a `timeout` below 250 ms is the floor too', async () => {
    fake();
    const slow = new RedisStore({ client: scripted(() => 5000).client, clock: 'caller', timeout: 2000 });
    expect(await read(slow, 10_000)).toBe(false);
    expect(slow.stats().timeout).toBe(2000);
    slow.close();
    const fast = new RedisStore({ client: scripted(() => 1).client, clock: 'caller', timeout: 100 });
    for (let i = 0; i < 5; i++) await read(fast);
    expect(fast.stats().timeout).toBe(100);
    fast.close();
  });
});
