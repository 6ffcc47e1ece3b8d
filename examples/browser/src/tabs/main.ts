import { Pacer, TabStore, withBackoff } from 'backoff-core';

/** What one call ended with. */
export interface TabCall {
  readonly status: number | undefined;
  readonly error: string | undefined;
}

/** What the tabs probe page exposes to the Node side. */
export interface TabsProbe {
  /** Whether this tab leads (holds the Web Lock). */
  leader(): boolean;
  /** Sends `calls` GETs to `url` at `interval` ms, the first at `start` (ms since the epoch), paced through the tabs' store. */
  run(url: string, calls: number, interval: number, start: number): Promise<TabCall[]>;
  /** Reserves a send on `key` now, through the shared store: the hold's slot, or 0 when it may go at once. */
  reserve(key: string): Promise<number>;
  /** Tells the shared store that `key`'s quota is spent for `ms` (10 per second after). */
  spend(key: string, ms: number): Promise<void>;
}

declare global {
  interface Window {
    tabs: TabsProbe;
  }
}

const store = new TabStore('backoff-tabs-probe');
const pacer = new Pacer({ store: store.pacer });
const send = withBackoff(fetch, { pacer, retries: 20 });
const LIMITS = { maxRetryAfter: 60_000, stated: undefined };

window.tabs = {
  leader: () => store.leader,
  async run(url, calls, interval, start) {
    const results: Promise<TabCall>[] = [];
    for (let i = 0; i < calls; i++) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + i * interval - Date.now())));
      results.push(
        send(url).then(
          async (response) => {
            await response.text();
            return { status: response.status, error: undefined };
          },
          (error: unknown) => ({ status: undefined, error: String(error) }),
        ),
      );
    }
    return Promise.all(results);
  },
  async reserve(key) {
    const reserved = await store.pacer.reserve(key, Date.now(), Number.POSITIVE_INFINITY, () => 0, LIMITS);
    return typeof reserved === 'number' ? 0 : reserved.type === 'held' ? reserved.slot : -1;
  },
  async spend(key, ms) {
    const now = Date.now();
    await store.pacer.learn(
      key,
      { status: 200, ticket: 0, sentAt: now, serverDelay: undefined, remaining: 0, reset: ms, interval: 100 },
      now,
      LIMITS,
    );
  },
};
