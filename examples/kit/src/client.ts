import type { BackoffOptions, BackoffResult, RetryEvent } from 'backoff-core';

/** One request of a scenario, in neutral terms; each example translates it for its client. */
export interface ExampleRequest {
  readonly method: 'GET' | 'POST';
  /** Full URL on the embedded server. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** JSON body, for POSTs. */
  readonly json?: unknown;
  /** Per-request options (each client's own per-request override); `onRetry` always comes from the timeline. */
  readonly backoff: BackoffOptions & { readonly onRetry: (event: RetryEvent) => void };
}

/** How the call ended for the caller: a status, or the client's own error, with the attached backoff result. */
export interface ExampleOutcome {
  readonly status: number | undefined;
  /** `name: message` of the client's own error, when it rejected. */
  readonly error: string | undefined;
  readonly result: BackoffResult | undefined;
}

/** A client with backoff, as an example builds it. */
export interface ExampleClient {
  /** Shown in titles, e.g. 'axios + axios-backoff'. */
  readonly name: string;
  /** Short, URL-safe: keeps each client's paths apart on the shared server. */
  readonly slug: string;
  send(request: ExampleRequest): Promise<ExampleOutcome>;
}

/** `name: message` of an error, for the timeline. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
