import { STATUS_CODES } from 'node:http';
import type { BackoffResult, RetryEvent } from 'backoff-core';

/** Formats a duration for people: ms below a second, seconds above. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function outcomeText(status: number | undefined, error: unknown): string {
  if (status !== undefined) return `${status} ${STATUS_CODES[status] ?? ''}`.trim();
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | undefined)?.cause?.code;
  const name = error instanceof Error ? error.name : 'error';
  return typeof code === 'string' ? `${name} (${code})` : name;
}

/**
 * Prints one call's attempts as rows: when the attempt started, what it got, and what came next (the wait and its
 * reason from `onRetry`, or the final reason). Feed it `attempt()` after each attempt and `onRetry` before waits.
 */
export class Timeline {
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  readonly #started: number;
  #attempt = 0;
  #attemptStarted = 0;
  #pending: string | undefined;

  constructor(title: string, log: (line: string) => void, now: () => number) {
    this.#log = log;
    this.#now = now;
    this.#started = now();
    log(`\n${title}`);
    log(`  ${'attempt'.padEnd(9)}${'at'.padEnd(10)}${'outcome'.padEnd(30)}next`);
  }

  /** Marks the start of an attempt (call just before sending). */
  begin(): void {
    this.#attempt++;
    this.#attemptStarted = this.#now() - this.#started;
  }

  /** Records how the attempt ended; the row is printed once the next step is known. */
  end(status: number | undefined, error?: unknown): void {
    this.#pending = `  ${String(this.#attempt).padEnd(9)}${duration(this.#attemptStarted).padEnd(10)}${outcomeText(status, error).padEnd(30)}`;
  }

  /** Use as `onRetry`: completes the row with the wait about to start. */
  readonly onRetry = (event: RetryEvent): void => {
    const server = event.serverDelay === undefined ? '' : `, server asked ${duration(event.serverDelay)}`;
    this.#log(`${this.#pending ?? ''}wait ${duration(event.delay)} (${event.reason}${server})`);
    this.#pending = undefined;
  };

  /** Completes the last row and prints the call's summary line. */
  finish(summary: string, result: BackoffResult | undefined): void {
    const server = result?.serverDelay === undefined ? '' : `, server asked ${duration(result.serverDelay)}`;
    this.#log(`${this.#pending ?? ''}stop (${result?.reason ?? 'no retries'}${server})`);
    this.#pending = undefined;
    const waited = result ? `, ${duration(result.totalDelay)} waited` : '';
    this.#log(`  -> ${summary} after ${result?.attempts ?? this.#attempt} attempt(s)${waited}`);
  }
}
