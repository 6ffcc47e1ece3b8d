// The README code checker: every fenced code block of a README is either type-checked (```ts, and ```cjs for
// CommonJS), parsed (```json) or exempt (```sh, ```text), and anything else is a problem, so that the docs cannot drift from the
// code. The conventions, for README authors:
//
// - A ```ts block is a complete module: its imports are its own, and it must type-check alone (strict, like the
//   packages; unused names are allowed). Top-level `await` is fine.
// - An intentionally partial snippet (one that uses `api` from the quick start, say) starts with a comment line
//   `// Given ...` that tells the reader what it assumes. Such blocks are checked with the README's "given"
//   declarations: one hidden HTML comment `<!-- docs:given ... -->` holding `import` lines and declarations
//   (`const api: AxiosInstance;`), which become globals for the partial blocks only.
// - A ```cjs block is a complete CommonJS module (`require`), type-checked as a .cjs file with Node's own module
//   rules (`nodenext`), as a CommonJS user's editor would check it.
// - Shell commands are ```sh and diagrams or output are ```text; neither is checked.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, run } from './repo.ts';

export const CHECKED = new Set(['ts', 'typescript']);
/** CommonJS blocks: type-checked as .cjs files (JavaScript, `checkJs`) under Node's module rules. */
export const CHECKED_CJS = new Set(['cjs']);
export const PARSED = new Set(['json']);
export const EXEMPT = new Set(['sh', 'bash', 'shell', 'console', 'text', 'txt']);

/** The first line of a partial snippet. */
const GIVEN_MARKER = /^\/\/ Given\b/;
const GIVEN_COMMENT = /^\s*<!--\s*docs:given\b(.*)$/;

export interface CodeBlock {
  /** The README's path, relative to the repository root. */
  readonly readme: string;
  /** 1-based, among all of the README's fenced blocks. */
  readonly index: number;
  /** The README line of the opening fence (1-based). */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  /** Starts with `// Given`: checked with the README's given declarations. */
  readonly partial: boolean;
}

export interface Readme {
  readonly path: string;
  readonly blocks: readonly CodeBlock[];
  /** The hidden `<!-- docs:given ... -->` declarations, and the README line they start on. */
  readonly given: { readonly code: string; readonly line: number } | undefined;
  /** Blocks in a language that is neither checked nor exempt, an unclosed fence, a second given comment. */
  readonly problems: readonly string[];
}

interface OpenFence {
  readonly marker: string;
  readonly indent: number;
  readonly lang: string;
  readonly line: number;
  readonly lines: string[];
}

