import { briefly } from '../options/check.js';
import type { ResolvedOptions } from '../options/options.js';

// Bundlers replace it (see options/check.ts).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

/** A random (v4) UUID. */
function uuidV4(): string {
  const c = globalThis.crypto;
  // randomUUID exists only in secure contexts (https, localhost); getRandomValues exists everywhere: each 0 of
  // the template becomes a random hex digit, the 8 one of 8-b (the variant), the 4 stays (the version).
  return typeof c?.randomUUID === 'function'
    ? c.randomUUID()
    : '00000000-0000-4000-8000-000000000000'.replace(/[08]/g, (d) =>
        (+d ^ ((c.getRandomValues(new Uint8Array(1))[0] as number) & (15 >> (+d / 4)))).toString(16),
      );
}

// The IETF Idempotency-Key draft makes the value a Structured Field String (RFC 9651 §3.3.3): visible ASCII
// (0x20-0x7E) in double quotes, where `"` and `\` appear only escaped as `\"` and `\\`. Many servers (Stripe) take
// the same characters unquoted, so a bare key is accepted too, but without `"`, `\` or `,` (a structured-field
// parser would read those as a malformed string or a list) and without spaces at either end (trimmed in transit).
// Both forms in one pattern, for a key that is visible ASCII throughout (NOT_VISIBLE finds none).
const KEY = /^(?:"(?:[^"\\]|\\["\\])+"|[^ "\\,](?:[^"\\,]*[^ "\\,])?)$/;
const NOT_VISIBLE = /[^ -~]/u;

/** Whether a key can be sent as a header value as it is (`idempotencyKeyProblem` says what is wrong otherwise). */
export function isSendableKey(key: string): boolean {
  return !NOT_VISIBLE.test(key) && KEY.test(key);
}

/** What is wrong with a key as a header value, or `undefined` when it can be sent as it is. */
export function idempotencyKeyProblem(key: string): string | undefined {
  if (isSendableKey(key)) return undefined;
  const [char] = NOT_VISIBLE.exec(key) ?? [];
  if (key.trim() === '' || key === '""') return 'it is empty';
  if (char !== undefined) {
    // Clients strip or reject it in transit.
    const hex = (char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
    return `${JSON.stringify(char)} (U+${hex}) is not visible ASCII`;
  }
  // Spaces at either end are trimmed in transit.
  if (key !== key.trim()) return 'it starts or ends with a space';
  if (key.startsWith('"')) return 'it is no well-formed quoted string (escape `"` and `\\` inside)';
  return 'a bare key may not hold `"`, `\\` or `,` (quote it)';
}

/**
 * Throws a TypeError when `key` cannot be sent as it is: a key `idempotencyKey` returned, or (`header` given) the
 * one a request already carries. A production build's message is `briefly`'s, without the problem's text.
 */
export function checkKey(key: string, header?: string): void {
  if (isSendableKey(key)) return;
  if (process.env.NODE_ENV !== 'production') {
    const subject =
      header === undefined
        ? 'Expected `idempotencyKey` to return a key of visible ASCII'
        : `The request's \`${header}\` header cannot be sent as it is`;
    throw new TypeError(`${subject}, got ${JSON.stringify(key)}: ${idempotencyKeyProblem(key)}.`);
  }
  throw new TypeError(
    header === undefined ? briefly('bad-return', 'idempotencyKey', key) : briefly('bad-key', header, key),
  );
}

/**
 * A key for one logical request. `'auto'` gives a UUID as a Structured Field String (quoted), the form the
 * IETF Idempotency-Key draft specifies; a function's return value is used as it is, once it is checked to be a
 * key that can travel (see `idempotencyKeyProblem`).
 */
export function generateIdempotencyKey(setting: Exclude<ResolvedOptions['idempotencyKey'], false>): string {
  if (setting === 'auto') return `"${uuidV4()}"`;
  const key: unknown = setting();
  if (typeof key !== 'string') {
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? `Expected \`idempotencyKey\` to return a string, got ${typeof key}.`
        : briefly('bad-return', 'idempotencyKey', key),
    );
  }
  checkKey(key);
  return key;
}
