import { STATUS_CODES } from 'node:http';
import type { BackoffResult, RetryEvent } from 'backoff-core';

/** Formats a duration for people: ms below a second, seconds above. */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A server answer ('503', 'reset') as a person reads it. */
export function answerText(answer: string): string {
  if (answer === 'reset') return 'socket reset';
  return `${answer} ${STATUS_CODES[Number(answer)] ?? ''}`.trim();
}

/**
 * Prints one call's attempts as rows: when the attempt reached the server, what the server answered, and what came
 * next (the wait and its reason from `onRetry`, or why it stopped). The rows come from the server's side, so every
 * client is shown the same way and nothing the client claims is taken on trust.
 */
export class Timeline {
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  readonly #started: number;
  #attempt = 0;
  #pending: string | undefined;

  constructor(title: string, log: (line: string) => void, now: () => number) {
    this.#log = log;
    this.#now = now;
    this.#started = now();
    log(`\n${title}`);
    log(`  ${'attempt'.padEnd(9)}${'at'.padEnd(10)}${'server answered'.padEnd(28)}next`);
  }

  /** Records an attempt as the server answered it; the row is printed once the next step is known. */
  answered(answer: string): void {
    this.#flush('(no decision)');
    this.#attempt++;
    const at = duration(this.#now() - this.#started);
    this.#pending = `  ${String(this.#attempt).padEnd(9)}${at.padEnd(10)}${answerText(answer).padEnd(28)}`;
  }

  /** Use as `onRetry`: completes the row with the wait about to start. */
  readonly onRetry = (event: RetryEvent): void => {
    const server = event.serverDelay === undefined ? '' : `, server asked ${duration(event.serverDelay)}`;
    this.#flush(`wait ${duration(event.delay)} (${event.reason}${server})`);
  };

  /** Completes the last row with why the call stopped, and prints the call's outcome. */
  finish(outcome: string, result: BackoffResult | undefined): void {
    const server = result?.serverDelay === undefined ? '' : `, server asked ${duration(result.serverDelay)}`;
    this.#flush(`stop (${result?.reason ?? 'no retries'}${server})`);
    const waited = result ? `, ${duration(result.totalDelay)} waited` : '';
    this.#log(`  -> ${outcome} after ${result?.attempts ?? this.#attempt} attempt(s)${waited}`);
  }

  #flush(next: string): void {
    if (this.#pending === undefined) return;
    this.#log(`${this.#pending}${next}`);
    this.#pending = undefined;
  }
}
