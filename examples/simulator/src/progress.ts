/** Where progress goes: stderr, so stdout stays the clean report. */
export interface ProgressSink {
  readonly isTTY?: boolean | undefined;
  write(text: string): unknown;
}

/**
 * Progress of a long loop on stderr. On a terminal one line is redrawn in place (at most every 100 ms of wall
 * time, read from `now`); elsewhere (CI logs, pipes) a line is printed at each quarter, so logs stay short.
 */
export function progress(
  label: string,
  sink: ProgressSink = process.stderr,
  now: () => number = () => performance.now(),
): (done: number, total: number) => void {
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastQuarter = 0;
  return (done, total) => {
    if (sink.isTTY) {
      const at = now();
      if (done < total && at - lastDraw < 100) return;
      lastDraw = at;
      sink.write(`\r${label}: ${done}/${total} runs${done === total ? '\n' : ''}`);
      return;
    }
    const quarter = Math.floor((done / total) * 4);
    if (quarter > lastQuarter) {
      lastQuarter = quarter;
      sink.write(`${label}: ${done}/${total} runs\n`);
    }
  };
}
