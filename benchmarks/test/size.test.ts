// The size measure, in memory (esbuild builds nothing to disk): what a default import holds, how chunks are
// counted, and that every budget is kept.
import { beforeAll, describe, expect, it } from 'vitest';
import { bundle } from '../src/bundle.js';
import {
  budgetFor,
  featureModules,
  featureWords,
  overBudget,
  runSize,
  type SizeResult,
  sizeRow,
} from '../src/size.js';
import { FEATURE_MODULES, FEATURE_WORDS, SIZE_ENTRIES } from '../src/size-entries.js';

const OURS = SIZE_ENTRIES.filter((entry) => entry.kind !== 'reference');
let result: SizeResult;

beforeAll(async () => {
  result = await runSize(OURS);
}, 60_000);

const row = (name: string) => {
  const found = result.rows.find((r) => r.entry.name === name);
  if (found === undefined) throw new Error(`no entry ${name}`);
  return found;
};

describe('a default import holds no code of the features it does not use', () => {
  const defaults = OURS.filter((entry) => entry.kind === 'default');

  it('measures the default import of each package, in a production and a development build', () => {
    expect(defaults.map((entry) => `${entry.name}: ${entry.mode}`)).toEqual([
      'withBackoff: production',
      'axiosBackoff: production',
      'kyBackoff: production',
      'withBackoff (development): development',
      'axiosBackoff (development): development',
      'kyBackoff (development): development',
    ]);
  });

  it.each(defaults.map((entry) => entry.name))(
    '%s: no module of hedging, the pacer, the breaker, metrics, resume or tracing',
    (name) => {
      expect(row(name).modules.length).toBeGreaterThan(10);
      expect(featureModules(row(name))).toEqual([]);
    },
  );

  // The check above can fail: each feature's entry does hold its feature's modules.
  it.each([
    ['Hedge', 'backoff-core/src/features/hedge.ts'],
    ['Pacer', 'backoff-core/src/features/pacer/pacer.ts'],
    ['CircuitBreaker', 'backoff-core/src/features/breaker/circuit-breaker.ts'],
    ['BackoffMetrics', 'backoff-core/src/features/metrics.ts'],
  ])('with %s, %s is counted, on every package', (feature, module) => {
    expect(FEATURE_MODULES.some((pattern) => pattern.test(module))).toBe(true);
    for (const base of defaults) {
      const used = result.rows.find(
        (r) => r.entry.base === base.name && r.entry.name.includes(` + ${feature}`),
      );
      if (used === undefined) throw new Error(`no entry of ${base.name} with ${feature}`);
      expect(used.modules.map((share) => share.module)).toContain(module);
      expect(featureModules(used).length).toBeGreaterThan(0);
      expect(used.gzipBytes).toBeGreaterThan(row(base.name).gzipBytes);
    }
  });
});

describe("a default import's code says no word of the features it does not use", () => {
  const defaults = OURS.filter((entry) => entry.kind === 'default').map((entry) => entry.name);

  // The modules above miss a feature's part that sits in a module of the core: the code itself does not.
  it.each(defaults)(
    '%s: no word only hedging, the pacer, the breaker, metrics, resume or tracing say',
    (name) => {
      expect(featureWords(row(name).code)).toEqual([]);
    },
  );

  // The check above can fail: each feature's entry says every word of its feature (resume's and the trace's in
  // the chunks they load).
  it.each(Object.keys(FEATURE_WORDS))(
    'with %s, each of its words is in the bundle, on every package',
    (feature) => {
      const words = (FEATURE_WORDS[feature] ?? []).map((word) => `${feature}: ${word}`);
      expect(words.length).toBeGreaterThan(0);
      for (const base of defaults) {
        const used = result.rows.find((r) => r.entry.base === base && r.entry.name.includes(` + ${feature}`));
        if (used === undefined) throw new Error(`no entry of ${base} with ${feature}`);
        expect(featureWords(`${used.code}\n${used.lazyCode}`)).toEqual(expect.arrayContaining(words));
      }
    },
  );
});