/** Splits a README into its fenced code blocks (CommonMark fences of ``` or ~~~, indented or not). */
export function parseReadme(path: string, text: string): Readme {
  const lines = text.split(/\r?\n/);
  const blocks: CodeBlock[] = [];
  const problems: string[] = [];
  let given: { code: string; line: number } | undefined;
  let fence: OpenFence | undefined;
  let comment: { given: boolean; line: number; lines: string[] } | undefined;

  lines.forEach((raw, i) => {
    const lineNumber = i + 1;
    if (fence !== undefined) {
      const close = raw.match(/^(\s*)(`{3,}|~{3,})\s*$/);
      if (
        close?.[2] !== undefined &&
        close[2][0] === fence.marker[0] &&
        close[2].length >= fence.marker.length
      ) {
        const code = fence.lines.join('\n');
        const first = code.split('\n').find((line) => line.trim() !== '') ?? '';
        blocks.push({
          readme: path,
          index: blocks.length + 1,
          line: fence.line,
          lang: fence.lang,
          code,
          partial: GIVEN_MARKER.test(first.trim()),
        });
        fence = undefined;
      } else {
        // Content is de-indented by the fence's own indentation (a block inside a list item).
        fence.lines.push(raw.slice(Math.min(fence.indent, raw.length - raw.trimStart().length)));
      }
      return;
    }
    if (comment !== undefined) {
      const end = raw.indexOf('-->');
      if (end === -1) {
        comment.lines.push(raw);
        return;
      }
      comment.lines.push(raw.slice(0, end));
      if (comment.given) {
        if (given !== undefined) problems.push(`a second docs:given comment at line ${comment.line}`);
        else given = { code: comment.lines.join('\n'), line: comment.line };
      }
      comment = undefined;
      return;
    }
    const open = raw.match(/^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/);
    if (open?.[2] !== undefined) {
      fence = {
        marker: open[2],
        indent: open[1]?.length ?? 0,
        lang: (open[3] ?? '').toLowerCase(),
        line: lineNumber,
        lines: [],
      };
      return;
    }
    const start = raw.indexOf('<!--');
    if (start !== -1 && !raw.slice(start).includes('-->')) {
      const isGiven = GIVEN_COMMENT.test(raw.slice(start));
      // The given code starts on the line after the marker.
      comment = { given: isGiven, line: lineNumber + 1, lines: [] };
      const rest = raw.slice(start).match(GIVEN_COMMENT)?.[1]?.trim();
      if (isGiven && rest) comment.lines.push(rest);
    }
  });
  if (fence !== undefined) problems.push(`the fence opened at line ${fence.line} is never closed`);
  if (comment !== undefined)
    problems.push(`the HTML comment opened at line ${comment.line - 1} is never closed`);

  for (const block of blocks) {
    const where = `block ${block.index} (line ${block.line})`;
    if (
      !CHECKED.has(block.lang) &&
      !CHECKED_CJS.has(block.lang) &&
      !PARSED.has(block.lang) &&
      !EXEMPT.has(block.lang)
    ) {
      problems.push(
        `${where}: ${block.lang === '' ? 'no language' : `language "${block.lang}"`} is neither checked nor ` +
          'exempt: use ```ts or ```cjs (type-checked), ```json (parsed), or ```sh / ```text (exempt)',
      );
    }
    if (block.partial && given === undefined && CHECKED.has(block.lang)) {
      problems.push(
        `${where}: a "// Given" block, but the README has no <!-- docs:given ... --> declarations`,
      );
    }
  }
  return { path, blocks, given, problems };
}

/**
 * The fenced block right after the line `marker` (an HTML comment such as `<!-- migrating:ky-after -->`) of the
 * README at `path` (relative to the repository root), or `undefined` when there is none: the code a test runs as
 * written.
 */
export function blockAfter(path: string, marker: string): CodeBlock | undefined {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const markerLine = text.split(/\r?\n/).findIndex((line) => line.trim() === marker) + 1;
  if (markerLine === 0) return undefined;
  return parseReadme(path, text).blocks.find((block) => block.line === markerLine + 1);
}

/** A block's name in failure messages: the README, its number and line. */
export function blockName(block: CodeBlock): string {
  return `${block.readme} block ${block.index} (line ${block.line})`;
}

function slug(path: string): string {
  return path.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'readme';
}

/** The given declarations as a module whose declarations are global (for the partial blocks of one README). */
function givenModule(code: string): string {
  const lines = code.split('\n');
  const imports = lines.filter((line) => /^\s*import\s/.test(line));
  const rest = lines.filter((line) => !/^\s*import\s/.test(line));
  return `${imports.join('\n')}\nexport {};\ndeclare global {\n${rest.join('\n')}\n}\n`;
}

interface Program {
  readonly dir: string;
  /** File name (relative to `dir`) -> what it holds: a block, or the README's given declarations. */
  readonly files: Map<string, { block: CodeBlock } | { given: Readme }>;
  /** Laid over the shared settings (the CommonJS program's module rules). */
  readonly compilerOptions?: Record<string, unknown>;
}

const DIAGNOSTIC = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;

/** Where a failure belongs: a block, a README's given declarations, or the tsc run itself (`'tsc'`). */
export type FailureKey = CodeBlock | Readme | 'tsc';

async function typecheckProgram(program: Program, tsc: string, failures: Map<FailureKey, string[]>) {
  const tsconfig = {
    extends: relative(program.dir, join(ROOT, 'tsconfig.base.json')),
    compilerOptions: {
      types: ['node'],
      // Snippets show a call and leave its result alone; everything else is as strict as the packages.
      noUnusedLocals: false,
      noUnusedParameters: false,
      // Every block is a module of its own, even one without imports: no name leaks from block to block.
      moduleDetection: 'force',
      ...program.compilerOptions,
    },
    files: [...program.files.keys()],
  };
  writeFileSync(join(program.dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  const result = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--pretty', 'false'], {
    cwd: program.dir,
    timeout: 60_000,
  });
  let last: string[] | undefined;
  for (const line of result.stdout.split('\n')) {
    const match = line.match(DIAGNOSTIC);
    if (match === null) {
      // The elaboration of the diagnostic above (indented lines).
      if (last !== undefined && line.trim() !== '') last.push(`  ${line.trim()}`);
      continue;
    }
    const [, file = '', lineText = '0', column = '0', code = '', message = ''] = match;
    const owner = program.files.get(file.replace(/\\/g, '/'));
    let key: FailureKey = 'tsc';
    let where = `${file}(${lineText},${column})`;
    if (owner !== undefined && 'block' in owner) {
      key = owner.block;
      where = `${blockName(owner.block)}, README line ${owner.block.line + Number(lineText)}:${column}`;
    } else if (owner !== undefined) {
      key = owner.given;
      where = `${owner.given.path} <!-- docs:given --> line ${Number(lineText)}`;
    }
    last = failures.get(key) ?? [];
    failures.set(key, last);
    last.push(`${where}: ${code} ${message}`);
  }
  // A failure that printed no diagnostic (a bad tsconfig, a crash) must not pass unnoticed.
  if (result.code !== 0 && !result.stdout.split('\n').some((line) => DIAGNOSTIC.test(line))) {
    const output = `tsc exited with ${result.code}: ${result.stdout}${result.stderr}`;
    failures.set('tsc', [...(failures.get('tsc') ?? []), output]);
  }
}

/**
 * Type-checks the ```ts blocks of `readmes` with tsc, in files under `workDir` (inside the repo, so that the
 * workspace packages resolve, to their sources). Complete blocks are checked together, each a module of its
 * own, with no globals; the partial blocks of each README with that README's given declarations; the ```cjs
 * blocks as .cjs files under Node's module rules. Returns the
 * diagnostics per block (and per README, for its given declarations), formatted with the README name, the block
 * number and the README line.
 */
export async function typecheckReadmes(
  readmes: readonly Readme[],
  workDir: string,
  tsc: string,
): Promise<Map<FailureKey, string[]>> {
  const programs: Program[] = [];
  const complete: Program = { dir: join(workDir, 'complete'), files: new Map() };
  const commonjs: Program = {
    dir: join(workDir, 'commonjs'),
    files: new Map(),
    compilerOptions: { allowJs: true, checkJs: true, module: 'nodenext', moduleResolution: 'nodenext' },
  };
  programs.push(complete, commonjs);
  for (const readme of readmes) {
    const partial: Program = { dir: join(workDir, `given-${slug(readme.path)}`), files: new Map() };
    for (const block of readme.blocks) {
      const cjs = CHECKED_CJS.has(block.lang);
      if (!CHECKED.has(block.lang) && !cjs) continue;
      const program = cjs ? commonjs : block.partial ? partial : complete;
      const file = `${slug(readme.path)}-block-${String(block.index).padStart(2, '0')}.${cjs ? 'cjs' : 'ts'}`;
      mkdirSync(program.dir, { recursive: true });
      writeFileSync(join(program.dir, file), `${block.code}\n`);
      program.files.set(file, { block });
    }
    if (partial.files.size > 0 && readme.given !== undefined) {
      writeFileSync(join(partial.dir, 'given.ts'), givenModule(readme.given.code));
      partial.files.set('given.ts', { given: readme });
      programs.push(partial);
    }
  }
  const failures = new Map<FailureKey, string[]>();
  await Promise.all(
    programs.filter((program) => program.files.size > 0).map((p) => typecheckProgram(p, tsc, failures)),
  );
  return failures;
}

/** JSON blocks are parsed: a syntax error is the failure. */
export function parseJsonBlock(block: CodeBlock): string[] {
  try {
    JSON.parse(block.code);
    return [];
  } catch (error) {
    return [`${blockName(block)}: ${(error as Error).message}`];
  }
}
