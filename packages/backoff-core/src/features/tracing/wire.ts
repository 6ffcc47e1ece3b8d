/** What an app's HTTP instrumentation reads of the attempt it sends, from the context the send runs in. */

import { describeValue } from '../../options/show.js';
import { ATTEMPT_ATTRIBUTES } from './context-key.js';

/** An OpenTelemetry `Context` (`context.active()`), the one member read here. */
export interface ContextLike {
  getValue(key: symbol): unknown;
}

/**
 * The attributes an HTTP instrumentation's CLIENT span takes from the attempt it is sent for: its
 * `http.request.resend_count` (on a retry) and `backoff.hedge.copy` (on a hedge's copy); none outside a traced
 * send. Give it `context.active()` from the instrumentation's start hook (`startSpanHook` of the undici
 * instrumentation, `startOutgoingSpanHook` of the http one).
 */
export function attemptAttributes(context: ContextLike): Readonly<Record<string, number>> {
  if (typeof (context as Partial<ContextLike> | null)?.getValue !== 'function') {
    throw new TypeError(
      `Expected \`attemptAttributes\` to be given the active OpenTelemetry context, got ${describeValue(context)}: write \`() => attemptAttributes(context.active())\`.`,
    );
  }
  const attributes = context.getValue(ATTEMPT_ATTRIBUTES);
  return typeof attributes === 'object' && attributes !== null
    ? (attributes as Readonly<Record<string, number>>)
    : {};
}
