import type { BackoffOptions, BackoffResult } from 'backoff-core';
import type { Hit } from './scripted-worker.js';

/** The clients the harness drives, each with backoff. */
export const CLIENTS = ['withBackoff', 'axios-xhr', 'axios-fetch', 'ky'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** The kinds of final error a caller can see, told apart by each client's own types (as in test-utils). */
export type ErrorKindSeen = 'http' | 'network' | 'abort' | 'timeout' | 'other';

/** One request, in neutral terms (test-utils' SuiteRequest, minus what cannot cross into the page). */
export interface PageRequest {
  readonly method: string;
  /** Path below the API's base URL, e.g. '/items'. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as a JSON body. */
  readonly json?: unknown;
  /** Sent as a plain string body (a CORS-simple `text/plain` POST). */
  readonly text?: string;
  readonly signal?: AbortSignal;
  readonly backoff?: BackoffOptions | false;
}

/** How one call ended, as plain data: what the caller got, and the backoff result attached to it. */
export interface Settled {
  readonly ok: boolean;
  readonly status: number | undefined;
  /** Set when the call rejected. */
  readonly errorKind?: ErrorKindSeen;
  /** The rejection's class name and message, for failure messages. */
  readonly error?: string;
  readonly result: BackoffResult | undefined;
}

/** What one case saw, sent back to Node to be asserted there. */
export interface Observation {
  readonly client: ClientName;
  /** Each call's outcome, in order. */
  readonly settled: Settled[];
  /** The worker's record, per scripted path. */
  readonly hits: Record<string, Hit[]>;
  /** Every wait the client asked the clock for, in ms. */
  readonly waits: number[];
  /** Waits neither fired nor cleared once the case ended: must be 0. */
  readonly pendingTimers: number;
  /** Anything else the case measured (onRetry events, ...). */
  readonly extra?: unknown;
}

export type { Hit };
