import { API, ScriptedApi, serveTests, VirtualClock } from '@backoff/test-utils';
import { getBackoffResult, kyBackoff } from 'ky-backoff';
import { describe, expect, it } from 'vitest';
import { CLIENTS, KY_1_13, type LooseKy } from './support/clients.ts';

// ky's own `retry` option, as a number or `{ limit }`, is a number of retries. Given per request or by
// `.extend()` on an instance with `retries: 3`, every value means exactly that many, 3 and 4 included.
describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  "ky's `retry` option under kyBackoff: %s",
  (_name, client) => {
    const server = new ScriptedApi();
    let clock: VirtualClock;
    serveTests(server, () => clock);

    const instance = () => {
      clock = new VirtualClock();
      return kyBackoff(client.ky, {
        retries: 3,
        budget: false,
        jitter: 'none',
        baseDelay: 10,
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
      }) as LooseKy;
    };

    const ways = {
      'per request `retry: n`': (api: LooseKy, n: number, url: string) => api(url, { retry: n }),
      'per request `retry: { limit: n }`': (api: LooseKy, n: number, url: string) =>
        api(url, { retry: { limit: n } }),
      '`.extend({ retry: n })`': (api: LooseKy, n: number, url: string) => api.extend({ retry: n })(url),
      '`.extend({ retry: { limit: n } })`': (api: LooseKy, n: number, url: string) =>
        api.extend({ retry: { limit: n } })(url),
    };

    for (const [way, send] of Object.entries(ways)) {
      it(`${way} gives exactly n retries for every n from 0 to 6 (the server sees n + 1 requests)`, async () => {
        const api = instance();
        for (let n = 0; n <= 6; n++) {
          const route = server.script(`/down-${n}`, [503]);
          const error = await send(api, n, `${API}/down-${n}`).catch((caught: unknown) => caught);
          expect(route.hits, `retry ${n}`).toHaveLength(n + 1);
          expect(getBackoffResult(error), `retry ${n}`).toMatchObject({
            attempts: n + 1,
            reason: 'retries-exhausted',
          });
        }
      });
    }

    it('without a `retry` of its own a request gets the instance’s `retries`', async () => {
      const route = server.script('/down', [503]);
      await instance()(`${API}/down`).catch(() => undefined);
      expect(route.hits).toHaveLength(4);
    });
  },
);
