import { Pacer } from 'backoff-core';
import type { TimerProvider } from 'backoff-core/adapter';

type Hold = Pacer.StoreHold;

/**
 * A shared pacer store whose round trips stall: each operation is applied to an in-memory store at once (as a
 * server applies a command when it arrives), and the answers a call waits for (`reserve`, `confirm`, `read`) come
 * `stall()` ms later on `timers` (a virtual clock's), as a slow or blocked server's reply would; a stall of 0
 * answers with a Promise all the same. `learn` and `release`, which no call waits for, answer with a settled
 * Promise: a background reply set on the clock would only move it on while a real socket is busy. `granted` holds
 * every hold it answered, `released` every hold given back: a hold granted and neither sent nor given back is quota
 * leaked.
 */
export class StallingPacerStore implements Pacer.Store {
  readonly memory: Pacer.MemoryStore;
  readonly granted: Hold[] = [];
  readonly released: Hold[] = [];
  /** Answers not yet delivered. */
  pending = 0;
  readonly #timers: TimerProvider;
  readonly #stall: () => number;

  constructor(options: { timers: TimerProvider; stall: () => number; memory?: Pacer.MemoryStore }) {
    this.#timers = options.timers;
    this.#stall = options.stall;
    this.memory = options.memory ?? new Pacer.MemoryStore({ shared: true });
  }

  #later<V>(value: V): Promise<V> {
    this.pending++;
    return new Promise((resolve) => {
      this.#timers.setTimeout(() => {
        this.pending--;
        resolve(value);
      }, this.#stall());
    });
  }

  #answer(reservation: Pacer.StoreReservation): Promise<Pacer.StoreReservation> {
    if (typeof reservation === 'object' && reservation.type === 'held') this.granted.push(reservation);
    return this.#later(reservation);
  }

  reserve(...args: Parameters<Pacer.Store['reserve']>): Promise<Pacer.StoreReservation> {
    return this.#answer(this.memory.reserve(...args));
  }

  confirm(...args: Parameters<NonNullable<Pacer.Store['confirm']>>): Promise<Pacer.StoreReservation> {
    return this.#answer(this.memory.confirm(...args));
  }

  release(key: string, hold: Hold, now: number): Promise<void> {
    this.released.push(hold);
    return Promise.resolve(this.memory.release(key, hold, now));
  }

  learn(...args: Parameters<Pacer.Store['learn']>): Promise<void> {
    return Promise.resolve(this.memory.learn(...args));
  }

  read(key: string, now: number): Promise<number> {
    return this.#later(this.memory.read(key, now));
  }
}

/** The stalls in turn, over and over: `stall` for a store whose every answer takes the next of `stalls` (ms). */
export function cycling(stalls: readonly number[]): () => number {
  let answer = 0;
  return () => stalls[answer++ % stalls.length] as number;
}
