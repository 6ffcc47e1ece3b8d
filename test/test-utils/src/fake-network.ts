import type { NetworkStatus } from 'backoff-core';

/**
 * A device's online state for the `network` option, switched by the test: `online` is read by
 * `isOnline()`, `goOnline()` comes back online and fires the `online` listeners, and `listeners` counts the ones
 * still registered (0 once every wait is over: no listener may outlive its wait).
 */
export class FakeNetwork implements NetworkStatus {
  online: boolean;
  readonly #listeners = new Set<() => void>();

  constructor(online = true) {
    this.online = online;
  }

  isOnline(): boolean {
    return this.online;
  }

  onOnline(listener: () => void): () => void {
    // Wrapped, so that one listener registered by two waits counts twice.
    const own = () => listener();
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  get listeners(): number {
    return this.#listeners.size;
  }

  goOnline(): void {
    this.online = true;
    for (const listener of [...this.#listeners]) listener();
  }
}
