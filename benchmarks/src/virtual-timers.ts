/**
 * Virtual time for every library at once: while installed, `globalThis.setTimeout` / `clearTimeout` are replaced,
 * so each library's own retry waits (and ky's per-attempt timeout timers) go through this clock. That is the one
 * way to make waits instant for all five libraries identically, with their default delays left as they are: a
 * wait is recorded at the length the library asked for, and fired without any real sleep.
 *
 * - `auto` mode: one timer fires per turn of the event loop (on `setImmediate`, which is not replaced), the
 *   earliest due first, and the virtual clock jumps to its due time. The mocks answer through promises only, so
 *   every attempt has settled (and cleared its timeout timer) before the next turn: only waits ever fire.
 * - `hold` mode: timers are recorded and stay pending, to park requests in their retry wait (the memory measure).
 *
 * It is for the bench harness only (the project's tests inject `timers` or use vi fake timers instead).
 */

interface VirtualTimer {
  readonly id: number;
  readonly due: number;
  readonly ms: number;
  readonly callback: (...args: unknown[]) => void;
  readonly args: unknown[];
}

/** What `setTimeout` returns here: enough of Node's `Timeout` for the libraries that call `unref()` on it. */
class Handle {
  constructor(readonly id: number) {}
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return false;
  }
  [Symbol.toPrimitive](): number {
    return this.id;
  }
}

export type TimerMode = 'auto' | 'hold';

export class VirtualTimers {
  readonly #pending = new Map<number, VirtualTimer>();
  #nextId = 1;
  #now = 0;
  #mode: TimerMode = 'auto';
  #driving = false;
  #saved: { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout } | undefined;
  /** Timers that fired, and the sum of their lengths: the waits the libraries would have slept, in ms. */
  fired = 0;
  firedMs = 0;

  get mode(): TimerMode {
    return this.#mode;
  }

  set mode(mode: TimerMode) {
    this.#mode = mode;
    if (mode === 'auto') this.#drive();
  }

  /** Virtual ms since `install()`. */
  get now(): number {
    return this.#now;
  }

  /** Timers set and neither fired nor cleared. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  install(): this {
    if (this.#saved !== undefined) throw new Error('VirtualTimers are already installed.');
    this.#saved = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
    const set = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const delay = typeof ms === 'number' && ms > 0 ? ms : 0;
      const id = this.#nextId++;
      this.#pending.set(id, { id, due: this.#now + delay, ms: delay, callback, args });
      this.#drive();
      return new Handle(id);
    };
    const clear = (handle: unknown) => {
      if (handle instanceof Handle) this.#pending.delete(handle.id);
      else if (typeof handle === 'number') this.#pending.delete(handle);
    };
    globalThis.setTimeout = set as unknown as typeof setTimeout;
    globalThis.clearTimeout = clear as typeof clearTimeout;
    return this;
  }

  /** Puts the real timers back. Pending virtual timers are dropped (callers settle their requests first). */
  uninstall(): void {
    if (this.#saved === undefined) return;
    globalThis.setTimeout = this.#saved.setTimeout;
    globalThis.clearTimeout = this.#saved.clearTimeout;
    this.#saved = undefined;
    this.#pending.clear();
  }

  #earliest(): VirtualTimer | undefined {
    let first: VirtualTimer | undefined;
    for (const timer of this.#pending.values()) {
      if (first === undefined || timer.due < first.due) first = timer;
    }
    return first;
  }

  #drive(): void {
    if (this.#driving || this.#mode !== 'auto' || this.#pending.size === 0) return;
    this.#driving = true;
    setImmediate(() => {
      this.#driving = false;
      if (this.#mode !== 'auto') return;
      const timer = this.#earliest();
      if (timer === undefined) return;
      this.#pending.delete(timer.id);
      this.#now = Math.max(this.#now, timer.due);
      this.fired++;
      this.firedMs += timer.ms;
      try {
        timer.callback(...timer.args);
      } finally {
        this.#drive();
      }
    });
  }
}

/** Runs `body` with virtual timers installed, and always puts the real ones back. */
export async function withVirtualTimers<T>(body: (timers: VirtualTimers) => Promise<T>): Promise<T> {
  const timers = new VirtualTimers().install();
  try {
    return await body(timers);
  } finally {
    timers.uninstall();
  }
}

/** Resolves after `turns` turns of the event loop (real `setImmediate`). */
export function turns(count: number): Promise<void> {
  return new Promise((resolve) => {
    let left = count;
    const step = () => (left-- <= 0 ? resolve() : setImmediate(step));
    step();
  });
}
