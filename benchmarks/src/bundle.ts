import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { ESBUILD_OPTIONS, type SizeEntry } from './size-entries.js';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Bundles `entry` as every size measure does (esbuild with ESBUILD_OPTIONS: bundle, minify, tree-shake, the
 * client external), with `plugins` on top when a measure changes what is bundled.
 */
export async function bundle(entry: Pick<SizeEntry, 'name' | 'path' | 'external'>, plugins: Plugin[] = []) {
  const result = await build({
    ...ESBUILD_OPTIONS,
    conditions: [...ESBUILD_OPTIONS.conditions],
    absWorkingDir: BENCH_DIR,
    entryPoints: [entry.path],
    external: [...entry.external],
    bundle: true,
    minify: true,
    treeShaking: true,
    metafile: true,
    write: false,
    outfile: 'bundle.js',
    logLevel: 'silent',
    plugins: [...ESBUILD_OPTIONS.plugins, ...plugins] as Plugin[],
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error(`esbuild produced no output for ${entry.name}`);
  return { file, metafile: result.metafile };
}

/** gzip -9 of a bundle, in bytes: what size-limit's file plugin computes. */
export const gzipSize = (contents: Uint8Array): number => gzipSync(contents, { level: 9 }).byteLength;
