import { describe, expect, it } from 'vitest';
import { RULE_FLOOR_ENTRIES, RULE_MODULES, runRuleFloor, stubOf } from '../src/rule-floor.js';

// The measure itself (src/rule-floor.ts): that it stubs what it claims and fails loudly when the sources move. Its
// numbers are the benchmark's (`pnpm --filter @backoff/benchmarks rule-floor`), never asserted.
describe('the size floor of the design (issue 17)', () => {
  it('stubs every export of a module: functions, classes, constants and re-exports', () => {
    const stub = stubOf(
      [
        'export function a(x: number): number { return x; }',
        'export async function b() {}',
        'export class C { x = 1; }',
        'export const d = 1;',
        "export { E, F as G } from './e.js';",
        'export type H = string;',
        'function internal() {}',
      ].join('\n'),
    );
    expect(stub.split('\n')).toEqual([
      'export function a() {}',
      'export function b() {}',
      'export class C {}',
      'export const d = undefined;',
      'export const E = undefined;',
      'export const G = undefined;',
    ]);
  });

  it('builds each targeted bundle with every rule module stubbed, and each alone', async () => {
    const rows = await runRuleFloor();
    expect(rows.map((row) => row.name)).toEqual(RULE_FLOOR_ENTRIES.map((entry) => entry.name));
    for (const row of rows) {
      expect(row.floor).toBeLessThan(row.full);
      expect(Object.keys(row.perModule)).toEqual(Object.keys(RULE_MODULES));
      // Every rule module but the lean success path (axios only) is in every bundle.
      for (const [name, saved] of Object.entries(row.perModule)) {
        if (name !== 'first-try') expect(saved, name).toBeGreaterThan(0);
      }
    }
  });

  it('fails when a listed module no longer exists', async () => {
    await expect(runRuleFloor(RULE_FLOOR_ENTRIES.slice(0, 1), ['no-such-module'])).rejects.toThrow(
      /backoff-core\/src\/no-such-module\.ts does not exist/,
    );
  });
});
