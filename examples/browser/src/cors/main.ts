import { VirtualClock } from '@backoff/test-utils/virtual-clock';
import { createClient } from '../harness/clients.js';
import type { ClientName, PageRequest, Settled } from '../harness/types.js';

/** How the probe's client is set up: without the plugin, with its defaults, or with `idempotencyKey: 'auto'`. */
export type Variant = 'plain' | 'backoff' | 'backoff-auto-key';

/** What the preflight probe page exposes to the Node side. */
export interface CorsProbe {
  /** Sends one request to `apiBase` (another origin) with the client set up as `variant`. */
  send(
    apiBase: string,
    client: ClientName,
    variant: Variant,
    request: Omit<PageRequest, 'signal' | 'backoff'>,
  ): Promise<Settled>;
}

declare global {
  interface Window {
    cors: CorsProbe;
  }
}

// No MSW on this page: every request goes over a real socket to the cross-origin test server, so the browser
// itself decides whether a CORS preflight is needed. Waits run on a virtual clock (nothing to wait for here).
window.cors = {
  send(apiBase, client, variant, request) {
    const clock = new VirtualClock();
    const base = { random: () => 0.5, timers: clock.timers, now: clock.now };
    const options =
      variant === 'plain'
        ? undefined
        : variant === 'backoff'
          ? base
          : { ...base, idempotencyKey: 'auto' as const };
    return createClient(client, apiBase, options).send(request);
  },
};
