import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type UserConfig } from 'tsdown';
import { builds } from '../../scripts/builds.ts';

// axios's CommonJS typings (index.d.cts) declare `AxiosError` as a type alias inside their namespace, and no
// module augmentation can merge with an alias: `interface AxiosError` there is a "Duplicate identifier" error in
// every CommonJS project that type-checks its dependencies. So the CommonJS declarations leave out that one
// augmentation (`error.backoff`); `getBackoffResult(error)` reads the result there. `config.backoff` and
// `response.backoff` augment interfaces in both typings and stay.
const AXIOS_ERROR_AUGMENTATION = /\n {2}interface AxiosError \{\n[\s\S]*?\n {2}\}\n/g;

/** Removes the augmentation from one declaration file; answers how many it removed. */
function withoutAxiosErrorAugmentation(file: string): number {
  let removed = 0;
  const code = readFileSync(file, 'utf8').replace(AXIOS_ERROR_AUGMENTATION, () => {
    removed++;
    return '\n';
  });
  writeFileSync(file, code);
  return removed;
}

// ESM for bundlers and `import`, CJS for `require` (many axios users are on CommonJS), each with its own
// declarations (.d.ts / .d.cts), so TypeScript's node16/nodenext resolution sees the right module kind.
// `neutral`: no Node built-ins are assumed, the same files serve browsers, workers and Node. Two builds: see
// scripts/builds.ts (dist/ for Node and no bundler, dist/bundler/ for bundlers).
export default defineConfig(
  builds({
    entry: ['src/index.ts', 'src/outbox.ts'],
    format: ['esm', 'cjs'],
    dts: true,
    platform: 'neutral',
    target: 'es2022',
    clean: true,
    hooks: {
      // The declarations are bundled by a build of their own: the written .d.cts is edited once all are done.
      // One in all: the entries (the main one, `outbox`) share the declarations that hold it.
      'build:done': ({ chunks }) => {
        const files = chunks
          .filter((chunk) => chunk.fileName.endsWith('.d.cts'))
          .map((chunk) => join(chunk.outDir, chunk.fileName));
        const removed = files.reduce((sum, file) => sum + withoutAxiosErrorAugmentation(file), 0);
        // Fail the build rather than publish the clash if the declarations ever change shape.
        if (files.length > 0 && removed !== 1)
          throw new Error(`Expected one AxiosError augmentation in ${files.join(', ')}, found ${removed}.`);
      },
    },
  } satisfies UserConfig),
);
