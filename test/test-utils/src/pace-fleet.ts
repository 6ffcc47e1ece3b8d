import type { Pacer } from 'backoff-core';

/**
 * Calls paced by one store in virtual time, into a fixed-window limiter: the runner's part done as it does it
 * (reserve; a hold waited, then confirmed, and confirmed again while it holds again; a refusal ends the call;
 * each answer learnt), one event at a time, every store operation awaited in turn. The same run on any store
 * (a memory store, or a RedisStore on the caller's clock) gives the same events: what the limiter accepted is
 * counted on its side. A test can act on the store between events (`during`: a stall, a restart).
 */
export interface PaceFleetOptions {
  readonly store: Pacer.Store;
  /** Requests the limiter accepts per window, and its window in ms (windows start at `start`). */
  readonly limit: number;
  readonly window: number;
  /**
   * Whether answers carry draft-8 RateLimit fields (and a 429's Retry-After, the window's end): else bare 429s.
   */
  readonly headers: boolean;
  /** When each call starts, in ms from `start`. */
  readonly calls: readonly number[];
  /** Retries per call (a 429 is retried after its Retry-After, or `retryDelay` without one). @default 20 */
  readonly retries?: number;
  /** @default 100 */
  readonly retryDelay?: number;
  /** Each call's deadline, in ms from its start. @default Infinity */
  readonly deadline?: number;
  /** Ms from a send to its answer. @default 2 */
  readonly latency?: number;
  readonly limits?: Pacer.StoreLimits;
  /** Acts at given times (ms from `start`), between events. */
  readonly during?: ReadonlyArray<readonly [at: number, act: () => unknown]>;
  /** @default Date.UTC(2026, 11, 2, 12) */
  readonly start?: number;
  readonly key?: string;
}

export interface PaceFleetRun {
  /** Calls that ended with a 200, refused by the pacer, or out of retries. */
  readonly ok: number;
  readonly refused: number;
  readonly exhausted: number;
  /** Requests the limiter saw, and the 429s among them. */
  readonly requests: number;
  readonly throttled: number;
  /** The most requests one call sent. */
  readonly mostSends: number;
  /** When the last call ended, ms from `start`. */
  readonly last: number;
  /** The longest time a call took, ms. */
  readonly longest: number;
}

const LIMITS: Pacer.StoreLimits = { maxRetryAfter: 60_000, stated: undefined };

export async function paceFleet(options: PaceFleetOptions): Promise<PaceFleetRun> {
  const {
    store,
    limit,
    window,
    headers,
    retries = 20,
    retryDelay = 100,
    deadline = Number.POSITIVE_INFINITY,
    latency = 2,
    limits = LIMITS,
    start = Date.UTC(2026, 11, 2, 12),
    key = 'https://api.test',
  } = options;
  const events: Array<{ at: number; act: () => unknown }> = [];
  const at = (time: number, act: () => unknown) => {
    let i = events.length;
    while (i > 0 && (events[i - 1] as { at: number }).at > time) i--;
    events.splice(i, 0, { at: time, act });
  };
  const random = () => 0.5;
  let used = 0;
  let windowIndex = -1;
  const run = {
    ok: 0,
    refused: 0,
    exhausted: 0,
    requests: 0,
    throttled: 0,
    mostSends: 0,
    last: 0,
    longest: 0,
  };

  /** The limiter's answer to a send at `sentAt`, answered at `done`. */
  const answer = (sentAt: number, done: number, ticket: number): Pacer.StoreAnswer => {
    const index = Math.floor((sentAt - start) / window);
    if (index !== windowIndex) {
      windowIndex = index;
      used = 0;
    }
    const status = ++used > limit ? 429 : 200;
    run.requests++;
    if (status === 429) run.throttled++;
    const reset = start + (index + 1) * window - done;
    return {
      status,
      ticket,
      sentAt,
      serverDelay: headers && status === 429 ? reset : undefined,
      remaining: headers ? Math.max(0, limit - used) : undefined,
      reset: headers ? reset : undefined,
      interval: headers ? window / limit : undefined,
    };
  };

  const call = (begun: number) => {
    let sends = 0;
    const end = (now: number, outcome: 'ok' | 'refused' | 'exhausted') => {
      run[outcome]++;
      run.mostSends = Math.max(run.mostSends, sends);
      run.last = Math.max(run.last, now - start);
      run.longest = Math.max(run.longest, now - begun);
    };
    const send = (now: number, ticket: number) => {
      sends++;
      const done = now + latency;
      at(done, async () => {
        const answered = answer(now, done, ticket);
        await store.learn(key, answered, done, limits);
        if (answered.status === 200) return end(done, 'ok');
        if (sends > retries) return end(done, 'exhausted');
        const next = done + (answered.serverDelay ?? retryDelay);
        if (next - begun > deadline) return end(done, 'exhausted');
        at(next, () => attempt(next));
      });
    };
    const held = (now: number, reserved: Pacer.StoreReservation) => {
      if (typeof reserved === 'number') return send(now, reserved);
      if (reserved.type === 'refused') return end(now, 'refused');
      const due = now + reserved.delay;
      at(due, async () => {
        const within = begun + deadline - due;
        const again = store.confirm
          ? await store.confirm(key, reserved, due, within, random, limits)
          : reserved.ticket;
        held(due, again);
      });
    };
    const attempt = async (now: number) => {
      held(now, await store.reserve(key, now, begun + deadline - now, random, limits));
    };
    return attempt;
  };

  for (const offset of options.calls) at(start + offset, () => call(start + offset)(start + offset));
  for (const [offset, act] of options.during ?? []) at(start + offset, act);
  while (events.length > 0) {
    const next = events.shift() as { at: number; act: () => unknown };
    await next.act();
  }
  return run;
}
