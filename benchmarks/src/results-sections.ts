import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Measures with commands of their own (pacing, hedging) keep their sections of RESULTS.md between markers, so that
// `pnpm bench`, which rewrites the file, carries them over, and each command replaces only its own section.

export const RESULTS_PATH = fileURLToPath(new URL('../RESULTS.md', import.meta.url));

const start = (id: string) => `<!-- section: ${id} -->`;
const end = (id: string) => `<!-- /section: ${id} -->`;
const SECTION = /<!-- section: ([a-z-]+) -->[\s\S]*?<!-- \/section: \1 -->/g;

/** The marked sections of a RESULTS.md text, in order. */
export function markedSections(text: string): string[] {
  return [...text.matchAll(SECTION)].map((match) => match[0]);
}

/** `text` with section `id` set to `markdown`: replaced where it is, appended at the end otherwise. */
export function withSection(text: string, id: string, markdown: string): string {
  const block = `${start(id)}\n${markdown.trim()}\n${end(id)}`;
  const existing = markedSections(text).find((section) => section.startsWith(start(id)));
  if (existing !== undefined) return text.replace(existing, () => block);
  return `${text.trimEnd()}\n\n${block}\n`;
}

/** Writes section `id` into RESULTS.md, leaving every other section as it is. */
export function writeSection(id: string, markdown: string, path = RESULTS_PATH): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  writeFileSync(path, withSection(text, id, markdown));
  console.error(`[bench] wrote the ${id} section of ${path}`);
}

/** `fresh` (what `pnpm bench` renders) with the marked sections of the file it replaces carried over. */
export function keepSections(fresh: string, previous: string): string {
  let text = fresh;
  for (const section of markedSections(previous)) {
    const id = /<!-- section: ([a-z-]+) -->/.exec(section)?.[1] as string;
    const body = section.slice(start(id).length, -end(id).length);
    text = withSection(text, id, body);
  }
  return text;
}
