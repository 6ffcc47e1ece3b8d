import { readFileSync, writeFileSync } from 'node:fs';
import { defineConfig, type UserConfig } from 'tsdown';
import { builds } from '../../scripts/builds.ts';

const dist = (file: string) => new URL(`./dist/${file}`, import.meta.url);
// The augmentation of ky's `Options` with `backoff`, as the bundled declarations write it.
const AUGMENTATION = /declare module 'ky' \{\n {2}interface Options extends \w+ \{\}\n\}\n/;

/**
 * ky is ESM-only: a CommonJS declaration file that augments it is an error under `moduleResolution: node16`
 * (TS1479, a CommonJS file cannot `require` an ES module), which a CommonJS project following our own recipe
 * (`await import('ky')`) would meet in index.d.cts. So the CommonJS declarations take the augmentation from an ES
 * declaration file of its own, which they reference: the same `backoff` option, typed by the CommonJS declarations.
 */
function augmentKyFromAnEsFile(): void {
  const cts = readFileSync(dist('index.d.cts'), 'utf8');
  if (!AUGMENTATION.test(cts)) throw new Error("index.d.cts has no `declare module 'ky'` block to move.");
  const reference = '/// <reference path="./ky-augmentation.d.mts" />\n';
  writeFileSync(dist('index.d.cts'), reference + cts.replace(AUGMENTATION, ''));
  writeFileSync(
    dist('ky-augmentation.d.mts'),
    [
      "// The `backoff` option in ky's options, for the CommonJS declarations (index.d.cts references this file).",
      "import type { KyBackoffRequestOptions } from './index.cjs';",
      '',
      "declare module 'ky' {",
      '  interface Options extends KyBackoffRequestOptions {}',
      '}',
      '',
    ].join('\n'),
  );
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
    onSuccess: augmentKyFromAnEsFile,
  } satisfies UserConfig),
);
