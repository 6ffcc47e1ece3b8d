import { fail } from '../options/check.js';
import type { Admission, Circuit, CircuitRules, CircuitTransition } from './breaker/rules.js';
import { type CircuitStore, MemoryCircuitStore } from './breaker/store.js';
import type { Answer, Hold, PaceLimits, Reservation } from './pacer/rules.js';
import { MemoryPacerStore, type PacerStore } from './pacer/store.js';

/** Options of a `TabStore`. */
export interface TabStoreOptions {
  /**
   * How long a tab waits for the leader's answer, in ms: past it, the tab paces and breaks on its own until the
   * leader answers again (a leader tab frozen in the background, say).
   * @default 250
   */
  timeout?: number | undefined;
}

/** What the Web Locks API looks like, as far as the store uses it. */
interface Locks {
  request(name: string, callback: () => Promise<unknown>): Promise<unknown>;
}

/** A question to the leader, and its answer. */
type Message =
  | {
      readonly type: 'ask';
      readonly id: number;
      readonly from: string;
      readonly op: string;
      readonly args: unknown[];
    }
  | { readonly type: 'answer'; readonly id: number; readonly to: string; readonly result: unknown };

const locksOf = (): Locks | undefined =>
  (globalThis as { navigator?: { locks?: Locks } }).navigator?.locks ?? undefined;

/**
 * One quota and one view of each backend across the tabs of one origin: a store for the `Pacer` (`tabs.pacer`)
 * and the `CircuitBreaker` (`tabs.breaker`), named by a channel name (tabs with the same name share). The tab
 * that holds the Web Lock of that name is the leader and keeps every pace and circuit in its memory; the others
 * ask it over a BroadcastChannel, one message each way per operation. A tab that closes gives its held slots
 * back; a closing leader lets go of its lock, and the next tab that asks becomes the leader (starting afresh).
 * An answer that takes longer than `timeout` (250 ms) is made in the tab's own memory. Where BroadcastChannel or
 * Web Locks do not exist (a worker without them, Node before 24), both stores are plain in-memory stores.
 */
export class TabStore {
  /** The store for `new Pacer({ store })`. */
  readonly pacer: PacerStore;
  /** The store for `new CircuitBreaker({ store })`. */
  readonly breaker: CircuitStore;
  /** Whether this tab shares with others (both APIs exist): else its stores are its own memory. */
  readonly shared: boolean;
  readonly #timeout: number;
  readonly #id = Math.random().toString(36).slice(2);
  readonly #channel: BroadcastChannel | undefined;
  /** The leader's state (this tab's, while it leads), and this tab's own when the leader is slow. */
  readonly #paces = new MemoryPacerStore({ shared: true });
  readonly #circuits = new MemoryCircuitStore();
  readonly #local = new MemoryPacerStore({ shared: true });
  readonly #localCircuits = new MemoryCircuitStore();
  #leader = false;
  #closed = false;
  #stepDown: (() => void) | undefined;
  #next = 0;
  readonly #waiting = new Map<number, (result: unknown) => void>();
  /** Holds this tab was given and has not sent or given back: given back when it closes. */
  readonly #holds = new Map<Hold, string>();
  readonly #onHide = () => this.close();

