import { VirtualClock } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { kyBackoff } from 'ky-backoff';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENTS, type LooseKy } from './support/clients.ts';
import { kyErrorKind } from './support/driver.ts';
import { SocketServer } from './support/socket-server.ts';

/** A one-shot upload: a ReadableStream of `parts`, as a caller streaming a file would pass it. */
const stream = (...parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });

describe.each(CLIENTS.map((client) => [client.name, client] as const))(
  'request bodies: %s',
  (_name, client) => {
    let server: SocketServer | undefined;
    afterEach(async () => {
      vi.restoreAllMocks();
      await server?.close();
      server = undefined;
    });

    const setup = async (steps: Parameters<typeof SocketServer.start>[0]) => {
      server = await SocketServer.start(steps);
      const clock = new VirtualClock();
      const api = kyBackoff(client.ky, {
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
      }) as LooseKy;
      return { api, server };
    };

    it('JSON, text, URLSearchParams, Blob and ArrayBuffer bodies are sent again byte for byte', async () => {
      const bodies: Array<[Record<string, unknown>, string]> = [
        [{ json: { n: 1, s: 'é' } }, '{"n":1,"s":"é"}'],
        [{ body: 'plain text' }, 'plain text'],
        [{ body: new URLSearchParams({ a: '1', b: '2' }) }, 'a=1&b=2'],
        [{ body: new Blob(['blob body']) }, 'blob body'],
        [{ body: new TextEncoder().encode('bytes').buffer }, 'bytes'],
      ];
      for (const [options, sent] of bodies) {
        const { api, server } = await setup([503, 'reset', 200]);
        const response = await api(`${server.url}/items`, { method: 'put', ...options });
        expect(response.status).toBe(200);
        expect(server.hits.map((hit) => hit.body)).toEqual([sent, sent, sent]);
        await server.close();
      }
    });

    it('a stream body is sent once: a 503 after it is final, and the reason says why', async () => {
      const { api, server } = await setup([503, 200]);
      const error = await api(`${server.url}/upload`, {
        method: 'put',
        body: stream('part 1, ', 'part 2'),
      }).catch((e: unknown) => e);
      expect(kyErrorKind(client, error)).toBe('http');
      expect(server.hits.map((hit) => hit.body)).toEqual(['part 1, part 2']);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'body-not-replayable' });
    });

    it('a stream body whose connection is reset is not sent again', async () => {
      const { api, server } = await setup(['reset', 200]);
      const error = await api(`${server.url}/upload`, { method: 'put', body: stream('data') }).catch(
        (e: unknown) => e,
      );
      expect(kyErrorKind(client, error)).toBe('network');
      expect(server.hits).toHaveLength(1);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'body-not-replayable' });
    });

    it('a Request given as the input, with its own body, is sent once', async () => {
      const { api, server } = await setup([503, 200]);
      const request = new Request(`${server.url}/orders`, { method: 'PUT', body: 'inside the request' });
      const error = await api(request).catch((e: unknown) => e);
      expect(kyErrorKind(client, error)).toBe('http');
      expect(server.hits.map((hit) => hit.body)).toEqual(['inside the request']);
      expect(getBackoffResult(error)?.reason).toBe('body-not-replayable');
    });

    if (client.major === 2) {
      it('ky 2 is told not to retry a stream body, so it never tees it into memory', async () => {
        const { api, server } = await setup([200]);
        const clone = vi.spyOn(Request.prototype, 'clone');
        await api(`${server.url}/upload`, { method: 'put', body: stream('a large upload') });
        expect(clone).not.toHaveBeenCalled();
        // The control: a replayable body is cloned before each attempt, ready for a retry.
        await api(`${server.url}/upload`, { method: 'put', body: 'small' });
        expect(clone).toHaveBeenCalled();
      });
    } else {
      it('ky 1 clones (tees) every request before sending it, stream or not: ky 1 itself does, retries or not', async () => {
        const { server } = await setup([200]);
        const clone = vi.spyOn(Request.prototype, 'clone');
        await client.ky(`${server.url}/upload`, { method: 'put', body: stream('data'), retry: 0 });
        expect(clone).toHaveBeenCalled();
      });
    }
  },
);
