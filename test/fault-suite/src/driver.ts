import type { BackoffClientDriver, Settled, SuiteRequest } from '@backoff/test-utils';
import type { BackoffOptions } from 'backoff-core';

/** How the client's own transport is set up for a test, beyond the backoff options. */
export interface Transport {
  /** The client's own per-attempt timeout in ms (axios/ky `timeout`; a timed fetch for withBackoff). */
  readonly timeout?: number;
}

/** One client with backoff, as a fault test uses it. `close()` frees what the client holds (agents). */
export interface FaultClient {
  send(request: SuiteRequest): Promise<Settled>;
  close(): void;
}

/**
 * The shared suite's driver (`BackoffClientDriver`), extended with what faults need: the client's own timeout,
 * a way to free its sockets, and a check that an error is one of the client's own types.
 */
export interface FaultDriver extends BackoffClientDriver {
  /**
   * Whether the response body is read inside the attempt, so that a body cut short is a failed attempt
   * (axios reads it in its adapter). fetch and ky resolve at the headers: the body is the caller's to read.
   */
  readonly bodyInAttempt: boolean;
  create(baseUrl: string, options: BackoffOptions, transport?: Transport): FaultClient;
  /** Whether `error` is one the caller of this client expects: the client's own classes, never a wrapper. */
  isOwnError(error: unknown): boolean;
}
