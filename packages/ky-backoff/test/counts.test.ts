import { API, ScriptedApi, serveTests, VirtualClock } from '@backoff/test-utils';
import { BackoffMetrics, getBackoffResult, kyBackoff } from 'ky-backoff';
import { describe, expect, it } from 'vitest';
import { CLIENTS, KY_1_13, type LooseKy } from './support/clients.ts';
import { kyErrorKind } from './support/driver.ts';

const responseOf = (args: unknown[]) =>
  (args.length === 1 ? (args[0] as { response: Response }).response : args[2]) as Response;

// What the metrics count is what was sent, and the stop they record is what the caller got, also when one of
// the instance's own afterResponse hooks turns a 200 into a failed status.
describe.each([...CLIENTS, KY_1_13].map((client) => [client.name, client] as const))(
  'attempts and stops as the server and the caller saw them: %s',
  (_name, client) => {
    const server = new ScriptedApi();
    let clock: VirtualClock;
    serveTests(server, () => clock);

    /** An instance whose own afterResponse hook answers the first response with a 503 instead. */
    const turning = (metrics: BackoffMetrics) => {
      clock = new VirtualClock();
      let turned = false;
      const turn = (...args: unknown[]) => {
        void responseOf(args);
        if (turned) return undefined;
        turned = true;
        return new Response('overloaded', { status: 503 });
      };
      const instance = client.ky.create({ hooks: { afterResponse: [turn] } });
      return kyBackoff(instance, {
        metrics,
        random: () => 0.5,
        timers: clock.timers,
        now: clock.now,
      }) as LooseKy;
    };

    it('a 200 a hook turns into a 503 is one attempt: a GET retried once counts 2 attempts, as the server saw', async () => {
      const metrics = new BackoffMetrics();
      const route = server.script('/items', [200]);
      const response = await turning(metrics)(`${API}/items`);
      expect(response.status).toBe(200);
      expect(route.hits).toHaveLength(2);
      expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'success' });
      expect(metrics.snapshot()).toMatchObject({ calls: 1, attempts: 2, retries: 1, stops: { success: 1 } });
    });

    it('a keyless POST whose 200 a hook turns into a 503 is sent once and recorded as the stop the caller got', async () => {
      const metrics = new BackoffMetrics();
      const route = server.script('/orders', [200]);
      const error = await turning(metrics)(`${API}/orders`, { method: 'post', json: { n: 1 } }).catch(
        (caught: unknown) => caught,
      );
      expect(kyErrorKind(client, error)).toBe('http');
      expect(route.hits).toHaveLength(1);
      expect(getBackoffResult(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
      expect(metrics.snapshot()).toMatchObject({
        calls: 1,
        attempts: 1,
        stops: { 'method-not-idempotent': 1 },
      });
      expect(metrics.snapshot().stops.success).toBeUndefined();
    });
  },
);
