import type { CircuitBreaker, Pacer } from 'backoff-core';
import { describe, expect, it } from 'vitest';

/**
 * The contract of a store behind the `Pacer` and the `CircuitBreaker`, as one suite any store runs (as
 * unstorage's `testDriver` does for its drivers): `make` gives a fresh, empty store for each test. Every
 * operation's answer is awaited, so that a store across processes can run the same suite. Times are the `now`
 * each operation is given (a store with a time source of its own runs it with its clock frozen at `T`).
 */

const T = Date.UTC(2026, 11, 2, 12, 0, 0);
const LIMITS: Pacer.StoreLimits = { maxRetryAfter: 60_000, stated: undefined };
const half = () => 0.5;

/** An answer that says nothing of a quota, or one from the given count. */
const answer = (
  status: number,
  quota: { remaining?: number; reset?: number; interval?: number } = {},
  { ticket = 0, serverDelay }: { ticket?: number; serverDelay?: number } = {},
): Pacer.StoreAnswer => ({
  status,
  ticket,
  sentAt: T,
  serverDelay,
  remaining: quota.remaining,
  reset: quota.reset,
  interval: quota.interval,
});

/** 2 left of 10 per second, counted at the reset 1 s away. */
const TWO_LEFT = { remaining: 2, reset: 1000, interval: 100 };
/** Spent for 1 s, then 10 per second. */
const SPENT = { remaining: 0, reset: 1000, interval: 100 };

const held = (reserved: Pacer.StoreReservation): Pacer.StoreHold => {
  if (typeof reserved === 'number' || reserved.type !== 'held')
    throw new Error(`Expected a hold, got ${JSON.stringify(reserved)}.`);
  return reserved;
};

/**
 * `shared`: the store paces several processes (a `RedisStore`, a shared memory store): it also runs the rules of
 * a shared lane, where bare 429s cut the rate to what the server accepted and stretch the queue reserved.
 */
