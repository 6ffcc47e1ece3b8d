import type { SummaryRow } from './scenarios.js';
import { duration } from './timeline.js';

/** A client's summary as a plain-text table, one line per scenario. */
export function summaryTable(client: string, rows: readonly SummaryRow[]): string[] {
  const header = ['scenario', 'result', 'attempts', 'server hits', 'keys seen', 'waited'];
  const body = rows.map((row) => [
    row.scenario,
    row.outcome,
    String(row.attempts),
    String(row.serverHits),
    String(row.keys),
    duration(row.waited),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...body.map((cells) => (cells[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `  ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ')}`;
  return [
    `\nsummary: ${client}`,
    line(header),
    `  ${widths.map((w) => '-'.repeat(w)).join('  ')}`,
    ...body.map(line),
  ];
}
