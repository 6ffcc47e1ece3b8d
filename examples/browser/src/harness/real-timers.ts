import type { RetryEvent } from 'backoff-core';
import { createClient } from './clients.js';
import { API, type Route, type ScriptedWorker } from './scripted-worker.js';
import type { ClientName, Settled } from './types.js';

/**
 * One call on the page's own timers (no `timers` / `now` injected: the core's defaults, `globalThis.setTimeout`),
 * held open so the Node side can move Playwright's page clock or abort it while the wait is pending.
 */
export class RealTimerCall {
  readonly #route: Route;
  readonly #controller = new AbortController();
  readonly #settled: Promise<Settled>;
  /** Attempts handed to the browser so far, counted synchronously as each one leaves. */
  sent = 0;
  /** Resolves with the first onRetry event: the wait starts right after it. */
  readonly retrying: Promise<RetryEvent>;

  constructor(worker: ScriptedWorker, client: ClientName, path: string) {
    worker.reset();
    this.#route = worker.script(path, [503, 200]);
    let onRetry: (event: RetryEvent) => void = () => {};
    this.retrying = new Promise((resolve) => {
      onRetry = resolve;
    });
    const c = createClient(client, API, { random: () => 0.5, onRetry }, () => {
      this.sent += 1;
    });
    this.#settled = c.send({ method: 'GET', path, signal: this.#controller.signal });
  }

  /** Requests that reached the worker so far (a request can still be on its way: see `sent`). */
  get hits(): number {
    return this.#route.hits.length;
  }

  /** The call's outcome, once it settles. */
  settled(): Promise<Settled> {
    return this.#settled;
  }

  /** Aborts with the page's AbortController and returns how the call ended. */
  abort(): Promise<Settled> {
    this.#controller.abort();
    return this.#settled;
  }
}
