import { describe, it } from 'vitest';
import { PROPERTIES } from './properties.ts';

/**
 * The long run behind `pnpm fuzz`: FUZZ_RUNS cases per property (vitest.fuzz.config.ts sets 100,000), from a new
 * seed each time unless FUZZ_SEED is set. A failure prints the seed and path that replay it.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 100_000);
const SEED = process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) };

describe(`fuzz (long run, ${RUNS} cases per property)`, () => {
  it.each(PROPERTIES.map((property) => [property.name, property] as const))(
    '%s',
    { timeout: 30 * 60_000 },
    async (_name, property) => {
      const started = performance.now();
      await property.run({ numRuns: RUNS, ...SEED });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`fuzz: ${RUNS} cases in ${seconds} s: ${property.name}\n`);
    },
  );
});
