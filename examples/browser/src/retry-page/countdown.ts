import type { RetryEvent } from 'backoff-core';

/** "Retrying in 1.3 s… (attempt 2 of 4)": the attempt the wait leads to, of the most this call may make. */
export function countdownText(remainingMs: number, event: Pick<RetryEvent, 'retry' | 'retries'>): string {
  // Rounded up to the tenth, so it never shows 0.0 s while time is still left.
  const seconds = (Math.ceil(Math.max(0, remainingMs) / 100) / 10).toFixed(1);
  return `Retrying in ${seconds} s… (attempt ${event.retry + 1} of ${event.retries + 1})`;
}

/**
 * The live line: `start(event)` from `onRetry` shows the wait and updates it every 100 ms until it is over;
 * `stop()` ends it early (the call settled or was cancelled).
 */
export class Countdown {
  readonly #render: (text: string) => void;
  #interval: ReturnType<typeof setInterval> | undefined;

  constructor(render: (text: string) => void) {
    this.#render = render;
  }

  start(event: RetryEvent): void {
    this.stop();
    if (event.waitingForNetwork) {
      // Offline: the retry goes out once the browser is back online, so there is nothing to count down.
      this.#render(`Offline: waiting for the network… (attempt ${event.retry + 1} of ${event.retries + 1})`);
      return;
    }
    const end = performance.now() + event.delay;
    const tick = () => {
      const left = end - performance.now();
      if (left <= 0) {
        this.stop();
        this.#render(`Sending attempt ${event.retry + 1} of ${event.retries + 1}…`);
        return;
      }
      this.#render(countdownText(left, event));
    };
    tick();
    this.#interval = setInterval(tick, 100);
  }

  stop(): void {
    if (this.#interval !== undefined) clearInterval(this.#interval);
    this.#interval = undefined;
  }
}