export function describePacerStore(
  name: string,
  make: () => Pacer.Store | Promise<Pacer.Store>,
  { shared = false }: { shared?: boolean } = {},
): void {
  if (shared) describeSharedLane(name, make);
  describe(`Pacer store contract: ${name}`, () => {
    it('a key it knows nothing of goes at once, and creates no pace', async () => {
      const store = await make();
      expect(typeof (await store.reserve('k', T, Infinity, half, LIMITS))).toBe('number');
      expect(await store.read('k', T)).toBe(0);
    });

    it('a stated quota paces a new key from its first send', async () => {
      const store = await make();
      const stated = { maxRetryAfter: 60_000, stated: 100 };
      expect(typeof (await store.reserve('k', T, Infinity, () => 0, stated))).toBe('number');
      expect(held(await store.reserve('k', T, Infinity, () => 0, stated))).toMatchObject({
        slot: T + 105,
        delay: 105,
      });
    });

    it('quota left lets sends go at once, each spending one, and tickets count them', async () => {
      const store = await make();
      await store.learn('k', answer(200, TWO_LEFT), T, LIMITS);
      const first = await store.reserve('k', T, Infinity, half, LIMITS);
      const second = await store.reserve('k', T, Infinity, half, LIMITS);
      expect([typeof first, typeof second]).toEqual(['number', 'number']);
      expect(second).toBe((first as number) + 1);
      // Spent: the third waits for the reset.
      expect(held(await store.reserve('k', T, Infinity, () => 0, LIMITS))).toMatchObject({
        slot: T + 1000,
        delay: 1000,
        reason: 'rate-limit',
      });
    });

    it('two sends never get one slot', async () => {
      const store = await make();
      await store.learn('k', answer(200, SPENT), T, LIMITS);
      const reserved = await Promise.all(
        Array.from({ length: 10 }, () => store.reserve('k', T, Infinity, () => 0, LIMITS)),
      );
      const slots = reserved.map((one) => held(one).slot);
      expect(new Set(slots).size).toBe(10);
      expect(slots.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => T + 1000 + i * 105));
    });

    it("a refused send reserves nothing: past the deadline's rest, or past the caller's maxRetryAfter", async () => {
      const store = await make();
      await store.learn('k', answer(200, SPENT), T, LIMITS);
      expect(await store.reserve('k', T, 999, half, LIMITS)).toMatchObject({
        type: 'refused',
        limit: 'deadline',
      });
      const short = { maxRetryAfter: 500, stated: undefined };
      expect(await store.reserve('k', T, Infinity, half, short)).toMatchObject({
        type: 'refused',
        delay: 1000,
        limit: 'maxRetryAfter',
      });
      // A shared lane: another caller, with a longer maxRetryAfter, is held, and takes the first slot.
      expect(held(await store.reserve('k', T, Infinity, () => 0, LIMITS)).slot).toBe(T + 1000);
    });

    it('a reset too large to represent: a refusal reports the cap it passed, not a figure of its own', async () => {
      const store = await make();
      await store.learn('k', answer(429, { remaining: 0, reset: 2 ** 53 - 1 }), T, LIMITS);
      expect(await store.reserve('k', T, 999, half, LIMITS)).toEqual({
        type: 'refused',
        delay: 999,
        reason: 'rate-limit',
        limit: 'deadline',
      });
      expect(await store.reserve('k', T, Infinity, half, LIMITS)).toMatchObject({
        delay: 60_000,
        limit: 'maxRetryAfter',
      });
    });

    it('release gives a slot ahead back, and the next send takes it; a slot already due gives nothing back', async () => {
      const store = await make();
      await store.learn('k', answer(200, SPENT), T, LIMITS);
      const first = held(await store.reserve('k', T, Infinity, () => 0, LIMITS));
      const second = held(await store.reserve('k', T, Infinity, () => 0, LIMITS));
      await store.release('k', first, T + 10);
      expect(held(await store.reserve('k', T + 10, Infinity, () => 0, LIMITS)).slot).toBe(first.slot);
      await store.release('k', second, second.slot);
      expect(held(await store.reserve('k', second.slot, Infinity, () => 0, LIMITS)).slot).toBe(
        second.slot + 105,
      );
    });

    it('read tells the wait and changes nothing', async () => {
      const store = await make();
      await store.learn('k', answer(200, SPENT), T, LIMITS);
      expect(await store.read('k', T)).toBe(1000);
      expect(await store.read('k', T)).toBe(1000);
      expect(await store.read('k', T + 400)).toBe(600);
      expect(held(await store.reserve('k', T, Infinity, () => 0, LIMITS)).slot).toBe(T + 1000);
    });

    it('learn counts the sends reserved after the one answered as spent', async () => {
      const store = await make();
      await store.learn('k', answer(200, { remaining: 10, reset: 5000, interval: 500 }), T, LIMITS);
      const tickets = [];
      for (let i = 0; i < 3; i++) tickets.push(await store.reserve('k', T, Infinity, half, LIMITS));
      await store.learn(
        'k',
        answer(200, { remaining: 2, reset: 5000, interval: 500 }, { ticket: tickets[0] as number }),
        T,
        LIMITS,
      );
      expect(held(await store.reserve('k', T, Infinity, () => 0, LIMITS))).toMatchObject({ slot: T + 5000 });
    });

    it("a 429's Retry-After spends the quota until then", async () => {
      const store = await make();
      await store.learn('k', answer(429, {}, { serverDelay: 3000 }), T, LIMITS);
      expect(await store.read('k', T)).toBe(3000);
    });

    it('bare 429s after a quiet spell: the cut counts what the server accepted since it, not the quiet time', async () => {
      const store = await make();
      // One success, then nothing sent for 5 s; then a burst: 20 of its sends succeed, the next is refused.
      await store.learn('k', { ...answer(200), sentAt: T - 2 }, T, LIMITS);
      for (let i = 0; i < 21; i++) await store.reserve('k', T + 5000, Infinity, half, LIMITS);
      for (let i = 1; i <= 20; i++)
        await store.learn('k', { ...answer(200), ticket: i, sentAt: T + 5000 }, T + 5002 + i / 10, LIMITS);
      await store.learn('k', { ...answer(429), ticket: 21, sentAt: T + 5000 }, T + 5005, LIMITS);
      // 20 a second accepted: a shared lane is paced at that (its slots 5% longer), a lane of one process at
      // AIMD's 0.7 of it. Counted over the quiet 5 s too, it would be 21 in 5 s, or AIMD's floor of 0.5 a second.
      const after = T + 6000;
      expect(typeof (await store.reserve('k', after, Infinity, () => 0, LIMITS))).toBe('number');
      expect(held(await store.reserve('k', after, Infinity, () => 0, LIMITS)).slot).toBe(
        after + (shared ? 1000 / 20 : 1000 / 14) * 1.05,
      );
    });

    it('keys are kept apart', async () => {
      const store = await make();
      await store.learn('a', answer(200, SPENT), T, LIMITS);
      expect(await store.read('b', T)).toBe(0);
      expect(typeof (await store.reserve('b', T, Infinity, half, LIMITS))).toBe('number');
    });

    it('an idle key is forgotten', async () => {
      const store = await make();
      await store.learn('k', answer(429, {}, { serverDelay: 1000 }), T, LIMITS);
      expect(await store.read('k', T + 61_001)).toBe(0);
      expect(typeof (await store.reserve('k', T + 61_001, Infinity, half, LIMITS))).toBe('number');
    });
  });
}

