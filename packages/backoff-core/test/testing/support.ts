// What the kit's own tests share: one MSW server per file (each test adds its handlers) and a fresh virtual time
// for each test.
import { type VirtualTime, virtualTime } from 'backoff-core/testing';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

export const server = setupServer();

/** The running test's virtual time: a new one for each test. */
export let time: VirtualTime = virtualTime();

/** No jitter and no spread: every wait is knowable, so every arrival is exact. */
export const EXACT = { jitter: 'none', retryAfterSpread: 0 } as const;

/** Each request's arrival, in ms after the first. */
export const arrivals = (requests: readonly { at: number }[]): number[] =>
  requests.map((r) => r.at - (requests[0]?.at ?? 0));

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  server.resetHandlers();
  time.restore();
  time = virtualTime();
});
afterAll(() => server.close());
