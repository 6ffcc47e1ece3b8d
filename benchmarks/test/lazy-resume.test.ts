import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

// `resume` costs nothing to a bundle that does not use it: its code is reached only through the runner's
// `import()`, so a bundler that splits code puts it in a chunk loaded by the first call with `resume`.

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const ENTRIES = ['with-backoff-only', 'axios-backoff-only', 'ky-backoff-only'];

describe.each(ENTRIES)('%s, bundled with code splitting', (entry) => {
  it('loads no resume code up front: the splicer, ranges and event streams sit in a lazy chunk', async () => {
    const result = await build({
      absWorkingDir: BENCH_DIR,
      entryPoints: [`src/size/${entry}.ts`],
      external: ['axios', 'ky'],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      conditions: ['@backoff/source'],
      outdir: 'lazy-out',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const outputs = result.metafile.outputs;
    /** Every output the entry loads before it runs: itself and what it imports statically, transitively. */
    const eager = new Set<string>();
    const visit = (path: string) => {
      if (eager.has(path)) return;
      eager.add(path);
      for (const imported of outputs[path]?.imports ?? [])
        if (imported.kind === 'import-statement') visit(imported.path);
    };
    visit(Object.keys(outputs).find((path) => outputs[path]?.entryPoint !== undefined) as string);
    const eagerInputs = [...eager].flatMap((path) => Object.keys(outputs[path]?.inputs ?? {}));
    const lazyInputs = Object.keys(outputs)
      .filter((path) => !eager.has(path))
      .flatMap((path) => Object.keys(outputs[path]?.inputs ?? {}));
    // The option's check and its error class (in a chunk the lazy one shares) are all a bundle holds of it up front.
    const eagerResume = eagerInputs.filter((input) => /\/resume\/|\/run\/continue\.ts$/.test(input));
    expect(eagerResume.map((input) => input.replace(/.*\/src\//, '')).sort()).toEqual([
      'resume/errors.ts',
      'resume/options.ts',
    ]);
    for (const input of eagerInputs)
      expect(input).not.toMatch(
        /\/resume\/(splicer|ranges|event-stream|web|node|stream)\.ts$|\/run\/continue\.ts$/,
      );
    expect(lazyInputs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/resume\/splicer\.ts$/),
        expect.stringMatching(/\/run\/continue\.ts$/),
      ]),
    );
  });
});
