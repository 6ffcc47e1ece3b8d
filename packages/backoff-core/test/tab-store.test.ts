import { CircuitBreaker, Pacer, TabStore } from 'backoff-core';
import { afterEach, describe, expect, it, vi } from 'vitest';

// Tabs of one origin, as Node 24 has them: BroadcastChannel and Web Locks (navigator.locks) between the stores of
// one process behave as between tabs.

const LIMITS = { maxRetryAfter: 60_000, stated: undefined };
const open: TabStore[] = [];
let channels = 0;
const tabs = (count: number) => {
  const name = `tabs-${++channels}`;
  const made = Array.from({ length: count }, () => new TabStore(name));
  open.push(...made);
  return made;
};
afterEach(() => {
  for (const tab of open.splice(0)) tab.close();
});
const spent = (now: number) => ({
  status: 200,
  ticket: 0,
  sentAt: now,
  serverDelay: undefined,
  remaining: 0,
  reset: 2000,
  interval: 100,
});

describe('TabStore', () => {
  it('one tab leads; what another learns holds the sends of all', async () => {
    const [first, second, third] = tabs(3) as [TabStore, TabStore, TabStore];
    await vi.waitFor(() => expect([first, second, third].filter((tab) => tab.leader)).toHaveLength(1));
    await second.pacer.learn('k', spent(Date.now()), Date.now(), LIMITS);
    expect(await third.pacer.read('k', Date.now())).toBeGreaterThan(1900);
    const reserved = await first.pacer.reserve('k', Date.now(), Number.POSITIVE_INFINITY, () => 0, LIMITS);
    expect(reserved).toMatchObject({ type: 'held', reason: 'rate-limit' });
  });

  it('ten tabs reserving together get ten slots, none shared', async () => {
    const all = tabs(10);
    await vi.waitFor(() => expect(all.some((tab) => tab.leader)).toBe(true));
    await all[3]?.pacer.learn('k', spent(Date.now()), Date.now(), LIMITS);
    const reserved = await Promise.all(
      all.map((tab) => tab.pacer.reserve('k', Date.now(), Number.POSITIVE_INFINITY, () => 0, LIMITS)),
    );
    expect(new Set(reserved.map((one) => (one as Pacer.StoreHold).slot)).size).toBe(10);
  });

  it('a tab that closes gives its held slots back: the next tab takes the first of them', async () => {
    const all = tabs(3);
    await vi.waitFor(() => expect(all.some((tab) => tab.leader)).toBe(true));
    const [leader, follower, other] = [
      all.find((tab) => tab.leader),
      ...all.filter((tab) => !tab.leader),
    ] as [TabStore, TabStore, TabStore];
    await leader.pacer.learn('k', spent(Date.now()), Date.now(), LIMITS);
    const held = (await follower.pacer.reserve(
      'k',
      Date.now(),
      Number.POSITIVE_INFINITY,
      () => 0,
      LIMITS,
    )) as Pacer.StoreHold;
    follower.close();
    await vi.waitFor(async () => {
      const next = (await other.pacer.reserve(
        'k',
        Date.now(),
        Number.POSITIVE_INFINITY,
        () => 0,
        LIMITS,
      )) as Pacer.StoreHold;
      expect(next.slot).toBe(held.slot);
    });
  });

  it('the leader that closes lets go of its lock: another tab leads within a second', async () => {
    const all = tabs(2);
    await vi.waitFor(() => expect(all.some((tab) => tab.leader)).toBe(true));
    const leader = all.find((tab) => tab.leader) as TabStore;
    const other = all.find((tab) => !tab.leader) as TabStore;
    const started = performance.now();
    leader.close();
    await vi.waitFor(() => expect(other.leader).toBe(true), { timeout: 1000, interval: 5 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(
      typeof (await other.pacer.reserve('k', Date.now(), Number.POSITIVE_INFINITY, Math.random, LIMITS)),
    ).toBe('number');
  });

  it('a breaker tripped in one tab refuses the calls of another', async () => {
    const [one, two] = tabs(2) as [TabStore, TabStore];
    const a = new CircuitBreaker({ store: one.breaker, consecutiveFailures: 1 });
    const b = new CircuitBreaker({ store: two.breaker });
    await vi.waitFor(() => expect(one.leader || two.leader).toBe(true));
    await a.record('https://api.test', Date.now(), true, undefined, false);
    expect(await b.state('https://api.test')).toBe('open');
  });

  it('where BroadcastChannel is missing, both stores are plain memory stores', () => {
    vi.stubGlobal('BroadcastChannel', undefined);
    try {
      const alone = new TabStore('alone');
      expect(alone.shared).toBe(false);
      expect(alone.pacer).toBeInstanceOf(Pacer.MemoryStore);
      expect(alone.breaker).toBeInstanceOf(CircuitBreaker.MemoryStore);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('a channel name that is not a string throws naming it', () => {
    expect(() => new TabStore(undefined as unknown as string)).toThrow(/`channel`/);
  });
});
