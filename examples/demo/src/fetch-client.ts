import { type BackoffOptions, getBackoffResult, withBackoff } from 'backoff-core';
import { Timeline } from './timeline.js';

/** Where the demo writes, and the options every client shares (tests inject a virtual clock here). */
export interface DemoContext {
  readonly log: (line: string) => void;
  readonly options: BackoffOptions;
  readonly now: () => number;
}

/** One request through `withBackoff(fetch)`, printed attempt by attempt. */
export async function fetchCall(
  context: DemoContext,
  title: string,
  url: string,
  init: RequestInit = {},
): Promise<number | undefined> {
  const timeline = new Timeline(title, context.log, context.now);
  // The wrapped fetch sees every attempt: that is where the timeline's rows come from.
  const observed = async (input: RequestInfo | URL, attemptInit?: RequestInit) => {
    timeline.begin();
    try {
      const response = await fetch(input, attemptInit);
      timeline.end(response.status);
      return response;
    } catch (error) {
      timeline.end(undefined, error);
      throw error;
    }
  };
  const fetchWithBackoff = withBackoff(observed, { ...context.options, onRetry: timeline.onRetry });
  try {
    const response = await fetchWithBackoff(url, init);
    await response.text();
    timeline.finish(`${response.status}`, getBackoffResult(response));
    return response.status;
  } catch (error) {
    timeline.finish(`failed: ${String(error)}`, getBackoffResult(error));
    return undefined;
  }
}
