import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { VirtualClock } from '@backoff/test-utils';
import { getBackoffResult, withBackoff } from 'backoff-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/**
 * `attemptTimeout` against a real server on 127.0.0.1 that stalls the requests it is told to: the stalled attempt is
 * cut and retried by the usual rules, inside the deadline and under the caller's abort. Counted on the server.
 */

interface Arrival {
  readonly method: string;
  readonly key: string | undefined;
  /** Resolves when the client closed the connection before an answer (a cut attempt). */
  readonly closed: Promise<void>;
}

class StallingServer {
  readonly arrivals: Arrival[] = [];
  /** How the n-th request (0-based) is answered: a status, or `'stall'` (held until the client gives up). */
  script: ReadonlyArray<number | 'stall'> = [];
  #server: Server | undefined;
  #waiters: Array<() => void> = [];
  readonly #stalled = new Set<ServerResponse>();
  base = '';

  async listen(): Promise<void> {
    this.#server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const step = this.script[Math.min(this.arrivals.length, this.script.length - 1)] ?? 200;
      let closed!: () => void;
      this.arrivals.push({
        method: request.method ?? '',
        key: request.headers['idempotency-key'] as string | undefined,
        closed: new Promise<void>((resolve) => {
          closed = resolve;
        }),
      });
      response.on('close', () => {
        if (!response.writableEnded) closed();
      });
      request.resume();
      for (const wake of this.#waiters.splice(0)) wake();
      // No kept-alive sockets: a test's stalled connections are closed after it, and none is reused by the next.
      if (step === 'stall') this.#stalled.add(response);
      else response.writeHead(step, { 'content-type': 'text/plain', connection: 'close' }).end(String(step));
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async arrived(count: number): Promise<void> {
    while (this.arrivals.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  reset(): void {
    for (const response of this.#stalled) response.destroy();
    this.#stalled.clear();
    this.arrivals.length = 0;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

describe('attemptTimeout on withBackoff, against a server that stalls', () => {
  const server = new StallingServer();
  beforeAll(() => server.listen());
  afterEach(() => server.reset());
  afterAll(() => server.close());

  // The socket is real; time is not. The clock moves only when a test says so, and a test says so only once the
  // server holds the attempt: a busy machine can neither cut an attempt before it arrives nor let one run long.
  let clock: VirtualClock;
  beforeEach(() => {
    clock = new VirtualClock();
    clock.auto = false;
  });
  const fetchWith = (options: Parameters<typeof withBackoff>[1] = {}) =>
    withBackoff(fetch, {
      baseDelay: 10,
      random: () => 0.5,
      now: clock.now,
      timers: clock.timers,
      ...options,
    });
  /** Once the server holds its `count`-th request, runs out the wait the call started (its attempt's timer). */
  const cutAfter = async (count: number) => {
    await server.arrived(count);
    clock.advance(await clock.nextWait());
  };
  /** Runs out the next wait the call starts (a retry's). */
  const waitOut = async () => clock.advance(await clock.nextWait());

  it('a stalled first attempt is cut at 200 ms and the second one answers within the deadline', async () => {
    server.script = ['stall', 200];
    const pending = fetchWith({ attemptTimeout: 200, deadline: 2000 })(`${server.base}/items`);
    await cutAfter(1);
    await waitOut();
    const response = await pending;
    expect(response.status).toBe(200);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'success' });
    expect(server.arrivals).toHaveLength(2);
    // The cut attempt's connection was closed by the client, not left open.
    await server.arrivals[0]?.closed;
    // The cut at 200 ms, a 5 ms retry wait, the second attempt's own 200 ms, cleared when it answered.
    expect(clock.waits).toEqual([200, 5, 200]);
    expect(clock.pendingCount).toBe(0);
  });

  it('every attempt stalled: the last one is a timeout, retried up to `retries`, the error a TimeoutError', async () => {
    server.script = ['stall'];
    const pending = fetchWith({ attemptTimeout: 50, retries: 2 })(`${server.base}/items`).catch((e) => e);
    await cutAfter(1);
    await waitOut();
    await cutAfter(2);
    await waitOut();
    await cutAfter(3);
    const error = await pending;
    expect(error).toBeInstanceOf(DOMException);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(String(error.message)).toMatch(/attemptTimeout \(50 ms\)/);
    expect(getBackoffResult(error)).toMatchObject({ attempts: 3, reason: 'retries-exhausted' });
    expect(server.arrivals).toHaveLength(3);
  });

  it("the caller's abort during a stalled attempt ends the call at once: no further send", async () => {
    server.script = ['stall', 200];
    const controller = new AbortController();
    const started = clock.now();
    const pending = fetchWith({ attemptTimeout: 5000 })(`${server.base}/items`, {
      signal: controller.signal,
    });
    await server.arrived(1);
    controller.abort();
    const error = await pending.catch((e) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'aborted' });
    // At once: no time passed and no timer ran out. No further send: no retry wait was started, none is pending.
    expect(clock.now()).toBe(started);
    expect(clock.waits).toEqual([5000]);
    expect(clock.pendingCount).toBe(0);
    expect(server.arrivals).toHaveLength(1);
  });

  it('a keyless POST that timed out is not sent again; a keyed one is, with its key', async () => {
    server.script = ['stall', 201];
    const keyless = fetchWith({ attemptTimeout: 100 })(`${server.base}/orders`, {
      method: 'POST',
      body: '{"n":1}',
    }).catch((e) => e);
    await cutAfter(1);
    const error = await keyless;
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    expect(server.arrivals).toHaveLength(1);

    server.reset();
    const keyed = fetchWith({ attemptTimeout: 100 })(`${server.base}/orders`, {
      method: 'POST',
      body: '{"n":1}',
      headers: { 'Idempotency-Key': '"order-1"' },
    });
    await cutAfter(1);
    await waitOut();
    expect((await keyed).status).toBe(201);
    expect(server.arrivals.map((arrival) => arrival.key)).toEqual(['"order-1"', '"order-1"']);
  });

  it("an attemptTimeout longer than the deadline's remainder is cut at the deadline", async () => {
    server.script = ['stall'];
    const pending = fetchWith({ attemptTimeout: 10_000, deadline: 300 })(`${server.base}/items`).catch(
      (e) => e,
    );
    await cutAfter(1);
    const error = await pending;
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(clock.waits).toEqual([300]);
    expect(getBackoffResult(error)).toMatchObject({ attempts: 1 });
    expect(server.arrivals).toHaveLength(1);
  });

  it('an answer within attemptTimeout leaves no timer behind: the call is as without one', async () => {
    server.script = [200];
    const response = await fetchWith({ attemptTimeout: 10_000 })(`${server.base}/items`);
    expect(response.status).toBe(200);
    await response.text();
    expect(getBackoffResult(response)).toMatchObject({ attempts: 1, reason: 'success' });
    expect(clock.waits).toEqual([10_000]);
    expect(clock.pendingCount).toBe(0);
  });
});
