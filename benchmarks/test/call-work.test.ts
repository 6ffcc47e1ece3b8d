import { describe, expect, it } from 'vitest';
import { CALL_WORK_ROWS, callWorkTable, measureCallWork } from '../src/call-work.js';

// The call-work count at a tiny size: it runs and reads as a table (what it counts is for the reader, not a test).
describe('the call-work count', () => {
  it('counts clock and outgoing header reads and result objects per request for every row', async () => {
    const rows = await measureCallWork(CALL_WORK_ROWS, 3);
    expect(rows.map((row) => row.spec)).toEqual(CALL_WORK_ROWS);
    for (const row of rows) {
      expect(Number.isFinite(row.clockReads)).toBe(true);
      expect(Number.isFinite(row.headerReads)).toBe(true);
      expect(row.results).toBeGreaterThan(0);
    }
    expect(callWorkTable(rows).split('\n')).toHaveLength(2 + CALL_WORK_ROWS.length);
  });
});
