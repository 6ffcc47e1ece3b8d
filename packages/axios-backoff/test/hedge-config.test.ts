import { VirtualClock } from '@backoff/test-utils';
import axios, { type AxiosAdapter, type InternalAxiosRequestConfig } from 'axios';
import { axiosBackoff, Hedge } from 'axios-backoff';
import { getBackoffResult } from 'backoff-core';
import { describe, expect, it } from 'vitest';

/** An adapter that answers only when the test says so; each copy's config is kept. */
function heldAdapter() {
  const sent: { config: InternalAxiosRequestConfig; answer(status: number): void }[] = [];
  const adapter: AxiosAdapter = (config) =>
    new Promise((resolve, reject) => {
      config.signal?.addEventListener?.('abort', () => reject(new axios.CanceledError('aborted')));
      sent.push({
        config,
        answer: (status) => resolve({ data: 'ok', status, statusText: '', headers: {}, config, request: {} }),
      });
    });
  return { adapter, sent };
}

describe('axios: a hedge that wins', () => {
  it("the caller's response shows the caller's own config, not the hedged copy's", async () => {
    const clock = new VirtualClock();
    clock.auto = false;
    const { adapter, sent } = heldAdapter();
    const api = axios.create({ adapter, headers: { 'x-team': 'a' } });
    axiosBackoff(api, { hedge: new Hedge({ delay: 50 }), timers: clock.timers, now: clock.now });
    const caller = new AbortController();
    const pending = api.get('https://api.test/items', { signal: caller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(50);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(2);
    // Each copy goes out with a signal of its own, which follows the caller's.
    expect(sent[1]?.config.signal).not.toBe(caller.signal);
    sent[1]?.answer(200);
    const response = await pending;
    expect(getBackoffResult(response)).toMatchObject({ attempts: 1, hedges: 1, hedgeWon: true });
    expect(response.config).not.toBe(sent[1]?.config);
    expect(response.config.signal).toBe(caller.signal);
    expect(response.config.headers['x-team']).toBe('a');
    // The first copy lost: it was aborted through its own signal, not through the caller's.
    expect(sent[0]?.config.signal?.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
  });
});
