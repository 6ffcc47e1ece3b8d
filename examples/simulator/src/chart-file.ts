/** A chart to write: its file name inside the output folder and its SVG text. */
export interface ChartFile {
  readonly file: string;
  readonly svg: string;
}

/** What a scenario prints and draws. */
export interface ScenarioReport {
  readonly title: string;
  /** Markdown: a description, tables and notes. */
  readonly text: string;
  readonly charts: readonly ChartFile[];
}
