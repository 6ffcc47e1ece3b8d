import { API, ScriptedApi, serveTests, VirtualClock } from '@backoff/test-utils';
import ky113, { HTTPError } from 'ky-1.13.0';
import { getBackoffResult, kyBackoff } from 'ky-backoff';
import { describe, expect, it } from 'vitest';

// ky 1.13 has no `ky.retry()`: a hook cannot force a retry, so kyBackoff decides a failed response when ky throws
// its HTTPError and asks `shouldRetry` (the shared suite proves that path). With `throwHttpErrors: false` ky never
// asks: kyBackoff's fetch decides the response, and a retry rejects with an error ky retries.
describe('ky 1.13.0 (no ky.retry())', () => {
  const api = new ScriptedApi();
  let clock: VirtualClock;
  serveTests(api, () => clock);

  const client = (retries = 3) => {
    clock = new VirtualClock();
    return kyBackoff(ky113, { retries, random: () => 0.5, timers: clock.timers, now: clock.now });
  };

  it('is accepted: ky 1.13 has no `instance.retry`', () => {
    expect((ky113 as unknown as { retry?: unknown }).retry).toBeUndefined();
    expect(() => client()).not.toThrow();
  });

  it('retries a 503 through shouldRetry and ends in ky 1.13’s own HTTPError', async () => {
    const route = api.script('/down', [503]);
    const error = await client(2)(`${API}/down`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HTTPError);
    expect(route.hits).toHaveLength(3);
    expect(clock.waits).toEqual([500, 1000]);
    expect(getBackoffResult(error)).toMatchObject({ attempts: 3, reason: 'retries-exhausted' });
  });

  it('a `throwHttpErrors` function is `true` to ky 1.13, as ky reads it: the last 503 rejects with its result', async () => {
    const route = api.script('/down', [503]);
    const error = await client(1)(`${API}/down`, {
      throwHttpErrors: (status: number) => status !== 503,
    } as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HTTPError);
    expect(route.hits).toHaveLength(2);
    expect(getBackoffResult(error)).toMatchObject({ attempts: 2, reason: 'retries-exhausted' });
  });

  it('with throwHttpErrors: false, a 503 is retried as on every ky line, and the last response resolves', async () => {
    const route = api.script('/down', [503, 200]);
    const response = await client()(`${API}/down`, { throwHttpErrors: false });
    expect(response.status).toBe(200);
    expect(route.hits).toHaveLength(2);
    expect(clock.waits).toEqual([500]);
    expect(getBackoffResult(response)).toMatchObject({ attempts: 2, reason: 'success' });
  });
});