/** A 200 or a bare 429 (no header at all) to a send let go 1 ms before it was answered. */
const plain = (status: number, at: number): Pacer.StoreAnswer => ({
  ...answer(status),
  sentAt: at - 1,
});

function describeSharedLane(name: string, make: () => Pacer.Store | Promise<Pacer.Store>): void {
  describe(`Pacer store contract, a shared lane: ${name}`, () => {
    /** `count` successes answered `gap` ms apart from `from` on, then a bare 429 at `at`. */
    const throttle = async (store: Pacer.Store, from: number, count: number, gap: number, at: number) => {
      for (let i = 0; i < count; i++)
        await store.learn('k', plain(200, from + i * gap), from + i * gap, LIMITS);
      await store.learn('k', plain(429, at), at, LIMITS);
    };

    it('a bare 429 pauses the lane, and cuts its rate to the successes since the first of them, over at least a round', async () => {
      const store = await make();
      // 20 successes in 380 ms, then a 429: the pause, then 20 per second (52.5 ms between slots, their margin).
      await throttle(store, T, 20, 20, T + 400);
      expect(await store.read('k', T + 400)).toBe(150);
      expect(typeof (await store.reserve('k', T + 600, Infinity, () => 0, LIMITS))).toBe('number');
      expect(held(await store.reserve('k', T + 600, Infinity, () => 0, LIMITS)).slot).toBe(T + 652.5);
    });

    it('a send held before a cut that lowers the rate waits for its slot stretched to the new rate', async () => {
      const store = await make();
      // 40 per second first; 60 sends reserved at T + 2 s, 26.25 ms apart.
      await throttle(store, T, 40, 5, T + 400);
      const holds: Pacer.StoreHold[] = [];
      for (let i = 0; i < 60; i++) {
        const reserved = await store.reserve('k', T + 2000, Infinity, () => 0, LIMITS);
        if (typeof reserved !== 'number') holds.push(held(reserved));
      }
      // 20 successes over the next second, then a 429: cut to 20 per second at T + 3.1 s.
      await throttle(store, T + 2100, 20, 50, T + 3100);
      const late = holds[49] as Pacer.StoreHold;
      expect(late.slot).toBe(T + 2000 + 50 * 26.25);
      const confirm = store.confirm?.bind(store);
      if (confirm === undefined) throw new Error('A shared store confirms holds.');
      const again = held(await confirm('k', late, late.slot, Infinity, () => 0, LIMITS));
      expect(again).toMatchObject({ slot: T + 3100 + (late.slot - T - 3100) * 2 });
      expect(again.delay).toBe(Math.ceil(again.slot - late.slot));
      expect(await confirm('k', again, again.slot, Infinity, () => 0, LIMITS)).toBe(again.ticket);
    });
  });
}

const RULES: CircuitBreaker.StoreRules = {
  failureRatio: 0.5,
  minimumCalls: 20,
  window: 30_000,
  consecutiveFailures: 2,
  breakDuration: 5000,
  maxBreakDuration: 30_000,
  halfOpenProbes: 1,
};

/**
 * `snapshots: false` for a store shared by processes: its circuits live on its server, and `entries` / `replace`
 * (a snapshot of one process's memory) are not its to keep.
 */