  constructor(channel: string, options: TabStoreOptions = {}) {
    if (typeof channel !== 'string' || channel === '') {
      fail(
        'channel',
        channel,
        `a non-empty string (tabs with the same one share a quota), got ${typeof channel === 'string' ? '""' : typeof channel}`,
      );
    }
    const timeout = options.timeout ?? 250;
    if (!(typeof timeout === 'number' && timeout > 0 && Number.isFinite(timeout))) {
      fail('timeout', timeout, `a number of ms above 0, got ${String(timeout)}`, RangeError);
    }
    this.#timeout = timeout;
    const locks = locksOf();
    this.shared = typeof BroadcastChannel === 'function' && locks !== undefined;
    if (!this.shared || locks === undefined) {
      this.#channel = undefined;
      this.pacer = this.#paces;
      this.breaker = this.#circuits;
      return;
    }
    const name = `backoff:${channel}`;
    this.#channel = new BroadcastChannel(name);
    this.#channel.onmessage = (event: MessageEvent<Message>) => this.#hear(event.data);
    // The lock is held for as long as this tab leads: until it closes (the browser lets go of a closed tab's locks).
    locks
      .request(name, () => {
        if (this.#closed) return Promise.resolve();
        this.#leader = true;
        return new Promise<void>((resolve) => {
          this.#stepDown = resolve;
        });
      })
      .catch(() => {});
    const target = globalThis as { addEventListener?: (type: string, listener: () => void) => void };
    target.addEventListener?.('pagehide', this.#onHide);
    this.pacer = this.#pacerStore();
    this.breaker = this.#circuitStore();
  }

  /** Whether this tab is the leader now (it holds every pace and circuit). */
  get leader(): boolean {
    return this.#leader;
  }

  /** Gives back this tab's held slots and leaves: another tab leads from then on. Called on `pagehide` too. */
  close(): void {
    if (this.#closed) return;
    for (const [hold, key] of this.#holds) void this.#ask('release', [key, hold, Date.now()]);
    this.#holds.clear();
    this.#closed = true;
    this.#leader = false;
    this.#stepDown?.();
    this.#channel?.close();
    const target = globalThis as { removeEventListener?: (type: string, listener: () => void) => void };
    target.removeEventListener?.('pagehide', this.#onHide);
    for (const resolve of this.#waiting.values()) resolve(undefined);
    this.#waiting.clear();
  }

  /** The leader answers a question; a tab hears its answer. */
  #hear(message: Message): void {
    if (message.type === 'answer') {
      if (message.to !== this.#id) return;
      this.#waiting.get(message.id)?.(message.result);
      this.#waiting.delete(message.id);
      return;
    }
    if (!this.#leader) return;
    const result = this.#apply(message.op, message.args);
    this.#channel?.postMessage({
      type: 'answer',
      id: message.id,
      to: message.from,
      result,
    } satisfies Message);
  }

  /** An operation on the leader's state. */
  #apply(op: string, args: unknown[]): unknown {
    const [key, a, b, c, d] = args as [string, unknown, unknown, unknown, unknown];
    const paces = this.#paces;
    const circuits = this.#circuits;
    switch (op) {
      case 'reserve':
        return paces.reserve(key, a as number, b as number, () => c as number, d as PaceLimits);
      case 'confirm': {
        const [, hold, now, within, r, limits] = args as [string, Hold, number, number, number, PaceLimits];
        return paces.confirm(key, hold, now, within, () => r, limits);
      }
      case 'release':
        return paces.release(key, a as Hold, b as number);
      case 'learn':
        return paces.learn(key, a as Answer, b as number, c as PaceLimits);
      case 'read':
        return paces.read(key, a as number);
      case 'admit':
        return circuits.admit(key, a as number, b as CircuitRules);
      case 'record': {
        const [, now, failed, serverDelay, probe, rules] = args as [
          string,
          number,
          boolean | undefined,
          number | undefined,
          boolean,
          CircuitRules,
        ];
        return circuits.record(key, now, failed, serverDelay, probe, rules);
      }
      default:
        return circuits.read(key);
    }
  }

  /**
   * Asks the leader (this tab itself when it leads): its answer, or `undefined` when none came within the
   * timeout (the caller then answers from this tab's own memory).
   */
  #ask(op: string, args: unknown[]): unknown | Promise<{ answered: boolean; result: unknown }> {
    if (this.#leader) return { answered: true, result: this.#apply(op, args) };
    const channel = this.#channel;
    if (channel === undefined || this.#closed) return Promise.resolve({ answered: false, result: undefined });
    const id = ++this.#next;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve({ answered: false, result: undefined });
      }, this.#timeout);
      this.#waiting.set(id, (result) => {
        clearTimeout(timer);
        resolve({ answered: !this.#closed, result });
      });
      channel.postMessage({ type: 'ask', id, from: this.#id, op, args } satisfies Message);
    });
  }

  /** `op` on the leader, else `local()`: at once when this tab leads. */
  #run<T>(op: string, args: unknown[], local: () => T): T | Promise<T> {
    const asked = this.#ask(op, args) as
      | { answered: boolean; result: unknown }
      | Promise<{ answered: boolean; result: unknown }>;
    if (!(asked instanceof Promise)) return asked.result as T;
    return asked.then(({ answered, result }) => (answered ? (result as T) : local()));
  }

  #pacerStore(): Required<PacerStore> {
    const local = this.#local;
    const holds = this.#holds;
    const keep = (key: string, reserved: Reservation) => {
      if (typeof reserved !== 'number' && reserved.type === 'held') holds.set(reserved, key);
      return reserved;
    };
    return {
      reserve: (key, now, within, random, limits) => {
        const r = random();
        const reserved = this.#run('reserve', [key, now, within, r, limits], () =>
          local.reserve(key, now, within, () => r, limits),
        );
        return reserved instanceof Promise ? reserved.then((late) => keep(key, late)) : keep(key, reserved);
      },
      confirm: (key, hold, now, within, random, limits) => {
        holds.delete(hold);
        const r = random();
        const reserved = this.#run(
          'confirm',
          [key, hold, now, within, r, limits],
          () => hold.ticket as Reservation,
        );
        return reserved instanceof Promise ? reserved.then((late) => keep(key, late)) : keep(key, reserved);
      },
      release: (key, hold, now) => {
        holds.delete(hold);
        return this.#run('release', [key, hold, now], () => local.release(key, hold, now));
      },
      learn: (key, answer, now, limits) =>
        this.#run('learn', [key, answer, now, limits], () => local.learn(key, answer, now, limits)),
      read: (key, now) => this.#run('read', [key, now], () => local.read(key, now)),
    };
  }

  #circuitStore(): CircuitStore {
    const local = this.#localCircuits;
    return {
      admit: (origin, now, rules) =>
        this.#run<Admission>('admit', [origin, now, rules], () => local.admit(origin, now, rules)),
      record: (origin, now, failed, serverDelay, probe, rules) =>
        this.#run<CircuitTransition | undefined>(
          'record',
          [origin, now, failed, serverDelay, probe, rules],
          () => local.record(origin, now, failed, serverDelay, probe, rules),
        ),
      read: (origin) =>
        this.#run<Readonly<Circuit> | undefined>('circuit', [origin], () => local.read(origin)),
      // Snapshots are of one tab's memory: the shared circuits live in the leader.
      entries: () => local.entries(),
      replace: (circuits) => local.replace(circuits),
    };
  }
}

// The options type, reached through the class (`TabStore.Options`): the main entry stays short.
export declare namespace TabStore {
  export type Options = TabStoreOptions;
}
