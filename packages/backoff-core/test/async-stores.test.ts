import { StallingPacerStore, VirtualClock } from '@backoff/test-utils';
import { CircuitBreaker, Pacer, withBackoff } from 'backoff-core';
import { describe, expect, it, vi } from 'vitest';
import type { PacerLike } from '../src/options/options.ts';
import { type Feature, Stopped } from '../src/run/roles.ts';

// A store shared by processes answers with a Promise (one round trip). These prove that the runner waits for it
// only as long as the caller lets it: an abort ends the call at once, and nothing it reserved stays reserved.

const LIMITS = { maxRetryAfter: 60_000, stated: undefined };

/** A pacer store whose every answer comes only when the test says so. */
function lateStore() {
  const memory = new Pacer.MemoryStore();
  const pending: Array<() => void> = [];
  const release = vi.fn();
  const store: Pacer.Store = {
    reserve: (...args) => new Promise((resolve) => pending.push(() => resolve(memory.reserve(...args)))),
    release,
    learn: (...args) => memory.learn(...args),
    read: (...args) => Promise.resolve(memory.read(...args)),
  };
  return { store, memory, pending, release };
}

const ok = () => Promise.resolve(new Response('ok'));

/**
 * Runs `check` after each turn of the event loop until it passes, for at most 1,000 turns: what it waits for is
 * the store's answers and the runner's steps, never the machine's time, so a busy machine changes nothing.
 */
async function eventually(check: () => unknown): Promise<void> {
  for (let turn = 0; ; turn++) {
    try {
      await check();
      return;
    } catch (error) {
      if (turn >= 1000) throw error;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** The origin's quota spent for 1 s (none left, the window resets in 1000 ms): a reservation is then a hold. */
function spendQuota(memory: Pacer.MemoryStore, now: number): void {
  memory.learn(
    'https://api.test',
    { status: 200, ticket: 0, sentAt: now, serverDelay: undefined, remaining: 0, reset: 1000, interval: 100 },
    now,
    LIMITS,
  );
}

/** A breaker's store whose admission answers only when the test calls `admit()` (`asked()`: it was asked); `record` is a spy. */
function admittingWhenTold() {
  const memory = new CircuitBreaker.MemoryStore();
  let answer: (() => void) | undefined;
  const record = vi.fn(() => undefined);
  const store: CircuitBreaker.Store = {
    admit: (...args) =>
      new Promise((resolve) => {
        answer = () => resolve(memory.admit(...args));
      }),
    record,
    read: (origin) => Promise.resolve(memory.read(origin)),
    entries: () => memory.entries(),
    replace: (circuits) => memory.replace(circuits),
  };
  return { store, record, asked: () => answer !== undefined, admit: () => answer?.() };
}

describe('a store that confirms holds', () => {
  it('a hold its confirmation holds again is confirmed in turn, and the send goes only once one lets it go', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 11, 2, 12));
    const memory = new Pacer.MemoryStore();
    const hold = (ticket: number, delay: number): Pacer.StoreHold => ({
      type: 'held',
      ticket,
      slot: clock.now() + delay,
      delay,
      reason: 'throttled',
    });
    // The first send is held, then held again twice (a pause, then a stretched queue), then let go.
    const answers: Pacer.StoreReservation[] = [hold(2, 200), hold(3, 300), 3];
    const confirm = vi.fn(() => Promise.resolve(answers.shift() as Pacer.StoreReservation));
    const store: Pacer.Store = {
      reserve: () => Promise.resolve(hold(1, 100)),
      confirm,
      release: vi.fn(),
      learn: (...args) => memory.learn(...args),
      read: () => 0,
    };
    const sent: number[] = [];
    const fetch = vi.fn(() => {
      sent.push(confirm.mock.calls.length);
      return ok();
    });
    const send = withBackoff(fetch, { pacer: new Pacer({ store }), now: clock.now, timers: clock.timers });
    await expect(send('https://api.test/a')).resolves.toMatchObject({ status: 200 });
    expect(confirm).toHaveBeenCalledTimes(3);
    expect(sent).toEqual([3]);
    expect(clock.waits).toEqual([100, 200, 300]);
  });
});

