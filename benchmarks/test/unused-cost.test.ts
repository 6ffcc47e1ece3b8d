import { describe, expect, it } from 'vitest';
import { runUnusedCost, UNUSED_COST_ENTRIES, WITHOUT_SUPPORT } from '../src/unused-cost.js';

// The measure itself (src/unused-cost.ts): that it builds what it claims and fails loudly when the sources and its
// edits part ways. Its numbers are the benchmark's (`pnpm --filter @backoff/benchmarks unused-cost`), never asserted.
const ky = UNUSED_COST_ENTRIES.filter((entry) => entry.name.startsWith('ky'));

describe('the unused cost of the circuit breaker and metrics (issue 15)', () => {
  it('builds each adapter-only bundle with and without their support: every edit applies, the support is gone', async () => {
    const rows = await runUnusedCost();
    expect(rows.map((row) => row.name)).toEqual(UNUSED_COST_ENTRIES.map((entry) => entry.name));
    for (const row of rows) {
      expect(row.withoutMin).toBeLessThan(row.withMin);
      expect(row.withoutGzip).toBeLessThan(row.withGzip);
    }
  });

  it('fails when an edit no longer matches the sources', async () => {
    const edits = { ...WITHOUT_SUPPORT, 'backoff-core/src/backoff.ts': [['not in the file', '']] as const };
    await expect(runUnusedCost(ky, edits)).rejects.toThrow(
      /expected one match in packages\/backoff-core\/src\/backoff\.ts/,
    );
  });

  it('fails when an edit is used by no bundle (the axios edits, measuring ky alone)', async () => {
    await expect(runUnusedCost(ky)).rejects.toThrow(
      /edits no bundle used:\naxios-backoff\/src\/retry-adapter\.ts/,
    );
  });

  it('fails when the bundle without the support still holds it (the options left in)', async () => {
    const { 'backoff-core/src/validate.ts': _kept, ...edits } = WITHOUT_SUPPORT;
    await expect(runUnusedCost(ky, edits)).rejects.toThrow(/kyBackoff only without the support still holds/);
  });
});
