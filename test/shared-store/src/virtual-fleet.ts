import { CircuitBreaker, Pacer, withBackoff } from 'backoff-core';
import { RedisStore } from 'backoff-redis';
import { createClient } from 'redis';
import type { FleetOptions } from './fleet.ts';
import { fixedWindow } from './limiter.ts';

interface Timer {
  readonly due: number;
  readonly callback: () => unknown;
}

/**
 * Virtual time for a whole fleet: one timer fires at a time, in order of when it falls due (then of when it was
 * set), and the next fires only once everything the last one started is over, the Redis round trips included. A
 * run's events are then the same on an idle machine and on a busy one.
 */
class EventClock {
  #now: number;
  #queue: Timer[] = [];
  /** Store operations waiting on Redis: virtual time stands still until they are answered. */
  #busy = 0;

  constructor(start: number) {
    this.#now = start;
  }

  readonly now = (): number => this.#now;

  readonly timers = {
    setTimeout: (callback: () => unknown, ms: number): unknown => {
      const timer: Timer = { due: this.#now + Math.max(0, ms), callback };
      let i = this.#queue.length;
      while (i > 0) {
        const before = this.#queue[i - 1] as Timer;
        if (before.due <= timer.due) break;
        i--;
      }
      this.#queue.splice(i, 0, timer);
      return timer;
    },
    clearTimeout: (handle: unknown): void => {
      const i = this.#queue.indexOf(handle as Timer);
      if (i !== -1) this.#queue.splice(i, 1);
    },
  };

  /** Counts `work` as in flight until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#busy++;
    return work.finally(() => {
      this.#busy--;
    });
  }

  /** Until nothing is in flight and a few turns of the loop start nothing more. */
  async #settle(): Promise<void> {
    for (let quiet = 0; quiet < 3; ) {
      await new Promise((resolve) => setImmediate(resolve));
      quiet = this.#busy > 0 ? 0 : quiet + 1;
    }
  }

  /** Fires every timer in turn (an act's Promise awaited), until none is left. */
  async run(): Promise<void> {
    await this.#settle();
    for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
      this.#now = Math.max(this.#now, next.due);
      await next.callback();
      await this.#settle();
    }
  }
}

/** A store whose every operation the clock waits for (what it does is the RedisStore's own). */
function tracked<T extends object>(store: T, clock: EventClock): T {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        return result instanceof Promise ? clock.track(result) : result;
      };
    },
  });
}

/** The limiter of limiter.ts on the virtual clock, answering in-process, 2 ms after each request. */
function limiter(clock: EventClock, options: { limit: number; window: number; headers: boolean }) {
  const arrivals: Array<{ at: number; status: number }> = [];
  const answer = fixedWindow(options);
  let outage = false;
  const fetch = (): Promise<Response> => {
    const now = clock.now();
    let response: Response;
    if (outage) {
      arrivals.push({ at: now, status: 500 });
      response = new Response('down', { status: 500 });
    } else {
      const { status, fields } = answer(now);
      arrivals.push({ at: now, status });
      response = new Response(status === 200 ? 'ok' : 'slow down', { status, headers: fields });
    }
    return new Promise((resolve) => clock.timers.setTimeout(() => resolve(response), 2));
  };
  return {
    fetch,
    arrivals,
    down: () => {
      outage = true;
    },
  };
}

/** Polls (in real time) until `done()`: Redis's own comings and goings, while virtual time stands still. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 30_000) throw new Error(`Still waiting after 30 s: ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface VirtualFleetOptions extends Omit<FleetOptions, 'during'> {
  /** Acts at given times (ms after the start, on the virtual clock), each awaited before time moves on. */
  readonly during?: (
    at: (ms: number, act: () => unknown) => void,
    fleet: { down(): void; clients: ReadonlyArray<{ readonly isReady: boolean }>; stores: RedisStore[] },
  ) => void;
}

export interface VirtualCall {
  readonly worker: number;
  readonly started: number;
  readonly ended: number;
  readonly status?: number;
  readonly error?: string;
}

export interface VirtualFleetRun {
  /** Ms after the start: every request the limiter saw, every call, the breakers' trips, fallbacks, resumes. */
  readonly arrivals: ReadonlyArray<{ readonly at: number; readonly status: number }>;
  readonly calls: readonly VirtualCall[];
  readonly trips: readonly number[];
  readonly fallbacks: ReadonlyArray<{ readonly worker: number; readonly at: number }>;
  readonly resumes: ReadonlyArray<{ readonly worker: number; readonly at: number }>;
  readonly throttled: number;
  readonly last: number;
}

