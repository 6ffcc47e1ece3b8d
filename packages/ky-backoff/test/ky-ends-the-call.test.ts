import { VirtualClock } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { kyBackoff } from 'ky-backoff';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENTS, type KyClient, type LooseKy } from './support/clients.ts';
import { kyErrorKind } from './support/driver.ts';

// ky 2 ends a call on its own in places it never asks about (an afterResponse hook that throws, its totalTimeout
// running out during a wait or a body read): it then runs beforeError once, and kyBackoff's call must end with it.
// Each case used to leave the call waiting for an attempt ky would never send, so the caller's promise never settled.
const KY_2 = CLIENTS.filter((client) => client.major === 2);

/** A fetch that counts its calls and answers each with `answer()`. */
function counted(answer: () => Response) {
  const calls: Request[] = [];
  const fetch = async (input: Request | string | URL) => {
    calls.push(input instanceof Request ? input : new Request(input));
    return answer();
  };
  return { fetch, calls };
}

/** kyBackoff over `client` with its waits on a virtual clock (a wait nobody advances would hang the test). */
function wrapped(client: KyClient, fetch: (input: Request | string | URL) => Promise<Response>) {
  const clock = new VirtualClock();
  const api = kyBackoff(client.ky.create({ fetch }), {
    baseDelay: 1,
    random: () => 0.5,
    timers: clock.timers,
    now: clock.now,
  }) as LooseKy;
  return { api, clock };
}

describe.each(KY_2.map((client) => [client.name, client] as const))(
  'ky ends the call itself: %s',
  (_name, client) => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("an afterResponse hook that throws another request's HTTPError ends the call with that error, nothing sent again", async () => {
      const { fetch, calls } = counted(() => new Response('ok'));
      const { api, clock } = wrapped(client, fetch);
      const failing = async () => new Response('x', { status: 500 });
      const error = await api('https://api.test/items', {
        hooks: {
          afterResponse: [
            () => client.ky('https://auth.test/refresh', { method: 'post', fetch: failing, retry: 0 }),
          ],
        },
      }).catch((error: unknown) => error);
      expect(kyErrorKind(client, error)).toBe('http');
      expect((error as { response: Response }).response.status).toBe(500);
      expect(calls).toHaveLength(1);
      expect(clock.waits).toEqual([]);
      expect(getBackoffResult(error)?.reason).toBe('callback-error');
    });

    it('an afterResponse hook that throws ends the call with its error; shouldRetry is not asked about it, as ky does not', async () => {
      const { fetch, calls } = counted(() => new Response('ok'));
      const { api, clock } = wrapped(client, fetch);
      const shouldRetry = vi.fn(() => true);
      const error = await api('https://api.test/items', {
        retry: { limit: 2, shouldRetry },
        hooks: {
          afterResponse: [
            () => {
              throw new Error('hook');
            },
          ],
        },
      }).catch((error: unknown) => error);
      expect(error).toEqual(new Error('hook'));
      expect(shouldRetry).not.toHaveBeenCalled();
      expect(calls).toHaveLength(1);
      expect(clock.waits).toEqual([]);
    });

    it("a retry an afterResponse hook forces, longer than what is left of totalTimeout, ends with ky's TimeoutError", async () => {
      const { fetch, calls } = counted(() => new Response('ok'));
      const { api, clock } = wrapped(client, fetch);
      // ky's own timers and `performance.now()` (its totalTimeout) are fake; the core's waits are on the clock.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const pending = api('https://api.test/items', {
        totalTimeout: 1000,
        hooks: { afterResponse: [() => client.ky.retry({ delay: 2000 })] },
      }).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(1000);
      const error = await pending;
      expect(kyErrorKind(client, error)).toBe('timeout');
      expect(calls).toHaveLength(1);
      expect(clock.waits).toEqual([]);
      expect(getBackoffResult(error)?.reason).toBe('deadline');
    });

    it("totalTimeout running out while ky reads a failed response's endless body ends with ky's TimeoutError", async () => {
      // A 500 whose body never ends: ky reads it into HTTPError.data until its totalTimeout stops it.
      const endless = () =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new Uint8Array([123]));
            },
          }),
          { status: 500 },
        );
      const { fetch, calls } = counted(endless);
      const { api, clock } = wrapped(client, fetch);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const pending = api('https://api.test/items', { timeout: false, totalTimeout: 250, retry: 1 }).catch(
        (error: unknown) => error,
      );
      await vi.advanceTimersByTimeAsync(250);
      const error = await pending;
      expect(kyErrorKind(client, error)).toBe('timeout');
      expect(calls).toHaveLength(1);
      expect(clock.waits).toEqual([]);
      expect(getBackoffResult(error)?.reason).toBe('deadline');
    });
  },
);
