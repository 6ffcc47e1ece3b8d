/** A load measure's rows, with the configuration they ran under and the wall time they took. */
export interface Measured<Config, Row> {
  readonly config: Config;
  readonly rows: readonly Row[];
  readonly seconds: number;
}

/** Runs each row in turn (a load measure has the machine to itself), telling `onRow` of each as it ends. */
export async function runRows<Config, Spec, Row>(
  config: Config,
  specs: readonly Spec[],
  run: (spec: Spec, config: Config) => Promise<Row>,
  onRow?: (row: Row) => void,
): Promise<Measured<Config, Row>> {
  const started = performance.now();
  const rows: Row[] = [];
  for (const spec of specs) {
    const row = await run(spec, config);
    onRow?.(row);
    rows.push(row);
  }
  return { config, rows, seconds: (performance.now() - started) / 1000 };
}
