/**
 * The size floor of this design (issue 17): each adapter-only bundle (as `pnpm size` measures it) built again with
 * the core's rule modules replaced by empty stubs, so that only the adapter's own code and the core's retry engine
 * (RetryState in decision.ts, the delay, the wait, header access, the policy object) are left. No rewrite of the
 * rules can take away what remains: where it is above issue 17's target, the target cannot be met by how the rules
 * are written, only by leaving rules out. Each rule module is also stubbed alone: what it costs the bundle, with
 * whatever only it pulls in.
 *
 * The method. An esbuild plugin loads each listed module as a stub that exports every name the module exports
 * (`export function`, `const`, `let`, `class`) as a no-op or `undefined`; callers keep their calls, so the floor is
 * if anything a little high. A listed module that no longer exists, or a stub that lacks an export some caller
 * imports (esbuild then fails), stops the measure instead of letting it drift.
 *
 * Run: `pnpm --filter @backoff/benchmarks rule-floor`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { bundle, gzipSize } from './bundle.js';
import { SIZE_ENTRIES, type SizeEntry } from './size-entries.js';
import { fixed, markdownTable } from './table.js';

/** The core's modules that hold a rule (or the options' checks), each with what it does. */
export const RULE_MODULES: Readonly<Record<string, string>> = {
  validate: 'option defaults, checks and resolution (R9)',
  check: 'the table-driven option checker (R9)',
  'server-timing': 'Retry-After, RateLimit and the X-RateLimit-Reset family (R4)',
  'http-date': 'the three HTTP-date forms, strict (R4)',
  idempotency: 'Idempotency-Key checks and generation (R2, R10)',
  outcome: 'error classification: codes, TLS, fetch failures',
  'not-sent': 'requests that never left the client (R13)',
  network: 'offline waiting (R14)',
  budget: 'the retry budget (R6)',
  'should-retry-header': 'the server’s x-should-retry (R12)',
  'first-try': 'the lean success path (issue 17)',
};

const CORE_SRC = fileURLToPath(new URL('../../packages/backoff-core/src/', import.meta.url));

/** A module's stub: every exported function a no-op, every exported class empty, every other export undefined. */
export function stubOf(source: string): string {
  const lines: string[] = [];
  for (const [, kind, name] of source.matchAll(/^export (?:async )?(function\*?|const|let|class) (\w+)/gm)) {
    if (kind?.startsWith('function')) lines.push(`export function ${name}() {}`);
    else if (kind === 'class') lines.push(`export class ${name} {}`);
    else lines.push(`export const ${name} = undefined;`);
  }
  for (const [, names] of source.matchAll(/^export \{([^}]*)\} from/gm)) {
    for (const name of names?.split(',') ?? []) {
      const exported = name
        .trim()
        .split(/\s+as\s+/)
        .pop();
      if (exported) lines.push(`export const ${exported} = undefined;`);
    }
  }
  return lines.join('\n');
}

/** The esbuild plugin that loads the core modules `stubbed` (names from RULE_MODULES) as stubs. */
function stubs(stubbed: readonly string[]): Plugin {
  for (const name of stubbed) {
    if (!existsSync(`${CORE_SRC}${name}.ts`)) {
      throw new Error(
        `rule-floor: packages/backoff-core/src/${name}.ts does not exist (update RULE_MODULES).`,
      );
    }
  }
  return {
    name: 'rule-stubs',
    setup(build) {
      build.onLoad({ filter: /[\\/]backoff-core[\\/]src[\\/][\w-]+\.ts$/ }, (args) => {
        const name = /([\w-]+)\.ts$/.exec(args.path)?.[1] ?? '';
        if (!stubbed.includes(name)) return undefined;
        return { contents: stubOf(readFileSync(args.path, 'utf8')), loader: 'ts' };
      });
    },
  };
}

/** The bundles measured: the adapter-only ones that have a target. */
export const RULE_FLOOR_ENTRIES: readonly SizeEntry[] = SIZE_ENTRIES.filter(
  (entry) => entry.target !== undefined,
);

export interface RuleFloorRow {
  readonly name: string;
  readonly target: number;
  /** min+gzip as `pnpm size` builds it, and with every rule module stubbed. */
  readonly full: number;
  readonly floor: number;
  /** min+gzip saved by stubbing each rule module alone, by module name. */
  readonly perModule: Readonly<Record<string, number>>;
}

const gzipOf = async (entry: SizeEntry, plugins: Plugin[] = []) =>
  gzipSize((await bundle(entry, plugins)).file.contents);

export async function runRuleFloor(
  entries: readonly SizeEntry[] = RULE_FLOOR_ENTRIES,
  modules: readonly string[] = Object.keys(RULE_MODULES),
): Promise<RuleFloorRow[]> {
  const rows: RuleFloorRow[] = [];
  for (const entry of entries) {
    const full = await gzipOf(entry);
    const perModule: Record<string, number> = {};
    for (const name of modules) perModule[name] = full - (await gzipOf(entry, [stubs([name])]));
    rows.push({
      name: entry.name,
      target: entry.target ?? Number.NaN,
      full,
      floor: await gzipOf(entry, [stubs(modules)]),
      perModule,
    });
  }
  return rows;
}

export function ruleFloorTables(rows: readonly RuleFloorRow[]): string {
  const floors = markdownTable(
    ['bundle', 'min+gzip', 'every rule module stubbed', 'target'],
    rows.map((row) => [
      row.name,
      fixed(row.full),
      fixed(row.floor),
      `${fixed(row.target)} (${row.floor <= row.target ? 'the floor is below it' : 'the floor is above it'})`,
    ]),
    ['l', 'r', 'r', 'l'],
  );
  const modules = Object.keys(rows[0]?.perModule ?? {});
  const perModule = markdownTable(
    ['rule module (stubbed alone)', 'what it holds', ...rows.map((row) => row.name)],
    modules.map((name) => [
      `${name}.ts`,
      RULE_MODULES[name] ?? '',
      ...rows.map((row) => `-${fixed(row.perModule[name] ?? 0)}`),
    ]),
    ['l', 'l', ...rows.map(() => 'r' as const)],
  );
  return `${floors}\n\n${perModule}`;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(
    'The size floor of the design (bytes, esbuild minified, gzip -9): each bundle with the core’s rule modules\n' +
      'stubbed out, so that only the adapter and the retry engine are left (see benchmarks/src/rule-floor.ts):\n',
  );
  console.log(ruleFloorTables(await runRuleFloor()));
}
