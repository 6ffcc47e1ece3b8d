import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import ky, * as kyNamespace from 'ky';
import ky1, * as ky1Namespace from 'ky-1';
import { getBackoffResult, kyBackoff, RetryBudget } from 'ky-backoff';
import { describe, expect, it } from 'vitest';

describe('kyBackoff()', () => {
  it('returns a new instance and leaves the given one alone', () => {
    const api = kyBackoff(ky);
    expect(api).not.toBe(ky);
    expect(typeof api.get).toBe('function');
    expect(api.stop).toBe(ky.stop);
    expect(api.retry).toBe(ky.retry);
  });

  it('rejects what is not a ky instance, naming it', () => {
    const message = 'Expected `instance` to be a ky instance.';
    expect(() => kyBackoff({} as never)).toThrow(new TypeError(message));
    expect(() => kyBackoff(undefined as never)).toThrow(new TypeError(message));
    expect(() => kyBackoff((() => {}) as never)).toThrow(new TypeError(message));
  });

  it("says to pass `.default` when handed ky’s module namespace (CommonJS `require('ky')`, `import * as`)", () => {
    const message =
      "Expected `instance` to be a ky instance, got ky's module namespace: pass its `default` export.";
    // Node's own require(esm), as CommonJS code gets it: ky 2 is ESM-only.
    const required = createRequire(import.meta.url)('ky') as { default: typeof ky };
    for (const namespace of [required, kyNamespace, ky1Namespace]) {
      expect(() => kyBackoff(namespace as never)).toThrow(new TypeError(message));
    }
    expect(typeof kyBackoff(required.default).get).toBe('function');
  });

  it('validates the options at creation, with the core’s messages', () => {
    expect(() => kyBackoff(ky, { retries: -1 })).toThrow(
      new RangeError('Expected `retries` to be an integer from 0 to 100, got -1.'),
    );
    expect(() => kyBackoff(ky, { jitter: 'some' as never })).toThrow(TypeError);
    expect(() => kyBackoff(ky, { nope: true } as never)).toThrow(
      new TypeError('Unknown backoff option `nope`.'),
    );
  });

  it('refuses to install twice on one instance, or on one derived from it', () => {
    const message =
      'kyBackoff is already installed on this instance: wrap the instance it came from, or pass `backoff` per request.';
    for (const base of [ky, ky1] as const) {
      const api = kyBackoff(base);
      expect(() => kyBackoff(api)).toThrow(new TypeError(message));
      expect(() => kyBackoff(api.extend({ timeout: 5000 }))).toThrow(new TypeError(message));
      // Each wrap of the original is independent.
      expect(() => kyBackoff(base)).not.toThrow();
    }
  });

  it('re-exports what a caller needs from the core', () => {
    expect(typeof getBackoffResult).toBe('function');
    expect(new RetryBudget({ reserve: 1 }).available).toBe(1);
  });

  it('takes everything ky-related from the instance: no runtime import of ky in its sources', async () => {
    const folder = new URL('../src/', import.meta.url);
    const files = (await readdir(folder)).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(3);
    for (const name of files) {
      const source = await readFile(new URL(name, folder), 'utf8');
      for (const [statement] of source.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+'ky[^']*';/gms)) {
        expect(statement, `${name}: ${statement}`).toMatch(/^\s*import\s+type\b/);
      }
    }
  });
});
