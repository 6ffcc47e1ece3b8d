import { VirtualClock } from '@backoff/test-utils';
import { expect, it } from 'vitest';
import { runDemo } from '../src/demo.js';

it('the demo prints every attempt with its wait and reason, and ends in a 200 after 4 attempts', async () => {
  const clock = new VirtualClock();
  const lines: string[] = [];
  const report = await runDemo({
    log: (line) => lines.push(line),
    options: { baseDelay: 250, maxDelay: 2000, random: () => 0.5, timers: clock.timers, now: clock.now },
    now: clock.now,
  });
  expect(report).toEqual({ statuses: [200], serverHits: 4 });
  // Full jitter at 0.5: 125, 250; then the server's 1 s plus 0.5 x 200 ms of jitter.
  expect(clock.waits).toEqual([125, 250, 1100]);
  const rows = lines.filter((line) => /^ {2}\d/.test(line));
  expect(rows).toHaveLength(4);
  expect(rows[0]).toMatch(/503 Service Unavailable\s+wait 125 ms \(status\)/);
  expect(rows[2]).toMatch(/429 Too Many Requests\s+wait 1\.10 s \(status, server asked 1\.00 s\)/);
  expect(rows[3]).toMatch(/200 OK\s+stop \(success\)/);
  expect(lines.at(-1)).toBe('  -> 200 after 4 attempt(s), 1.48 s waited');
});
