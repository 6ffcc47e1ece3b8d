// ky's own `timeout` is per attempt already: `attemptTimeout`, withBackoff's, fails loudly here and says so.
import { API, ScriptedApi } from '@backoff/test-utils';
import { kyBackoff } from 'ky-backoff';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLIENTS, KY_1_13 } from './support/clients.ts';

const server = new ScriptedApi();
beforeAll(() => server.listen());
afterEach(() => server.reset());
afterAll(() => server.close());

describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  'attemptTimeout is not taken by ky-backoff: %s',
  (_name, client) => {
    it("kyBackoff(instance, { attemptTimeout }) throws, pointing to ky's own timeout", () => {
      expect(() => kyBackoff(client.ky, { attemptTimeout: 200 })).toThrow(
        new TypeError(
          "`attemptTimeout` is withBackoff's option, not ky-backoff's (in the options of `kyBackoff`, got 200): ky's own `timeout` is already per attempt, each retry gets all of it. Set ky's `timeout` instead (`timeout: 200`); `totalTimeout` (ky 2) or `deadline` bounds the whole call.",
        ),
      );
    });

    it('a request whose `backoff` sets attemptTimeout rejects and sends nothing; without it ky times each attempt', async () => {
      const route = server.script('/items', [200]);
      const api = kyBackoff(client.ky);
      await expect(api(`${API}/items`, { backoff: { attemptTimeout: 200 } } as never)).rejects.toThrow(
        new TypeError(
          "`attemptTimeout` is withBackoff's option, not ky-backoff's (in this request's `backoff`, got 200): ky's own `timeout` is already per attempt, each retry gets all of it. Set ky's `timeout` instead (`timeout: 200`); `totalTimeout` (ky 2) or `deadline` bounds the whole call.",
        ),
      );
      expect(route.hits).toHaveLength(0);
      const response = await api(`${API}/items`, { timeout: 200 } as never);
      expect(response.status).toBe(200);
      expect(route.hits).toHaveLength(1);
    });
  },
);
