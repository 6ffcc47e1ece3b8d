/** Formatting for the terminal: Markdown pipe tables (aligned, so they read as plain text and paste into docs). */

/** An integer with thousands separators: 12345 -> "12,345". */
export function count(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A duration in ms as seconds: two decimals below 10 s, one above. `undefined` prints as a dash. */
export function seconds(ms: number | undefined): string {
  if (ms === undefined || Number.isNaN(ms)) return '—';
  const s = ms / 1000;
  return `${s < 10 ? s.toFixed(2) : s.toFixed(1)} s`;
}

/** A signed percentage difference of `value` from `reference`: "+4%", "-17%". */
export function difference(value: number, reference: number): string {
  const pct = Math.round(((value - reference) / reference) * 100);
  return `${pct > 0 ? '+' : ''}${pct}%`;
}

/**
 * A Markdown table with padded columns. The first column is left-aligned (labels), the others right-aligned
 * (numbers), unless `align` says otherwise.
 */
export function markdownTable(
  headers: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  align: ReadonlyArray<'left' | 'right'> = headers.map((_, i) => (i === 0 ? 'left' : 'right')),
): string {
  const widths = headers.map((h, i) => Math.max(h.length, 3, ...rows.map((row) => (row[i] ?? '').length)));
  const cell = (text: string, i: number) =>
    align[i] === 'right' ? text.padStart(widths[i] ?? 0) : text.padEnd(widths[i] ?? 0);
  const line = (cells: readonly string[]) =>
    `| ${headers.map((_, i) => cell(cells[i] ?? '', i)).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'right' ? `${'-'.repeat(w + 1)}:` : `${'-'.repeat(w + 2)}`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}
