import type { TimerProvider } from 'backoff-core/adapter';

/**
 * Runs `callback` as a macrotask, not a microtask, so the client's own I/O callbacks get to run between attempts:
 * Node's setImmediate, or in a page a MessageChannel message (not a timer, so neither the 4 ms clamp of nested
 * setTimeouts nor a fake clock installed in the page can delay it).
 */
function macrotask(callback: () => void): void {
  // Looked up on globalThis: a page's TypeScript config has no Node types.
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
  if (typeof immediate === 'function') {
    immediate(callback);
    return;
  }
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    callback();
  };
  channel.port2.postMessage(undefined);
}

interface Pending {
  readonly due: number;
  readonly ms: number;
  readonly callback: () => void;
}

/**
 * Virtual time for the backoff waits: `timers` and `now` to inject as options. Every wait is recorded in
 * `waits` (exact ms, no wall-clock tolerance). In `auto` mode a wait ends at once in real time while the virtual
 * clock moves by its length; with `auto = false` waits stay pending until `advance()`, for abort tests. It runs in
 * Node and in a page (examples/browser imports it from `@backoff/test-utils/virtual-clock`).
 */
export class VirtualClock {
  #now: number;
  readonly #pending = new Set<Pending>();
  readonly #waiters: Array<(ms: number) => void> = [];
  /** Every wait requested, in order, in ms. */
  readonly waits: number[] = [];
  auto = true;
  /**
   * In `auto` mode, each timer's turn fires the one due first, not the one set first: a long wait set before a
   * short one (a store's slow answer before the deadline's timer) ends after it, as in real time.
   */
  ordered = false;

  constructor(start = Date.UTC(2026, 11, 2, 12, 0, 0)) {
    this.#now = start;
  }

  readonly now = (): number => this.#now;

  readonly timers: TimerProvider = {
    setTimeout: (callback, ms) => {
      const timer: Pending = { due: this.#now + ms, ms, callback };
      this.waits.push(ms);
      this.#pending.add(timer);
      for (const resolve of this.#waiters.splice(0)) resolve(ms);
      if (this.auto) macrotask(() => this.#fire(this.ordered ? this.#first() : timer));
      return timer;
    },
    clearTimeout: (handle) => {
      this.#pending.delete(handle as Pending);
    },
  };

  /** The pending timer due first (the one set first among equals). */
  #first(): Pending | undefined {
    let first: Pending | undefined;
    for (const timer of this.#pending) if (first === undefined || timer.due < first.due) first = timer;
    return first;
  }

  #fire(timer: Pending | undefined): void {
    if (timer === undefined || !this.#pending.delete(timer)) return;
    this.#now = Math.max(this.#now, timer.due);
    timer.callback();
  }

  /** Timers set and neither fired nor cleared: must be 0 after every call (no leaked timers). */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Moves virtual time by `ms`, firing the timers that fall due. */
  advance(ms: number): void {
    const target = this.#now + ms;
    for (const timer of [...this.#pending].sort((a, b) => a.due - b.due)) {
      if (timer.due <= target) this.#fire(timer);
    }
    this.#now = target;
  }

  /** Resolves with the wait's length when the next wait starts (or the pending one, if there is one). */
  nextWait(): Promise<number> {
    const [first] = this.#pending;
    if (first) return Promise.resolve(first.ms);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Sum of all waits requested. */
  get totalWaited(): number {
    return this.waits.reduce((sum, ms) => sum + ms, 0);
  }
}
