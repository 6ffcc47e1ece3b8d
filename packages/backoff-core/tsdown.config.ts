import { defineConfig, type UserConfig } from 'tsdown';
import { builds } from '../../scripts/builds.ts';

// ESM for bundlers and `import`, CJS for `require` (many axios users are on CommonJS), each with its own
// declarations (.d.ts / .d.cts), so TypeScript's node16/nodenext resolution sees the right module kind.
// `neutral`: no Node built-ins are assumed, the same files serve browsers, workers and Node. Two builds: see
// scripts/builds.ts (dist/ for Node and no bundler, dist/bundler/ for bundlers).
export default defineConfig(
  builds({
    entry: ['src/index.ts', 'src/adapter.ts', 'src/testing.ts', 'src/outbox.ts', 'src/outbox-node.ts'],
    format: ['esm', 'cjs'],
    // With Node's types for the Node-only entry's declarations (`backoff-core/outbox/node`).
    tsconfig: 'tsconfig.build.json',
    dts: true,
    platform: 'neutral',
    target: 'es2022',
    clean: true,
  } satisfies UserConfig),
);
