import { VirtualClock } from '@backoff/test-utils/virtual-clock';
import { createClient } from '../harness/clients.js';
import type { ClientName, PageRequest, Settled } from '../harness/types.js';

/** What the page has seen of the call in flight. */
export interface OfflineState {
  /** Attempts handed to the browser so far. */
  readonly attempts: number;
  /** `waitingForNetwork` of every onRetry event, in order. */
  readonly waitingForNetwork: boolean[];
  /** Backoff waits started so far on the virtual clock (each ends at once). */
  readonly waits: number[];
  readonly onLine: boolean;
  /** The call's outcome once it settled. */
  readonly settled: Settled | undefined;
}

/** What the offline probe page exposes to the Node side. */
export interface OfflineProbe {
  /** Starts one call through `client` to `apiBase` (another origin); it runs on while the Node side watches. */
  start(apiBase: string, client: ClientName, request: Omit<PageRequest, 'signal' | 'backoff'>): void;
  state(): OfflineState;
}

declare global {
  interface Window {
    offline: OfflineProbe;
  }
}

let attempts = 0;
let waitingForNetwork: boolean[] = [];
let clock = new VirtualClock();
let settled: Settled | undefined;

// No MSW: the requests go over real sockets to a node:http server, so the browser's offline mode fails them
// for real. The backoff waits run on a virtual clock (each ends at once), so only the network can hold a retry
// back; the network status is the page's own (navigator.onLine and the `online` event), nothing injected.
window.offline = {
  start(apiBase, client, request) {
    attempts = 0;
    waitingForNetwork = [];
    clock = new VirtualClock();
    settled = undefined;
    const options = {
      random: () => 0.5,
      timers: clock.timers,
      now: clock.now,
      onRetry: (event: { waitingForNetwork: boolean }) => {
        waitingForNetwork.push(event.waitingForNetwork);
      },
    };
    void createClient(client, apiBase, options, () => attempts++)
      .send(request)
      .then((result) => {
        settled = result;
      });
  },
  state: () => ({
    attempts,
    waitingForNetwork: [...waitingForNetwork],
    waits: [...clock.waits],
    onLine: navigator.onLine,
    settled,
  }),
};
