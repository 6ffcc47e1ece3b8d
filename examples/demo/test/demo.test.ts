import { VirtualClock } from '@backoff/test-utils';
import { expect, it } from 'vitest';
import { runDemo } from '../src/demo.js';

it('the demo runs every client through every scenario, with exact waits, reasons and server-side counts', async () => {
  const clock = new VirtualClock();
  const lines: string[] = [];
  const report = await runDemo({
    log: (line) => lines.push(line),
    options: { baseDelay: 250, maxDelay: 2000, random: () => 0.5, timers: clock.timers, now: clock.now },
    now: clock.now,
  });

  const expected = (rejected: string) => [
    { outcome: '200', attempts: 4, serverHits: 4, keys: 0, waited: 2125 },
    { outcome: '200', attempts: 2, serverHits: 2, keys: 0, waited: 125 },
    { outcome: `503${rejected}`, attempts: 1, serverHits: 1, keys: 0, waited: 0 },
    // The auto key: the server saw one key, on both attempts.
    { outcome: '201', attempts: 2, serverHits: 2, keys: 1, waited: 125 },
  ];
  expect(report.summaries.map(({ client }) => client)).toEqual([
    'fetch + withBackoff',
    'axios + axios-backoff',
    'ky + ky-backoff',
  ]);
  expect(report.summaries[0]?.rows).toMatchObject(expected(''));
  expect(report.summaries[1]?.rows).toMatchObject(expected(' (rejected)'));
  expect(report.summaries[2]?.rows).toMatchObject(expected(' (rejected)'));

  // The shared budget: axios spends 3 of the 4 tokens, fetch the last one, then nobody retries.
  expect(report.sharedBudget.map(({ attempts, reason }) => [attempts, reason])).toEqual([
    [4, 'retries-exhausted'],
    [2, 'budget-exhausted'],
    [1, 'budget-exhausted'],
    [1, 'budget-exhausted'],
    [1, 'success'],
    [1, 'success'],
  ]);

  // Full jitter at 0.5 gives 125, 250, ...; the 429's 1 s floor gets 0.5 x its 1.5 s window.
  const perClient = [125, 250, 1750, 125, 125];
  // Then the circuit breaker: one retry wait in each of the 3 failing calls, and the demo's two pauses (the breaks).
  expect(clock.waits).toEqual([
    ...perClient,
    ...perClient,
    ...perClient,
    125,
    250,
    500,
    125,
    125,
    125,
    125,
    500,
    1000,
  ]);
  expect(clock.pendingCount).toBe(0);

  // The circuit: 3 failed calls trip it, the next ones fail fast with nothing sent, a failed probe doubles the
  // break, the next probe closes it. The metrics agree with the server.
  const { circuit } = report;
  expect(
    circuit.rows.map(({ client, outcome, reason, sent }) => [client.split(' ')[0], outcome, reason, sent]),
  ).toEqual([
    ['fetch', '503', 'retries-exhausted', 2],
    ['axios', '503', 'retries-exhausted', 2],
    ['ky', '503', 'retries-exhausted', 2],
    ['fetch', 'CircuitOpenError', 'circuit-open', 0],
    ['axios', 'AxiosError ERR_CIRCUIT_OPEN', 'circuit-open', 0],
    ['ky', '503', 'circuit-open', 1],
    ['fetch', 'CircuitOpenError', 'circuit-open', 0],
    ['axios', '200', 'success', 1],
    ['ky', '200', 'success', 1],
  ]);
  expect(circuit.changes.map(({ from, to }) => `${from}->${to}`)).toEqual([
    'closed->open',
    'open->half-open',
    'half-open->open',
    'open->half-open',
    'half-open->closed',
  ]);
  expect(circuit.metrics).toMatchObject({
    calls: 9,
    attempts: circuit.serverHits,
    retries: 3,
    stops: { 'retries-exhausted': 3, 'circuit-open': 4, success: 2 },
    attemptsPerCall: [3, 3, 3],
    totalWait: 375,
    circuitRefusals: 3,
    circuitChanges: { open: 2, halfOpen: 2, closed: 1 },
  });

  expect(lines).toContain('  circuitRefusals:  3');
  expect(lines.some((line) => /circuit closed -> open \(next probe in 500 ms\)$/.test(line))).toBe(true);

  const flaky = lines.slice(lines.findIndex((line) => line.includes('/fetch/1')));
  expect(flaky[2]).toMatch(/503 Service Unavailable\s+wait 125 ms \(status\)$/);
  expect(flaky[4]).toMatch(/429 Too Many Requests\s+wait 1\.75 s \(status, server asked 1\.00 s\)$/);
  expect(flaky[5]).toMatch(/200 OK\s+stop \(success\)$/);
  expect(flaky[6]).toBe('  -> 200 after 4 attempt(s), 2.13 s waited');
  expect(lines.some((line) => /socket reset\s+wait 125 ms \(network-error\)/.test(line))).toBe(true);
  expect(lines.some((line) => /503 Service Unavailable\s+stop \(method-not-idempotent\)/.test(line))).toBe(
    true,
  );
});
