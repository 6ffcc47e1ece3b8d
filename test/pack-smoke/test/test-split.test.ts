// `pnpm test:unit` and `pnpm test:integration` together run every test file `vitest run` runs, each once: the
// file lists come from vitest itself, resolving each root config as the scripts do (nothing is run).
import { relative } from 'node:path';
import { expect, it } from 'vitest';
import { createVitest } from 'vitest/node';
import { INTEGRATION, setTestKind } from '../../../vitest.split.ts';
import { ROOT } from '../src/repo.ts';

/** Every test file a run takes, as `project: path (pool)`: the type tests apart. Each root config sets its kind. */
async function filesOf(config: string): Promise<string[]> {
  const vitest = await createVitest('test', {
    config: `${ROOT}/${config}`,
    root: ROOT,
    watch: false,
    run: true,
  });
  try {
    const specs = await vitest.globTestSpecifications();
    return specs
      .map((spec) => `${spec.project.name}: ${relative(ROOT, spec.moduleId)} (${spec.pool})`)
      .sort();
  } finally {
    await vitest.close();
    setTestKind(undefined);
  }
}

it('the unit and integration runs together take every test file once', { timeout: 60_000 }, async () => {
  const all = await filesOf('vitest.config.ts');
  const unit = await filesOf('vitest.unit.config.ts');
  const integration = await filesOf('vitest.integration.config.ts');
  expect(all.length).toBeGreaterThan(100);
  expect(unit.length).toBeGreaterThan(all.length / 2);
  expect(integration.length).toBeGreaterThan(10);
  expect(unit.filter((file) => integration.includes(file))).toEqual([]);
  expect([...unit, ...integration].sort()).toEqual(all);
  // Every file the split names exists: a renamed test would otherwise move to the unit run unnoticed.
  for (const [project, files] of Object.entries(INTEGRATION)) {
    if (files === 'all') {
      expect(
        integration.some((file) => file.startsWith(`${project}: `)),
        project,
      ).toBe(true);
      continue;
    }
    for (const file of files) {
      expect(
        integration.some((listed) => listed.startsWith(`${project}: `) && listed.includes(file)),
        file,
      ).toBe(true);
    }
  }
});
