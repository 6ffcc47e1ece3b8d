/** A Markdown table, padded so that it also reads well in a terminal. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly ('l' | 'r')[] = [],
): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const pad = (cell: string, i: number) =>
    align[i] === 'r' ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0);
  const line = (cells: readonly string[]) => `| ${cells.map((cell, i) => pad(cell, i)).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(Math.max(1, w - 1))}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map((row) => line(header.map((_, i) => row[i] ?? '')))].join('\n');
}

/** `n` with `digits` decimals and thousands separators. */
export function fixed(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A ratio as `1.004x`. */
export function ratio(n: number): string {
  return `${n.toFixed(3)}x`;
}

export function percent(n: number, digits = 1): string {
  return `${(n * 100).toFixed(digits)}%`;
}
