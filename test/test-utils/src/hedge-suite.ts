import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BackoffMetrics, type BackoffOptions, CircuitBreaker, Hedge, Pacer, RetryBudget } from 'backoff-core';
import { describe, expect, it } from 'vitest';
import type { BackoffClientDriver, SuiteRequest } from './behaviour-suite.js';
import { serveTests } from './serve-tests.js';
import { VirtualClock } from './virtual-clock.js';

/** One request as the server saw it; `closed` resolves when its connection closed before it was answered. */
interface Arrival {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly response: ServerResponse;
  readonly closed: Promise<void>;
  answer(status: number, headers?: Record<string, string>): void;
}

/**
 * A real server on 127.0.0.1 that holds every request until the test answers it, and records when a held
 * request's connection is closed by the client: what a server sees of an aborted hedge.
 */
class HoldingServer {
  readonly arrivals: Arrival[] = [];
  #waiters: Array<() => void> = [];
  #server: Server | undefined;
  base = '';

  async listen(): Promise<void> {
    this.#server = createServer((request, response) => {
      let closed!: () => void;
      const arrival: Arrival = {
        method: request.method ?? '',
        headers: request.headers,
        response,
        closed: new Promise<void>((resolve) => {
          closed = resolve;
        }),
        answer: (status, headers = {}) =>
          response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('ok'),
      };
      response.on('close', () => {
        if (!response.writableEnded) closed();
      });
      request.resume();
      this.arrivals.push(arrival);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Resolves once `count` requests have arrived. */
  async arrived(count: number): Promise<void> {
    while (this.arrivals.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  reset(): void {
    for (const arrival of this.arrivals) if (!arrival.response.writableEnded) arrival.answer(200);
    this.arrivals.length = 0;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

/**
 * Hedged requests through one client, against a real server that counts what arrives and sees a loser's
 * connection close: the first answer wins, the other copy is aborted, only what may be sent twice is hedged,
 * and the budget, the caller's abort and the metrics hold. The hedge timer runs on a virtual clock.
 */
export function describeHedgingClient(driver: BackoffClientDriver): void {
  describe(`hedging suite: ${driver.name}`, () => {
    const server = new HoldingServer();
    let clock: VirtualClock;
    serveTests(server, () => clock);

    const client = (options: BackoffOptions = {}) => {
      clock = new VirtualClock();
      clock.auto = false;
      return driver.create(server.base, {
        hedge: new Hedge({ delay: 50 }),
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
        ...options,
      });
    };
    const GET: SuiteRequest = { method: 'GET', path: '/items' };

    it('a slow request is hedged: the hedge answers first and wins, the slow copy is aborted', async () => {
      const pending = client().send(GET);
      await server.arrived(1);
      clock.advance(50);
      await server.arrived(2);
      server.arrivals[1]?.answer(200);
      const settled = await pending;
      expect(settled).toMatchObject({ ok: true, status: 200 });
      expect(settled.result).toMatchObject({ attempts: 1, hedges: 1, hedgeWon: true, reason: 'success' });
      // The server sees the loser's connection closed; no third copy is sent.
      await server.arrivals[0]?.closed;
      expect(server.arrivals).toHaveLength(2);
    });

    it('an answer before the delay sends no hedge', async () => {
      const pending = client().send(GET);
      await server.arrived(1);
      server.arrivals[0]?.answer(200);
      const settled = await pending;
      expect(settled.result).toMatchObject({ hedges: 0, hedgeWon: false });
      clock.advance(1000);
      expect(server.arrivals).toHaveLength(1);
    });

    it('the first copy still wins when it answers first; the hedge is aborted', async () => {
      const pending = client().send(GET);
      await server.arrived(1);
      clock.advance(50);
      await server.arrived(2);
      server.arrivals[0]?.answer(200);
      expect((await pending).result).toMatchObject({ hedges: 1, hedgeWon: false });
      await server.arrivals[1]?.closed;
    });

    it('a keyless POST is sent once, however slow', async () => {
      const pending = client().send({ method: 'POST', path: '/orders', json: { item: 1 } });
      await server.arrived(1);
      clock.advance(50);
      server.arrivals[0]?.answer(200);
      expect((await pending).result).toMatchObject({ hedges: 0 });
      expect(server.arrivals).toHaveLength(1);
    });

    it('a keyed POST is hedged, every copy with the same key and body', async () => {
      const headers = { 'Idempotency-Key': '"order-1"' };
      const pending = client().send({ method: 'POST', path: '/orders', json: { item: 1 }, headers });
      await server.arrived(1);
      clock.advance(50);
      await server.arrived(2);
      server.arrivals[1]?.answer(201);
      expect(await pending).toMatchObject({ ok: true, status: 201, result: { hedges: 1 } });
      expect(server.arrivals.map((arrival) => arrival.headers['idempotency-key'])).toEqual([
        '"order-1"',
        '"order-1"',
      ]);
      expect(server.arrivals.map((arrival) => arrival.method)).toEqual(['POST', 'POST']);
    });

    it('beforeAttempt shapes each copy apart: every copy goes with the headers its own call made', async () => {
      const copies: number[] = [];
      const pending = client({
        beforeAttempt: ({ headers, copy }) => {
          copies.push(copy);
          headers.set('x-copy', String(copy));
        },
      }).send(GET);
      await server.arrived(1);
      clock.advance(50);
      await server.arrived(2);
      server.arrivals[1]?.answer(200);
      expect(await pending).toMatchObject({ ok: true, status: 200, result: { hedges: 1, hedgeWon: true } });
      expect(copies).toEqual([1, 2]);
      expect(server.arrivals.map((arrival) => arrival.headers['x-copy'])).toEqual(['1', '2']);
    });

    it("a hedge's copy whose beforeAttempt changed the Idempotency-Key is not sent; the next copy goes", async () => {
      const headers = { 'Idempotency-Key': '"order-1"' };
      const pending = client({
        hedge: new Hedge({ delay: 50, max: 2 }),
        beforeAttempt: ({ headers, copy }) => {
          headers.set('x-copy', String(copy));
          if (copy === 2) headers.set('Idempotency-Key', '"order-2"');
        },
      }).send({ method: 'POST', path: '/orders', json: { item: 1 }, headers });
      await server.arrived(1);
      clock.advance(50);
      clock.advance(50);
      // Copy 2 would have left before copy 3: the second request the server sees is copy 3.
      await server.arrived(2);
      server.arrivals[1]?.answer(201);
      expect(await pending).toMatchObject({ ok: true, status: 201, result: { hedgeWon: true } });
      expect(server.arrivals.map((arrival) => arrival.headers['x-copy'])).toEqual(['1', '3']);
      expect(server.arrivals.map((arrival) => arrival.headers['idempotency-key'])).toEqual([
        '"order-1"',
        '"order-1"',
      ]);
    });

    it('a copy not sent because beforeAttempt took its key away is no hedge: not counted, not charged', async () => {
      const metrics = new BackoffMetrics();
      const budget = new RetryBudget({ reserve: 5 });
      const pending = client({
        metrics,
        budget,
        hedge: new Hedge({ delay: 50, max: 2 }),
        beforeAttempt: ({ headers, copy }) => {
          headers.set('x-copy', String(copy));
          if (copy === 2) headers.delete('Idempotency-Key');
        },
      }).send({
        method: 'POST',
        path: '/orders',
        json: { item: 1 },
        headers: { 'Idempotency-Key': '"order-1"' },
      });
      await server.arrived(1);
      clock.advance(50);
      clock.advance(50);
      await server.arrived(2);
      server.arrivals[0]?.answer(201);
      // Copy 3 went, copy 2 did not: one hedge, one token.
      expect(await pending).toMatchObject({ ok: true, status: 201, result: { hedges: 1, hedgeWon: false } });
      expect(server.arrivals.map((arrival) => arrival.headers['x-copy'])).toEqual(['1', '3']);
      expect(metrics.snapshot()).toMatchObject({ attempts: 1, hedges: 1 });
      expect(budget.snapshot()).toMatchObject({ acquired: 1, refused: 0 });
    });

    it('an empty budget sends no hedge', async () => {
      const pending = client({ budget: new RetryBudget({ reserve: 0 }) }).send(GET);
      await server.arrived(1);
      clock.advance(50);
      server.arrivals[0]?.answer(200);
      expect((await pending).result).toMatchObject({ hedges: 0 });
      expect(server.arrivals).toHaveLength(1);
    });

    it('an open circuit sends no hedge: the circuit opens while the first copy is out', async () => {
      const breaker = new CircuitBreaker({ consecutiveFailures: 1 });
      const api = client({ circuitBreaker: breaker, retries: 0 });
      const slow = api.send(GET);
      await server.arrived(1);
      const failing = api.send({ method: 'GET', path: '/down' });
      await server.arrived(2);
      server.arrivals[1]?.answer(503);
      await failing;
      clock.advance(50);
      server.arrivals[0]?.answer(200);
      expect((await slow).result).toMatchObject({ hedges: 0 });
      expect(server.arrivals).toHaveLength(2);
    });

    it('a hedge the pacer would hold is not sent', async () => {
      const api = client({ pacer: new Pacer(), retries: 0 });
      const first = api.send(GET);
      await server.arrived(1);
      // One request a second, spent: the next send waits for the reset, and its hedge for the slot after it.
      server.arrivals[0]?.answer(200, {
        ratelimit: '"default";r=0;t=1',
        'ratelimit-policy': '"default";q=1;w=1',
      });
      await first;
      const second = api.send(GET);
      // Held until the reset (a second, its slot 5% longer, half of that margin drawn at random 0.5).
      const held = await clock.nextWait();
      expect(held).toBe(1025);
      clock.advance(held);
      await server.arrived(2);
      expect(await clock.nextWait()).toBe(50);
      clock.advance(50);
      server.arrivals[1]?.answer(200);
      expect((await second).result).toMatchObject({ hedges: 0, held: 1025 });
      expect(server.arrivals).toHaveLength(2);
    });

    it("the caller's abort closes every copy", async () => {
      const caller = new AbortController();
      const pending = client().send({ ...GET, signal: caller.signal });
      await server.arrived(1);
      clock.advance(50);
      await server.arrived(2);
      caller.abort();
      const settled = await pending;
      expect(settled.ok).toBe(false);
      if (!settled.ok) expect(driver.errorKind(settled.error)).toBe('abort');
      await Promise.all(server.arrivals.map((arrival) => arrival.closed));
    });

    it('BackoffMetrics counts the hedge and its win apart from attempts', async () => {
      const metrics = new BackoffMetrics();
      const pending = client({ metrics }).send(GET);
      await server.arrived(1);
      clock.advance(50);
      await server.arrived(2);
      server.arrivals[1]?.answer(200);
      await pending;
      expect(metrics.snapshot()).toMatchObject({ calls: 1, attempts: 1, hedges: 1, hedgeWins: 1 });
    });
  });
}
