import { VirtualClock } from '@backoff/test-utils';
import { getBackoffResult, type RetryEvent } from 'backoff-core';
import { kyBackoff } from 'ky-backoff';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENTS, type LooseKy } from './support/clients.ts';
import { kyErrorKind } from './support/driver.ts';
import { SocketServer } from './support/socket-server.ts';

// What only a real socket can do, against a node:http server on 127.0.0.1; every count is the server's own.
describe.each(CLIENTS.map((client) => [client.name, client] as const))(
  'socket failures: %s',
  (_name, client) => {
    const servers: SocketServer[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((server) => server.close()));
    });

    const start = async (steps: Parameters<typeof SocketServer.start>[0], port?: number) => {
      const server = await SocketServer.start(steps, port);
      servers.push(server);
      return server;
    };
    const api = (options = {}) => {
      const clock = new VirtualClock();
      const instance = kyBackoff(client.ky, {
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
        ...options,
      });
      return { api: instance as LooseKy, clock };
    };

    it('a connection reset before the response is retried for a GET', async () => {
      const server = await start(['reset', 'reset', 200]);
      const { api: ky, clock } = api();
      const response = await ky(`${server.url}/items`);
      expect(response.status).toBe(200);
      expect(server.hits).toHaveLength(3);
      expect(clock.waits).toEqual([500, 1000]);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 3, totalDelay: 1500 });
    });

    it('a keyless POST whose connection is reset is not sent again', async () => {
      const server = await start(['reset', 201]);
      const { api: ky } = api();
      const error = await ky(`${server.url}/orders`, { method: 'post', json: { n: 1 } }).catch(
        (e: unknown) => e,
      );
      expect(kyErrorKind(client, error)).toBe('network');
      expect(server.hits).toHaveLength(1);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    });

    it('a POST with an Idempotency-Key is re-sent after a reset, same key and same body', async () => {
      const server = await start(['reset', 201]);
      const { api: ky } = api();
      const response = await ky(`${server.url}/orders`, {
        method: 'post',
        headers: { 'Idempotency-Key': '"k-9"' },
        json: { n: 1 },
      });
      expect(response.status).toBe(201);
      expect(server.hits.map((hit) => [hit.headers['idempotency-key'], hit.body])).toEqual([
        ['"k-9"', '{"n":1}'],
        ['"k-9"', '{"n":1}'],
      ]);
    });

    it('every attempt reset: the last network error, after `retries` retries', async () => {
      const server = await start(['reset']);
      const { api: ky } = api({ retries: 2 });
      const error = await ky(`${server.url}/items`).catch((e: unknown) => e);
      expect(kyErrorKind(client, error)).toBe('network');
      expect(server.hits).toHaveLength(3);
      expect(getBackoffResult(error)).toMatchObject({
        attempts: 3,
        totalDelay: 1500,
        reason: 'retries-exhausted',
      });
    });

    it('connection refused, then the server comes up: the retry gets through', async () => {
      const port = await SocketServer.freePort();
      const events: RetryEvent[] = [];
      let recovered: SocketServer | undefined;
      const { api: ky } = api({
        // The first attempt found nothing listening; the server starts before the retry is sent.
        onRetry: (event: RetryEvent) => {
          events.push(event);
        },
      });
      const instance = (ky as LooseKy).extend({
        hooks: {
          beforeRetry: [
            async () => {
              recovered ??= await start([200], port);
            },
          ],
        },
      });
      const response = await instance(`http://127.0.0.1:${port}/items`);
      expect(response.status).toBe(200);
      expect(events.map((event) => event.reason)).toEqual(['not-sent']);
      expect(recovered?.hits).toHaveLength(1);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 2 });
    });

    it('a 503 whose body is cut off mid-way is still retried (its body is never read)', async () => {
      const server = await start([{ status: 503, midBodyReset: true }, 200]);
      const { api: ky } = api();
      const response = await ky(`${server.url}/items`);
      expect(response.status).toBe(200);
      expect(server.hits).toHaveLength(2);
    });

    it('a 200 whose body is cut off is not retried: the response was already handed over', async () => {
      const server = await start([{ status: 200, midBodyReset: true }, 200]);
      const { api: ky } = api();
      const response = await ky(`${server.url}/items`);
      await expect(response.text()).rejects.toThrow();
      expect(server.hits).toHaveLength(1);
    });
  },
);
