import { VirtualClock } from '@backoff/test-utils';
import { getBackoffResult } from 'backoff-core';
import { Hedge, kyBackoff } from 'ky-backoff';
import { describe, expect, it } from 'vitest';
import { CLIENTS, KY_1_13, type LooseKy } from './support/clients.ts';

describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  'hedging on ky: %s',
  (_name, client) => {
    it('a throwing onHedge ends the call with its error, as on every client: one attempt, no hedge, every copy aborted', async () => {
      const clock = new VirtualClock();
      clock.auto = false;
      const signals: AbortSignal[] = [];
      // Never answers: each copy ends only when it is aborted.
      const fetch = (request: Request) => {
        signals.push(request.signal);
        return new Promise<Response>((_, reject) => {
          request.signal.addEventListener('abort', () => reject(request.signal.reason));
        });
      };
      const failure = new Error('onHedge failed');
      const api = kyBackoff(client.ky.create({ fetch, timeout: false }), {
        hedge: new Hedge({ delay: 50 }),
        timers: clock.timers,
        now: clock.now,
        onHedge: () => {
          throw failure;
        },
      }) as LooseKy;
      const pending = api('https://api.test/items').catch((error: unknown) => error);
      expect(await clock.nextWait()).toBe(50);
      clock.advance(50);
      const error = await pending;
      expect(error).toBe(failure);
      // The first copy was sent: one attempt; the hedge that onHedge was told of never went, so it is no hedge.
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'callback-error', hedges: 0 });
      expect(signals).toHaveLength(1);
      expect(signals[0]?.aborted).toBe(true);
    });
  },
);
