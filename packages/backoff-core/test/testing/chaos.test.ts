import { withBackoff } from 'backoff-core';
import { type Answer, chaos } from 'backoff-core/testing';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { server, time } from './support.ts';

const URL = 'http://api.test/items';
// The app's own handler, behind the chaos.
const app = http.get(URL, () => HttpResponse.json({ items: [] }));

/** What `n` plain fetches get through a fresh chaos handler made with `options`. */
async function run(options: Parameters<typeof chaos>[0], n = 20): Promise<Answer[]> {
  const handler = chaos(options);
  server.use(handler, app);
  for (let i = 0; i < n; i++) await time.run(fetch(URL).catch(() => undefined));
  server.resetHandlers();
  return handler.requests.map((r) => r.answer as Answer);
}

describe('chaos', () => {
  it('is repeatable from its seed: the same faults for the same requests, others for another seed', async () => {
    const options = { seed: 42, failRate: 0.3, resetRate: 0.1 };
    const first = await run(options);
    expect(await run(options)).toEqual(first);
    expect(await run({ ...options, seed: 43 })).not.toEqual(first);
    // Seed 42's first twenty: 7 passed, 8 failed, 5 reset.
    // biome-ignore format: one request per column.
    expect(first).toEqual([
      'passed', 503, 504, 503, 502, 'network-error', 'network-error', 'network-error', 'passed', 'network-error',
      502, 'passed', 503, 'passed', 'passed', 'network-error', 503, 'passed', 504, 'passed',
    ]);
  });

  it('passes the rest on to the handlers behind it', async () => {
    server.use(chaos({ seed: 1 }), app);
    const response = await fetch(URL);
    expect(await response.json()).toEqual({ items: [] });
  });

  it('fails with the statuses given, and resets connections', async () => {
    expect(await run({ seed: 1, failRate: 1, statuses: [429] }, 3)).toEqual([429, 429, 429]);
    expect(await run({ seed: 1, resetRate: 1 }, 2)).toEqual(['network-error', 'network-error']);
  });

  it('adds latency on the kit’s clock: a fixed one, or one drawn in [min, max]', async () => {
    const fixed = chaos({ seed: 5, latency: 250 });
    server.use(fixed, app);
    for (let i = 0; i < 4; i++) await time.run(fetch(URL));
    expect(time.elapsed).toBe(1000);
    server.resetHandlers();
    const drawn = chaos({ seed: 5, latency: [100, 300] });
    server.use(drawn, app);
    for (let i = 0; i < 10; i++) {
      const before = time.now();
      await time.run(fetch(URL));
      expect(time.now() - before).toBeGreaterThanOrEqual(100);
      expect(time.now() - before).toBeLessThanOrEqual(300);
    }
  });

  it("a client's retries ride out the faults: every call ends in the app's answer", async () => {
    server.use(chaos({ seed: 7, failRate: 0.3, resetRate: 0.1, latency: 50 }), app);
    const api = withBackoff(fetch, { ...time.options, retries: 10 });
    for (let i = 0; i < 10; i++) {
      const response = await time.run(api(URL));
      expect(response.status).toBe(200);
    }
  });

  it('names bad options', () => {
    expect(() => chaos({} as never)).toThrow(
      'Expected `chaos.seed` to be given: a number that makes the faults repeatable ({ seed: 42 }).',
    );
    expect(() => chaos({ seed: 1, failRate: 1.5 })).toThrow(
      'Expected `chaos.failRate` to be a number from 0 to 1, got 1.5.',
    );
    expect(() => chaos({ seed: 1, statuses: [200] })).toThrow(
      'Expected `chaos.statuses[0]` to be an integer from 400 to 599, got 200.',
    );
    expect(() => chaos({ seed: 1, latency: [300, 100] })).toThrow(
      'Expected `chaos.latency` to be [min, max] with min <= max, got [300, 100].',
    );
  });
});
