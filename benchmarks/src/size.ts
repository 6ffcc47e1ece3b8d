import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundle, gzipSize } from './bundle.js';
import { SIZE_ENTRIES, type SizeEntry } from './size-entries.js';
import { fixed, markdownTable, percent } from './table.js';

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));

/** One module's share of a bundle: minified bytes it puts in the output. */
export interface ModuleShare {
  readonly module: string;
  readonly bytes: number;
}

export interface SizeRow {
  readonly entry: SizeEntry;
  readonly minBytes: number;
  /** gzip -9 of the minified bundle (what size-limit's file plugin computes). */
  readonly gzipBytes: number;
  /** size-limit's own count for this entry, when it was run. */
  readonly sizeLimitBytes: number | undefined;
  readonly modules: readonly ModuleShare[];
}

export interface SizeResult {
  readonly rows: readonly SizeRow[];
  /** Whether `size-limit` passed every budget (undefined when it was not run). */
  readonly sizeLimitPassed: boolean | undefined;
  readonly esbuildVersion: string;
  readonly seconds: number;
}

/** A readable module name: the package and its path, without the workspace or node_modules prefix. */
function moduleName(path: string): string {
  return path
    .replace(/^\.\.\/packages\//, '')
    .replace(/^(?:.*\/)?node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '');
}

async function measure(entry: SizeEntry): Promise<Omit<SizeRow, 'sizeLimitBytes'>> {
  const { file, metafile } = await bundle(entry);
  const output = Object.values(metafile.outputs)[0];
  const modules = Object.entries(output?.inputs ?? {})
    .map(([path, input]) => ({ module: moduleName(path), bytes: input.bytesInOutput }))
    .filter((share) => share.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  return {
    entry,
    minBytes: file.contents.byteLength,
    gzipBytes: gzipSize(file.contents),
    modules,
  };
}

interface SizeLimitCheck {
  readonly name: string;
  readonly passed: boolean;
  readonly size: number;
}

/** Runs the project's own size-limit check (the one `pnpm test` runs) and reads its JSON report. */
export function runSizeLimit(): Promise<{ checks: SizeLimitCheck[]; passed: boolean }> {
  const bin = fileURLToPath(new URL('../node_modules/size-limit/bin.js', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--json'], {
      cwd: BENCH_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        const checks = JSON.parse(out) as SizeLimitCheck[];
        resolve({ checks, passed: code === 0 && checks.every((check) => check.passed) });
      } catch {
        reject(new Error(`size-limit failed (exit ${code}): ${err || out}`));
      }
    });
  });
}

export interface SizeOptions {
  /** Also run size-limit (the budgets `pnpm test` enforces). @default true */
  readonly sizeLimit?: boolean;
}

/** Measure 3: min and min+gzip bytes of each package's bundle (esbuild, ESM, minified, the client external). */
export async function runSize(options: SizeOptions = {}): Promise<SizeResult> {
  const started = performance.now();
  const measured = await Promise.all(SIZE_ENTRIES.map(measure));
  const limits = options.sizeLimit === false ? undefined : await runSizeLimit();
  const rows = measured.map((row) => ({
    ...row,
    sizeLimitBytes: limits?.checks.find((check) => check.name === row.entry.name)?.size,
  }));
  const { version } = await import('esbuild');
  return {
    rows,
    sizeLimitPassed: limits?.passed,
    esbuildVersion: version,
    seconds: (performance.now() - started) / 1000,
  };
}

export function sizeTable(result: SizeResult): string {
  const rows = result.rows.map((row) => [
    row.entry.name,
    fixed(row.minBytes),
    fixed(row.gzipBytes),
    row.sizeLimitBytes === undefined ? '' : fixed(row.sizeLimitBytes),
    row.entry.budget === undefined ? '' : fixed(row.entry.budget),
  ]);
  return markdownTable(
    ['bundle', 'min bytes', 'min+gzip bytes', 'size-limit count', 'size-limit budget'],
    rows,
    ['l', 'r', 'r', 'r', 'r'],
  );
}

/** Per-module minified bytes in the backoff bundles: where the size goes, and so what could come out. */
export function moduleTable(result: SizeResult): string {
  const ours = result.rows.filter((row) => row.entry.budget !== undefined);
  const bytesIn = (row: SizeRow, module: string) =>
    row.modules.find((share) => share.module === module)?.bytes;
  const packageOf = (module: string) => module.split('/')[0] ?? module;
  const largest = (module: string) => Math.max(...ours.map((row) => bytesIn(row, module) ?? 0));
  const names = [...new Set(ours.flatMap((row) => row.modules.map((share) => share.module)))];
  const packages = [...new Set(names.map(packageOf))];
  const cell = (row: SizeRow, bytes: number | undefined) => {
    const all = row.modules.reduce((sum, share) => sum + share.bytes, 0);
    return bytes === undefined || bytes === 0 ? '' : `${fixed(bytes)} (${percent(bytes / all, 0)})`;
  };
  const rows: string[][] = [];
  for (const pkg of packages) {
    const modules = names
      .filter((module) => packageOf(module) === pkg)
      .sort((a, b) => largest(b) - largest(a));
    for (const module of modules) rows.push([module, ...ours.map((row) => cell(row, bytesIn(row, module)))]);
    const subtotal = (row: SizeRow) => modules.reduce((sum, module) => sum + (bytesIn(row, module) ?? 0), 0);
    rows.push([`${pkg} (all its modules)`, ...ours.map((row) => cell(row, subtotal(row)))]);
  }
  return markdownTable(
    ['module (minified bytes, share of the bundle)', ...ours.map((row) => row.entry.name)],
    rows,
    ['l', ...ours.map(() => 'r' as const)],
  );
}
