import { defineConfig } from 'vitest/config';
import { setTestKind } from './vitest.split.ts';
import projects from './vitest.workspace.ts';

// Every test (`vitest run`); vitest.unit.config.ts and vitest.integration.config.ts take a part each.
setTestKind(undefined);

export default defineConfig({
  test: {
    projects,
  },
});
