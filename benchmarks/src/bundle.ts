import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, type Plugin } from 'esbuild';
import { ESBUILD_OPTIONS, type SizeEntry } from './size-entries.js';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = 'size-entry';

/** gzip -9 of a file, in bytes. */
export const gzipSize = (contents: Uint8Array): number => gzipSync(contents, { level: 9 }).byteLength;

/** One output file of a bundle: its minified and gzip bytes, and the source modules in it. */
export interface Chunk {
  readonly path: string;
  readonly minBytes: number;
  readonly gzipBytes: number;
  /** Source module path (relative to benchmarks/) -> minified bytes it puts in this file. */
  readonly inputs: Readonly<Record<string, number>>;
  /** The file's minified code. */
  readonly code: string;
}

/** An entry bundled as a user's bundler does: the entry file and what it loads at once, and what it loads later. */
export interface Bundle {
  /** The entry file and every chunk it imports statically (transitively): what a page loads with it. */
  readonly loaded: readonly Chunk[];
  /** Chunks reached only through `import()`: loaded when the code that needs them runs. */
  readonly lazy: readonly Chunk[];
  readonly metafile: Metafile;
}

/** Serves the entry's source as a file in benchmarks/, so that its imports resolve from there. */
function entryPlugin(code: string): Plugin {
  return {
    name: 'size-entry',
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${ENTRY}$`) }, () => ({ path: ENTRY, namespace: ENTRY }));
      build.onLoad({ filter: /.*/, namespace: ENTRY }, () => ({
        contents: code,
        loader: 'js',
        resolveDir: BENCH_DIR,
      }));
    },
  };
}

/**
 * Bundles `entry` with esbuild as a user's bundler would for a browser: minified, tree-shaken, code split (an
 * `import()` becomes a chunk of its own), the client external. Each entry is built alone, so no chunk is shared
 * with another entry's. `plugins` (after the entry's own) may swap modules, for a variant (size-variants.ts).
 */
export async function bundle(
  entry: Pick<SizeEntry, 'name' | 'code' | 'external'> & Partial<Pick<SizeEntry, 'mode'>>,
  plugins: readonly Plugin[] = [],
): Promise<Bundle> {
  const result = await build({
    ...ESBUILD_OPTIONS,
    conditions: [...ESBUILD_OPTIONS.conditions],
    // What every bundler does for its build mode (esbuild's own default when minifying is 'production').
    define: { 'process.env.NODE_ENV': JSON.stringify(entry.mode ?? 'production') },
    absWorkingDir: BENCH_DIR,
    entryPoints: [ENTRY],
    external: [...entry.external],
    bundle: true,
    minify: true,
    treeShaking: true,
    splitting: true,
    metafile: true,
    write: false,
    outdir: 'size-out',
    logLevel: 'silent',
    plugins: [entryPlugin(entry.code), ...plugins],
  });
  const { metafile } = result;
  const contents = new Map(
    result.outputFiles.map((file) => [file.path.slice(BENCH_DIR.length).replace(/^\//, ''), file.contents]),
  );
  const chunk = (path: string): Chunk => {
    const output = metafile.outputs[path];
    const bytes = contents.get(path);
    if (output === undefined || bytes === undefined) throw new Error(`${entry.name}: no output ${path}`);
    const inputs: Record<string, number> = {};
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (bytesInOutput > 0) inputs[input] = bytesInOutput;
    }
    return {
      path,
      minBytes: bytes.byteLength,
      gzipBytes: gzipSize(bytes),
      inputs,
      code: new TextDecoder().decode(bytes),
    };
  };
  const outputs = Object.keys(metafile.outputs).filter((path) => !path.endsWith('.map'));
  const main = outputs.find((path) => metafile.outputs[path]?.entryPoint !== undefined);
  if (main === undefined) throw new Error(`esbuild produced no entry output for ${entry.name}`);
  // The static closure of the entry: what loads with it. Everything else was split off behind an import().
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const imported of metafile.outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(main);
  return {
    loaded: [...loaded].map(chunk),
    lazy: outputs.filter((path) => !loaded.has(path)).map(chunk),
    metafile,
  };
}
