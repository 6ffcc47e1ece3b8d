import type { ResolvedOptions } from './options.js';

function uuidV4(): string {
  const c = globalThis.crypto;
  // randomUUID exists only in secure contexts (https, localhost); getRandomValues exists everywhere.
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  const bytes = c.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// The IETF Idempotency-Key draft makes the value a Structured Field String (RFC 9651 §3.3.3): visible ASCII
// (0x20-0x7E) in double quotes, where `"` and `\` appear only escaped as `\"` and `\\`. Many servers (Stripe) take
// the same characters unquoted, so a bare key is accepted too, but without `"`, `\` or `,` (a structured-field
// parser would read those as a malformed string or a list) and without spaces at either end (trimmed in transit).
const QUOTED = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])+"$/;
const BARE =
  /^[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e](?:[\x20\x21\x23-\x2b\x2d-\x5b\x5d-\x7e]*[\x21\x23-\x2b\x2d-\x5b\x5d-\x7e])?$/;

/** What is wrong with a key as a header value, or `undefined` when it can be sent as it is. */
export function idempotencyKeyProblem(key: string): string | undefined {
  if (QUOTED.test(key) || BARE.test(key)) return undefined;
  if (key.trim() === '' || key === '""') return 'it is empty';
  for (const char of key) {
    const code = char.codePointAt(0) as number;
    if (code < 0x20 || code > 0x7e) {
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      return `${JSON.stringify(char)} (U+${hex}) is not visible ASCII: clients strip or reject it in transit`;
    }
  }
  if (key !== key.trim()) return 'it starts or ends with a space, which is trimmed in transit';
  if (key.startsWith('"')) {
    return 'it is no well-formed quoted string (a `"` or `\\` inside must be escaped as `\\"` or `\\\\`)';
  }
  return 'a bare key may not hold `"`, `\\` or `,` (quote it as a Structured Field String instead)';
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
    throw new TypeError(`Expected \`idempotencyKey\` to return a string, got ${typeof key}.`);
  }
  const problem = idempotencyKeyProblem(key);
  if (problem !== undefined) {
    throw new TypeError(
      `Expected \`idempotencyKey\` to return a key of visible ASCII, got ${JSON.stringify(key)}: ${problem}.`,
    );
  }
  return key;
}
