import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { VirtualClock } from './virtual-clock.js';

/** A server the tests of one `describe` share (the scripted API, or a real one on 127.0.0.1). */
export interface TestServer {
  listen(): unknown;
  reset(): void;
  close(): unknown;
}

/**
 * Serves `server` to the tests around the call: listening before them, closed after them. After each test no wait
 * may outlive its call (every timer the client set on the test's `clock` has fired or been cleared), and the
 * server's script and counts start over.
 */
export function serveTests(server: TestServer, clock: () => VirtualClock): void {
  beforeAll(() => server.listen());
  afterEach(() => {
    expect(clock().pendingCount).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());
}
