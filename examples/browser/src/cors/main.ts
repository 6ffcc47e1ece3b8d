import { VirtualClock } from '@backoff/test-utils/virtual-clock';
import { Pacer } from 'backoff-core';
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
  /**
   * Two GETs to `path` on `apiBase`, one after the other, through one client with a `Pacer`: what each call got,
   * and the delay of every hold `onHold` was told of.
   */
  paced(apiBase: string, client: ClientName, path: string): Promise<{ settled: Settled[]; holds: number[] }>;
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
  async paced(apiBase, client, path) {
    const clock = new VirtualClock();
    const holds: number[] = [];
    const c = createClient(client, apiBase, {
      random: () => 0.5,
      timers: clock.timers,
      now: clock.now,
      pacer: new Pacer(),
      onHold: ({ delay }) => holds.push(delay),
    });
    const settled = [await c.send({ method: 'GET', path }), await c.send({ method: 'GET', path })];
    return { settled, holds };
  },
};