describe('a store that answers later', () => {
  it('a send waits for its reservation, and goes once it is answered', async () => {
    const { store, pending } = lateStore();
    const fetch = vi.fn(ok);
    const call = withBackoff(fetch, { pacer: new Pacer({ store }) })('https://api.test/a');
    await eventually(() => expect(pending).toHaveLength(1));
    expect(fetch).not.toHaveBeenCalled();
    pending[0]?.();
    await expect(call).resolves.toMatchObject({ status: 200 });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('an abort while the reservation is unanswered ends the call at once, nothing sent', async () => {
    const { store, pending } = lateStore();
    const fetch = vi.fn(ok);
    const controller = new AbortController();
    const call = withBackoff(fetch, { pacer: new Pacer({ store }) })('https://api.test/a', {
      signal: controller.signal,
    });
    await eventually(() => expect(pending).toHaveLength(1));
    controller.abort(new Error('gone'));
    await expect(call).rejects.toThrow('gone');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('a hold answered after the abort is given back', async () => {
    const { store, memory, pending, release } = lateStore();
    const clock = new VirtualClock();
    // The key's quota is spent for 1 s: the reservation the store answers late is a hold.
    spendQuota(memory, clock.now());
    const controller = new AbortController();
    const send = withBackoff(ok, { pacer: new Pacer({ store }), now: clock.now, timers: clock.timers });
    const call = send('https://api.test/a', { signal: controller.signal });
    await eventually(() => expect(pending).toHaveLength(1));
    controller.abort(new Error('gone'));
    await expect(call).rejects.toThrow('gone');
    expect(release).not.toHaveBeenCalled();
    pending[0]?.();
    await eventually(() => expect(release).toHaveBeenCalledTimes(1));
    expect(release.mock.calls[0]?.[1]).toMatchObject({ type: 'held' });
  });

  it("an abort while a breaker's store admits ends the call at once; the call's end reaches the store later", async () => {
    const { store, record, asked, admit } = admittingWhenTold();
    const fetch = vi.fn(ok);
    const controller = new AbortController();
    const call = withBackoff(fetch, { circuitBreaker: new CircuitBreaker({ store }) })('https://api.test/a', {
      signal: controller.signal,
    });
    await eventually(() => expect(asked()).toBe(true));
    controller.abort(new Error('gone'));
    await expect(call).rejects.toThrow('gone');
    expect(fetch).not.toHaveBeenCalled();
    admit();
    // An aborted call says nothing of the server: it is recorded as neither a failure nor a success.
    await eventually(() => expect(record).toHaveBeenCalledTimes(1));
    const [origin, , failed] = record.mock.calls[0] as unknown[];
    expect([origin, failed]).toEqual(['https://api.test', undefined]);
  });

  it('a breaker whose store answers later refuses calls into an open circuit, and its state reads later too', async () => {
    const memory = new CircuitBreaker.MemoryStore();
    const store: CircuitBreaker.Store = {
      admit: (...args) => Promise.resolve(memory.admit(...args)),
      record: (...args) => Promise.resolve(memory.record(...args)),
      read: (origin) => Promise.resolve(memory.read(origin)),
      entries: () => memory.entries(),
      replace: (circuits) => memory.replace(circuits),
    };
    const breaker = new CircuitBreaker({ store, consecutiveFailures: 1 });
    const fetch = vi.fn(() => Promise.resolve(new Response('down', { status: 500 })));
    const clock = new VirtualClock();
    const send = withBackoff(fetch, {
      circuitBreaker: breaker,
      retries: 0,
      now: clock.now,
      timers: clock.timers,
    });
    await expect(send('https://api.test/a')).resolves.toMatchObject({ status: 500 });
    await eventually(async () => expect(await breaker.state('https://api.test', clock.now())).toBe('open'));
    await expect(send('https://api.test/a')).rejects.toMatchObject({ code: 'ERR_CIRCUIT_OPEN' });
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe('holds a shared store keeps renewing', () => {
  it('end without a deadline at twice maxRetryAfter from the first, with the pacer’s deadline error, nothing sent', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 11, 2, 12));
    const memory = new Pacer.MemoryStore();
    const hold = (delay: number): Pacer.StoreHold => ({
      type: 'held',
      ticket: 1,
      slot: clock.now() + delay,
      delay,
      reason: 'throttled',
    });
    // A lane another process keeps pausing: every confirmation holds again for 400 ms, past what `within` allows
    // it refuses, as the store contract asks; after 50 it would let the send go.
    let confirmations = 0;
    const store: Pacer.Store = {
      reserve: () => Promise.resolve(hold(400)),
      confirm: (_key, _hold, _now, within) => {
        confirmations++;
        if (confirmations > 50) return Promise.resolve(1);
        return Promise.resolve(
          400 > within ? { type: 'refused', delay: 400, reason: 'throttled', limit: 'deadline' } : hold(400),
        );
      },
      release: vi.fn(),
      learn: (...args) => memory.learn(...args),
      read: () => 0,
    };
    const fetch = vi.fn(ok);
    const send = withBackoff(fetch, {
      pacer: new Pacer({ store }),
      maxRetryAfter: 1000,
      now: clock.now,
      timers: clock.timers,
    });
    const error = await send('https://api.test/a').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Pacer.DeadlineError);
    expect(fetch).not.toHaveBeenCalled();
    // 2 x maxRetryAfter = 2000 ms: the first hold and four renewals of 400 ms, then a refusal.
    expect(clock.waits).toEqual([400, 400, 400, 400, 400]);
  });

  it("a pacer of the user's own is given, without a deadline, what remains of twice maxRetryAfter at each confirmation", async () => {
    const clock = new VirtualClock(Date.UTC(2026, 11, 2, 12));
    // A gate that holds 400 ms while the time it is given allows, then refuses; it never bounds holds itself.
    const given: number[] = [];
    const refused = new Error('no more time');
    const feature: Feature = {
      start: () => ({
        gate: () => ({ delay: 400, reason: 'throttled', key: 'own' }),
        confirm: (left) => {
          given.push(left);
          if (left < 400) throw new Stopped('deadline', refused);
          return { delay: 400, reason: 'throttled', key: 'own' };
        },
      }),
    };
    const pacer: PacerLike = { feature: () => feature, nextSend: () => 0 };
    const fetch = vi.fn(ok);
    const send = withBackoff(fetch, { pacer, maxRetryAfter: 1000, now: clock.now, timers: clock.timers });
    await expect(send('https://api.test/a')).rejects.toBe(refused);
    expect(fetch).not.toHaveBeenCalled();
    expect(given).toEqual([1600, 1200, 800, 400, 0]);
    expect(clock.waits).toEqual([400, 400, 400, 400, 400]);
  });
});

describe('a store that answers after the deadline', () => {
  /** A call's settlement, seen without awaiting it. */
  const watch = (call: Promise<unknown>) => {
    const seen: { error?: unknown; done: boolean } = { done: false };
    call.then(
      () => {
        seen.done = true;
      },
      (error: unknown) => {
        Object.assign(seen, { error, done: true });
      },
    );
    return seen;
  };

  /** Virtual time to 1 ms before the 2 s deadline, where the call still waits, then to the deadline itself. */
  const untilTheDeadline = async (clock: VirtualClock, seen: { done: boolean }) => {
    clock.advance(1999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.done).toBe(false);
    clock.advance(1);
  };

  it("a pacer's reservation still unanswered at the deadline ends the call there with a TimeoutError; the hold it grants later is given back", async () => {
    const { store, memory, pending, release } = lateStore();
    const clock = new VirtualClock();
    clock.auto = false;
    // The key's quota is spent for 1 s: the reservation answered late is a hold, within the 2 s deadline.
    spendQuota(memory, clock.now());
    const fetch = vi.fn(ok);
    const send = withBackoff(fetch, {
      pacer: new Pacer({ store }),
      deadline: 2000,
      now: clock.now,
      timers: clock.timers,
    });
    const seen = watch(send('https://api.test/a'));
    await eventually(() => expect(pending).toHaveLength(1));
    await untilTheDeadline(clock, seen);
    await eventually(() => expect(seen.done).toBe(true));
    expect(seen.error).toMatchObject({ name: 'TimeoutError' });
    expect(fetch).not.toHaveBeenCalled();
    expect(clock.pendingCount).toBe(0);
    expect(release).not.toHaveBeenCalled();
    pending[0]?.();
    await eventually(() => expect(release).toHaveBeenCalledTimes(1));
    expect(release.mock.calls[0]?.[1]).toMatchObject({ type: 'held' });
  });

  it("a breaker's admission still unanswered at the deadline ends the call there with a TimeoutError, nothing sent; the call's end reaches the store later", async () => {
    const { store, record, asked, admit } = admittingWhenTold();
    const clock = new VirtualClock();
    clock.auto = false;
    const fetch = vi.fn(ok);
    const send = withBackoff(fetch, {
      circuitBreaker: new CircuitBreaker({ store }),
      deadline: 2000,
      now: clock.now,
      timers: clock.timers,
    });
    const seen = watch(send('https://api.test/a'));
    await eventually(() => expect(asked()).toBe(true));
    await untilTheDeadline(clock, seen);
    await eventually(() => expect(seen.done).toBe(true));
    expect(seen.error).toMatchObject({ name: 'TimeoutError' });
    expect(fetch).not.toHaveBeenCalled();
    expect(clock.pendingCount).toBe(0);
    admit();
    await eventually(() => expect(record).toHaveBeenCalledTimes(1));
    const [origin, , failed] = record.mock.calls[0] as unknown[];
    expect([origin, failed]).toEqual(['https://api.test', undefined]);
  });

  it("a breaker's store still reading the circuit after an answer at the deadline no longer holds the call: it ends with its answer", async () => {
    const memory = new CircuitBreaker.MemoryStore();
    // Once the request is out, the store stalls: the circuit's state after the answer comes only when told.
    let sent = false;
    let answered: (() => void) | undefined;
    const store: CircuitBreaker.Store = {
      admit: (...args) => memory.admit(...args),
      record: (...args) => memory.record(...args),
      read: (origin) =>
        sent
          ? new Promise((resolve) => {
              answered = () => resolve(memory.read(origin));
            })
          : memory.read(origin),
      entries: () => memory.entries(),
      replace: (circuits) => memory.replace(circuits),
    };
    const clock = new VirtualClock();
    clock.auto = false;
    const fetch = vi.fn(() => {
      sent = true;
      return ok();
    });
    const send = withBackoff(fetch, {
      circuitBreaker: new CircuitBreaker({ store }),
      deadline: 2000,
      now: clock.now,
      timers: clock.timers,
    });
    const call = send('https://api.test/a');
    const seen = watch(call);
    await eventually(() => expect(answered).toBeDefined());
    await untilTheDeadline(clock, seen);
    await eventually(() => expect(seen.done).toBe(true));
    await expect(call).resolves.toMatchObject({ status: 200 });
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(clock.pendingCount).toBe(0);
    answered?.();
  });

  it('a hold answered so late that it would end past the deadline is refused at once with the reason, and given back', async () => {
    const clock = new VirtualClock();
    clock.auto = false;
    let stall = 0;
    const store = new StallingPacerStore({ timers: clock.timers, stall: () => stall });
    // The key's quota is spent for 1 s; the store answers the reservation 1.5 s late, when 0.5 s of a 2 s deadline is
    // left: the hold it grants (1 s) would end after it.
    spendQuota(store.memory, clock.now());
    stall = 1500;
    const fetch = vi.fn(ok);
    const send = withBackoff(fetch, {
      pacer: new Pacer({ store }),
      deadline: 2000,
      random: () => 0.5,
      now: clock.now,
      timers: clock.timers,
    });
    const seen = watch(send('https://api.test/a'));
    await eventually(() => expect(store.granted).toHaveLength(1));
    clock.advance(1500);
    await eventually(() => expect(seen.done).toBe(true));
    expect(seen.error).toBeInstanceOf(Pacer.DeadlineError);
    expect(seen.error).toMatchObject({ reason: 'deadline', left: 500 });
    expect(fetch).not.toHaveBeenCalled();
    expect(store.released).toEqual(store.granted);
    expect(clock.pendingCount).toBe(0);
  });
});
