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

/**
 * A key for one logical request. `'auto'` gives a UUID as a Structured Field String (quoted), the form the
 * IETF Idempotency-Key draft specifies; a function's return value is used as it is.
 */
export function generateIdempotencyKey(setting: Exclude<ResolvedOptions['idempotencyKey'], false>): string {
  if (setting === 'auto') return `"${uuidV4()}"`;
  const key = setting();
  if (typeof key !== 'string' || key === '' || /[\r\n\0]/.test(key)) {
    throw new TypeError('Expected `idempotencyKey` to return a non-empty string without line breaks.');
  }
  return key;
}
