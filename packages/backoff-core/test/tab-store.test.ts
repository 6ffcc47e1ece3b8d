import { CircuitBreaker, Pacer, TabStore } from 'backoff-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Tabs of one origin, as Node 24 has them: BroadcastChannel and Web Locks (navigator.locks) between the stores of
// one process behave as between tabs. Messages and locks move in turns of the event loop; time does not move on
// its own: every `now` is given, and the store's own clock and timer (a closing tab's `Date.now()`, the wait for
// the leader's answer) are fake, so a slow machine changes no answer.

const T = Date.UTC(2026, 11, 2, 12);
const LIMITS = { maxRetryAfter: 60_000, stated: undefined };
const open: TabStore[] = [];
let channels = 0;
const tabs = (count: number, options?: TabStore.Options) => {
  const name = `tabs-${++channels}`;
  const made = Array.from({ length: count }, () => new TabStore(name, options));
  open.push(...made);
  return made;
};
beforeEach(() => {
  vi.useFakeTimers({ now: T, toFake: ['Date', 'setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  for (const tab of open.splice(0)) tab.close();
  vi.useRealTimers();
});
/** A key's quota spent at `T`, for 2 s. */
const spent = () => ({
  status: 200,
  ticket: 0,
  sentAt: T,
  serverDelay: undefined,
  remaining: 0,
  reset: 2000,
  interval: 100,
});
const reserve = (tab: TabStore) => tab.pacer.reserve('k', T, Number.POSITIVE_INFINITY, () => 0, LIMITS);

/** Lets the event loop turn until `check` holds: the tabs' messages and locks need turns, never time. */
async function until(check: () => boolean | Promise<boolean>, turns = 1000): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`Still not so after ${turns} turns of the event loop.`);
}

const leaderOf = async (all: TabStore[]) => {
  await until(() => all.some((tab) => tab.leader));
  return all.find((tab) => tab.leader) as TabStore;
};

describe('TabStore', () => {
  it('one tab leads; what another learns holds the sends of all', async () => {
    const [first, second, third] = tabs(3) as [TabStore, TabStore, TabStore];
    await until(() => [first, second, third].some((tab) => tab.leader));
    expect([first, second, third].filter((tab) => tab.leader)).toHaveLength(1);
    await second.pacer.learn('k', spent(), T, LIMITS);
    expect(await third.pacer.read('k', T)).toBe(2000);
    expect(await reserve(first)).toMatchObject({ type: 'held', reason: 'rate-limit', delay: 2000 });
  });

  it('ten tabs reserving together get ten slots, none shared', async () => {
    const all = tabs(10);
    await leaderOf(all);
    await all[3]?.pacer.learn('k', spent(), T, LIMITS);
    const reserved = await Promise.all(all.map(reserve));
    expect(new Set(reserved.map((one) => (one as Pacer.StoreHold).slot)).size).toBe(10);
  });

  it('a tab that closes gives its held slots back: the next tab takes the first of them', async () => {
    const all = tabs(3);
    const leader = await leaderOf(all);
    const [follower, other] = all.filter((tab) => tab !== leader) as [TabStore, TabStore];
    await leader.pacer.learn('k', spent(), T, LIMITS);
    const held = (await reserve(follower)) as Pacer.StoreHold;
    follower.close();
    // The slot comes back when the leader hears the closing tab: until then the next tab is queued behind it.
    await until(async () => ((await reserve(other)) as Pacer.StoreHold).slot === held.slot);
  });

  it('the leader that closes lets go of its lock: another tab leads, with no timer run out', async () => {
    const all = tabs(2);
    const leader = await leaderOf(all);
    const other = all.find((tab) => tab !== leader) as TabStore;
    leader.close();
    await until(() => other.leader);
    expect(Date.now()).toBe(T);
    // It answers from its own memory now, at once: no question goes out.
    expect(reserve(other)).toBe(0);
  });

  it('a leader that does not answer within `timeout`: the tab answers from its own memory, at the timeout', async () => {
    // Another holder of the lock that never answers, as a leader tab frozen in the background.
    let thaw: (() => void) | undefined;
    const channel = `tabs-${++channels}`;
    const frozen = new Promise<void>((resolve) => {
      void navigator.locks.request(`backoff:${channel}`, () => {
        resolve();
        return new Promise<void>((done) => {
          thaw = done;
        });
      });
    });
    await frozen;
    const tab = new TabStore(channel, { timeout: 250 });
    open.push(tab);
    try {
      const learnt = Promise.resolve(tab.pacer.learn('k', spent(), T, LIMITS));
      await vi.advanceTimersByTimeAsync(250);
      await learnt;
      let answer: number | undefined;
      void Promise.resolve(tab.pacer.read('k', T)).then((wait) => {
        answer = wait;
      });
      await vi.advanceTimersByTimeAsync(249);
      expect(answer).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      // What it learnt when the leader did not answer either.
      expect(answer).toBe(2000);
    } finally {
      thaw?.();
    }
  });

  it('a breaker tripped in one tab refuses the calls of another', async () => {
    const [one, two] = tabs(2) as [TabStore, TabStore];
    const a = new CircuitBreaker({ store: one.breaker, consecutiveFailures: 1 });
    const b = new CircuitBreaker({ store: two.breaker });
    await leaderOf([one, two]);
    await a.record('https://api.test', T, true, undefined, false);
    expect(await b.state('https://api.test', T)).toBe('open');
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