describe('the test kit stays out of an app', () => {
  const KIT = /^(?:backoff-core\/src\/testing|msw\/)/;
  const kitModules = (r: ReturnType<typeof row>) =>
    [...r.modules, ...r.lazyModules].map((share) => share.module).filter((module) => KIT.test(module));

  it.each(['withBackoff', 'axiosBackoff', 'kyBackoff'])(
    '%s holds no module of backoff-core/testing or msw',
    (name) => {
      expect(kitModules(row(name))).toEqual([]);
    },
  );

  // The check above can fail: an entry that imports the kit holds its modules.
  it('an entry that imports backoff-core/testing holds the kit', async () => {
    const entry = {
      name: 'kit',
      code: "export { flaky, virtualTime } from 'backoff-core/testing';",
      external: ['msw'],
      kind: 'reference' as const,
      mode: 'production' as const,
    };
    const kit = sizeRow(entry, await bundle(entry));
    expect(kitModules(kit)).toContain('backoff-core/src/testing/clock.ts');
  });
});

describe('counting', () => {
  it('counts the entry and its static chunks; a chunk behind import() is listed apart, not counted', async () => {
    const entry = {
      name: 'lazy core',
      code: "export const load = () => import('backoff-core');",
      external: [],
      kind: 'reference' as const,
      mode: 'production' as const,
    };
    const lazy = sizeRow(entry, await bundle(entry));
    expect(lazy.gzipBytes).toBeLessThan(200);
    expect(lazy.modules.some((share) => share.module.startsWith('backoff-core/'))).toBe(false);
    expect(lazy.lazyGzipBytes).toBeGreaterThan(row('withBackoff').gzipBytes);
    expect(lazy.lazyModules.map((share) => share.module)).toContain('backoff-core/src/run/run.ts');
  });

  it('the client is left out: no axios or ky module is counted', () => {
    for (const r of result.rows) {
      expect(r.modules.filter((share) => /^(?:axios|ky)\//.test(share.module))).toEqual([]);
    }
  });

  it('a budget is the measured size x 1.10, rounded up to 10 bytes', () => {
    expect(budgetFor(10_000)).toBe(11_000);
    expect(budgetFor(10_001)).toBe(11_010);
    expect(budgetFor(9_999)).toBe(11_000);
  });
});

describe('budgets', () => {
  it('every default and feature entry has one', () => {
    expect(OURS.filter((entry) => entry.budget === undefined).map((entry) => entry.name)).toEqual([]);
  });

  it('no entry is over its budget', () => {
    expect(overBudget(result).map((r) => `${r.entry.name}: ${r.gzipBytes} > ${r.entry.budget}`)).toEqual([]);
  });
});

describe('the production build', () => {
  const modulesOf = (name: string) => row(name).modules.map((share) => share.module);

  it.each(['withBackoff', 'axiosBackoff', 'kyBackoff'])(
    "%s: the peers' names are in the development build only, and the production build is smaller",
    (name) => {
      expect(modulesOf(`${name} (development)`)).toContain('backoff-core/src/options/peer-names.ts');
      expect(modulesOf(name)).not.toContain('backoff-core/src/options/peer-names.ts');
      expect(row(name).gzipBytes).toBeLessThan(row(`${name} (development)`).gzipBytes);
    },
  );

  // Text each development message carries beside its code: a peer's name, a key's problem, a hook's misstep.
  const DEVELOPMENT_TEXT = [
    /ky's \\?`jitter/,
    /is not visible ASCII/,
    /cannot be sent as it is/,
    /removed or changed it/,
    /to be set to a string without line breaks/,
  ];

  it.each(['withBackoff', 'axiosBackoff', 'kyBackoff'])(
    '%s: the production build holds no development message text, the development build does',
    (name) => {
      for (const text of DEVELOPMENT_TEXT) {
        expect(row(name).code).not.toMatch(text);
        expect(row(`${name} (development)`).code).toMatch(text);
      }
    },
  );
});