const START = Date.UTC(2026, 11, 2, 12);
let runs = 0;

/**
 * A fleet of `processes` apps, each as a separate process has it (its own Redis client, RedisStore, pacer or
 * breaker, and jitter), on one virtual clock in this process, against the real redis-server (the stores on the
 * caller's clock). Process `w` starts its calls at `w / rate` s and every `processes / rate` s after.
 */
export async function virtualFleet(options: VirtualFleetOptions): Promise<VirtualFleetRun> {
  const clock = new EventClock(START);
  const backend = limiter(clock, options);
  const calls: VirtualCall[] = [];
  const trips: number[] = [];
  const fallbacks: Array<{ worker: number; at: number }> = [];
  const resumes: Array<{ worker: number; at: number }> = [];
  const prefix = `virtual${process.pid}-${++runs}:`;
  const clients: Array<{ readonly isReady: boolean; destroy(): void }> = [];
  const stores: RedisStore[] = [];
  try {
    const sends = await Promise.all(
      Array.from({ length: options.processes }, async (_, worker) => {
        let store: RedisStore | undefined;
        if (options.redis !== undefined) {
          const client = createClient({ url: options.redis, socket: { reconnectStrategy: () => 20 } });
          client.on('error', () => {});
          await client.connect();
          clients.push(client);
          store = new RedisStore({
            client,
            prefix,
            clock: 'caller',
            probeInterval: 5,
            // Never reached: the clock waits for Redis's answers, and a killed Redis is seen gone at once (the
            // floor too: the wait would adapt down to 250 ms of a busy machine's real time).
            timeout: 10_000,
            minTimeout: 10_000,
            onFallback: () => fallbacks.push({ worker, at: clock.now() - START }),
            onResume: () => resumes.push({ worker, at: clock.now() - START }),
          });
          stores.push(store);
        }
        const feature =
          options.feature === 'pacer'
            ? {
                pacer: new Pacer(
                  store === undefined ? {} : { store: tracked(store.pacer, clock) as Pacer.Store },
                ),
              }
            : {
                circuitBreaker: new CircuitBreaker({
                  ...(store === undefined ? {} : { store: tracked(store.breaker, clock) }),
                  onStateChange: (change) => {
                    if (change.to === 'open') trips.push(change.at - START);
                  },
                }),
              };
        return withBackoff(backend.fetch, {
          retries: options.retries ?? 20,
          deadline: options.deadline ?? 30_000,
          now: clock.now,
          timers: clock.timers,
          // Each process draws its own jitter: the same every run.
          random: () => (worker + 0.5) / options.processes,
          ...feature,
        });
      }),
    );
    const perProcess = options.calls / options.processes;
    const interval = (1000 * options.processes) / options.rate;
    sends.forEach((send, worker) => {
      for (let i = 0; i < perProcess; i++) {
        const offset = (worker * 1000) / options.rate + i * interval;
        clock.timers.setTimeout(() => {
          const started = clock.now() - START;
          const ended = (outcome: { status?: number; error?: string }) =>
            calls.push({ worker, started, ended: clock.now() - START, ...outcome });
          void send('https://api.test/work').then(
            async (response) => {
              await response.text();
              ended({ status: response.status });
            },
            (error: unknown) =>
              ended({ error: (error as { code?: string })?.code ?? (error as Error)?.name }),
          );
        }, offset);
      }
    });
    options.during?.((ms, act) => clock.timers.setTimeout(act, ms), {
      down: backend.down,
      clients,
      stores,
    });
    await clock.run();
  } finally {
    for (const store of stores) store.close();
    for (const client of clients) client.destroy();
  }
  return {
    arrivals: backend.arrivals.map((arrival) => ({ ...arrival, at: arrival.at - START })),
    calls,
    trips,
    fallbacks,
    resumes,
    throttled: backend.arrivals.filter((arrival) => arrival.status === 429).length,
    last: Math.max(...calls.map((call) => call.ended)),
  };
}

/** Every Redis client gone (`false`) or back (`true`), waited for in real time. */
export const clientsReady = (
  clients: ReadonlyArray<{ readonly isReady: boolean }>,
  ready: boolean,
): Promise<void> =>
  until(
    () => clients.every((client) => client.isReady === ready),
    `every client ${ready ? 'connected' : 'disconnected'}`,
  );

/** Every store shared again, waited for in real time. */
export const storesShared = (stores: readonly RedisStore[]): Promise<void> =>
  until(() => stores.every((store) => !store.local), 'every store shared again');