export function describeCircuitStore(
  name: string,
  make: () => CircuitBreaker.Store | Promise<CircuitBreaker.Store>,
  { snapshots = true }: { snapshots?: boolean } = {},
): void {
  describe(`circuit store contract: ${name}`, () => {
    /** Trips `origin`'s circuit at `T` (two failures in a row). */
    const trip = async (store: CircuitBreaker.Store, origin = 'o') => {
      await store.record(origin, T, true, undefined, false, RULES);
      return store.record(origin, T, true, undefined, false, RULES);
    };

    it('an origin it knows nothing of is closed: a call goes, not as a probe, and nothing is kept', async () => {
      const store = await make();
      expect(await store.admit('o', T, RULES)).toEqual({
        admitted: true,
        probe: false,
        nextProbeIn: 0,
        change: undefined,
      });
      expect(await store.record('o', T, undefined, undefined, false, RULES)).toBeUndefined();
      expect(await store.read('o', T)).toBeUndefined();
    });

    it('failures trip it: the transition is answered, and calls are refused until the break is over', async () => {
      const store = await make();
      expect(await trip(store)).toEqual({ from: 'closed', to: 'open', at: T, openUntil: T + 5000 });
      expect(await store.admit('o', T + 1000, RULES)).toMatchObject({ admitted: false, nextProbeIn: 4000 });
      expect(await store.read('o', T)).toMatchObject({ state: 'open', openUntil: T + 5000, opens: 1 });
    });

    it('after the break one probe goes, atomically: the circuit turns half-open once, and the next call is refused', async () => {
      const store = await make();
      await trip(store);
      const [first, second] = await Promise.all([
        store.admit('o', T + 5000, RULES),
        store.admit('o', T + 5000, RULES),
      ]);
      expect(first).toEqual({
        admitted: true,
        probe: true,
        nextProbeIn: 0,
        change: { from: 'open', to: 'half-open', at: T + 5000, openUntil: undefined },
      });
      expect(second).toMatchObject({ admitted: false, change: undefined });
    });

    it("the probe's success closes it; a failed probe re-opens it with the break doubled", async () => {
      const store = await make();
      await trip(store);
      await store.admit('o', T + 5000, RULES);
      expect(await store.record('o', T + 5100, true, undefined, true, RULES)).toEqual({
        from: 'half-open',
        to: 'open',
        at: T + 5100,
        openUntil: T + 15_100,
      });
      await store.admit('o', T + 15_100, RULES);
      expect(await store.record('o', T + 15_200, false, undefined, true, RULES)).toMatchObject({
        to: 'closed',
      });
      expect(await store.admit('o', T + 15_200, RULES)).toMatchObject({ admitted: true, probe: false });
    });

    it.runIf(snapshots)(
      'read changes nothing: a restored circuit is clamped by the next admission only',
      async () => {
        const store = await make();
        await trip(store);
        const saved = new Map<string, CircuitBreaker.StoreCircuit>(
          [...(await store.entries())].map(([origin, circuit]) => [origin, structuredClone(circuit)]),
        );
        const far = saved.get('o');
        if (far === undefined) throw new Error('The tripped circuit is not among the entries.');
        far.openUntil = T + 3_600_000;
        far.restored = true;
        await store.replace(saved);
        expect(await store.read('o', T)).toMatchObject({ openUntil: T + 3_600_000 });
        expect(await store.read('o', T)).toMatchObject({ openUntil: T + 3_600_000 });
        expect(await store.admit('o', T, RULES)).toMatchObject({ admitted: false, nextProbeIn: 5000 });
        expect(await store.read('o', T)).toMatchObject({ openUntil: T + 5000, restored: false });
      },
    );

    it('origins are kept apart', async () => {
      const store = await make();
      await trip(store, 'a');
      expect(await store.admit('a', T, RULES)).toMatchObject({ admitted: false });
      expect(await store.admit('b', T, RULES)).toMatchObject({ admitted: true });
    });

    it.runIf(snapshots)('entries list what is kept', async () => {
      const store = await make();
      await trip(store, 'a');
      await store.record('b', T, false, undefined, false, RULES);
      expect(await store.admit('b', T, RULES)).toMatchObject({ admitted: true });
      expect([...(await store.entries())].map(([origin, circuit]) => [origin, circuit.state])).toEqual([
        ['a', 'open'],
        ['b', 'closed'],
      ]);
    });
  });
}
