import { type HeadersLike, headerGetter } from '../http/headers.js';

/**
 * The response headers in which a server says whether its answer may be retried, in the order they are
 * read. `x-should-retry` is sent by the APIs behind the OpenAI and Anthropic SDKs, `Stripe-Should-Retry` by
 * Stripe's; both SDKs obey them before their own rules.
 */
export const SHOULD_RETRY_HEADERS: readonly string[] = ['x-should-retry', 'stripe-should-retry'];

/**
 * One header's word: `true` or `false` (any case, repeated lines all alike), else nothing. A malformed or
 * self-contradicting header is ignored, as a malformed Retry-After is.
 */
function verdict(value: string | undefined): boolean | undefined {
  const [word, other] = new Set(
    value
      ?.toLowerCase()
      .split(',')
      .map((member) => member.trim()),
  );
  return other === undefined && (word === 'true' || word === 'false') ? word === 'true' : undefined;
}

/**
 * The server's explicit yes or no on retrying this response: `false` when any hint header says `false`, `true`
 * when one says `true` and none says `false`, `undefined` when there is no (well-formed) hint.
 */
export function serverShouldRetry(headers: HeadersLike | undefined | null): boolean | undefined {
  const get = headerGetter(headers);
  let said: boolean | undefined;
  for (const name of SHOULD_RETRY_HEADERS) {
    const yes = verdict(get(name));
    if (yes === false) return false;
    said ??= yes;
  }
  return said;
}
