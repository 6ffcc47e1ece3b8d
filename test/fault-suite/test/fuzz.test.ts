import { describe, it } from 'vitest';
import { PROPERTIES } from './fuzz/properties.ts';

/**
 * The quick run of every fuzz property, inside the test command: 300 cases each, from a fixed seed so that the
 * test run is deterministic (FUZZ_SEED picks another). The long run, 100,000 cases each from a fresh seed, is
 * `pnpm fuzz`; a failure there prints its seed and path, to replay here with FUZZ_SEED.
 */
const RUNS = 300;
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_202);

describe('fuzz (quick run)', () => {
  it.each(PROPERTIES.map((property) => [property.name, property] as const))('%s', async (_name, property) => {
    await property.run({ numRuns: RUNS, seed: SEED });
  });
});
