import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_OUT, parseCli, REPO_ROOT } from '../src/cli.js';

describe('parseCli', () => {
  it('has the default scenarios and sizes', () => {
    const config = parseCli([]) ?? expect.unreachable();
    expect(config.scenarios).toEqual(['herd', 'contention', 'amplification', 'dead-backend', 'pacing']);
    expect(config.herd).toMatchObject({ clients: 1000, downFor: 10_000, capacity: 200, retries: 10 });
    expect(config.contention).toMatchObject({ minClients: 10, maxClients: 190, step: 10, runs: 5 });
    expect(config.amplification).toMatchObject({
      rate: 100,
      duration: 60_000,
      failFrom: 10_000,
      failTo: 40_000,
    });
    expect(config.deadBackend).toMatchObject({
      rate: 100,
      downFrom: 10_000,
      downTo: 70_000,
      duration: 100_000,
    });
    expect(config.out).toBe(DEFAULT_OUT);
    expect(DEFAULT_OUT).toBe(join(REPO_ROOT, '.simulate'));
  });

  it('scales down with --quick, and explicit flags still win', () => {
    const config = parseCli(['--quick', '--clients', '50', '--seed', '9', '--only', 'amplification,herd']);
    expect(config?.herd.clients).toBe(50);
    expect(config?.herd.seed).toBe(9);
    expect(config?.contention.runs).toBe(2);
    expect(config?.scenarios).toEqual(['herd', 'amplification']);
    expect(parseCli(['--out', 'charts'])?.out).toBe(join(REPO_ROOT, 'charts'));
    expect(parseCli(['--out', '/tmp/x'])?.out).toBe('/tmp/x');
    expect(parseCli(['--help'])).toBeUndefined();
  });

  it('names the flag that is wrong', () => {
    expect(() => parseCli(['--clients', '0'])).toThrow(
      new RangeError('Expected `--clients` to be an integer from 1 to 1000000, got "0".'),
    );
    expect(() => parseCli(['--down', 'ten'])).toThrow(/`--down`/);
    expect(() => parseCli(['--retries', '2.5'])).toThrow(RangeError);
    expect(() => parseCli(['--clientz', '5'])).toThrow(TypeError);
    expect(() => parseCli(['--only', 'herd,storm'])).toThrow(/`--only`.*"storm"/);
    expect(() => parseCli(['--min-clients', '50', '--max-clients', '20'])).toThrow(/`--min-clients`/);
    expect(() => parseCli(['--fail-from', '40', '--fail-to', '10'])).toThrow(/`--fail-from`/);
  });
});
