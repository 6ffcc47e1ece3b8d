import ky, { type KyInstance, type Options } from 'ky';
import ky1 from 'ky-1';
import { type KyBackoffRequestOptions, kyBackoff } from 'ky-backoff';
import { describe, expectTypeOf, it } from 'vitest';

// Checked by `tsc -p tsconfig.test.json` (the package's typecheck); at run time these only build functions.
describe('types', () => {
  it('returns the type of the instance it was given, for either major', () => {
    expectTypeOf(kyBackoff(ky)).toEqualTypeOf<KyInstance>();
    expectTypeOf(kyBackoff(ky1)).toEqualTypeOf<typeof ky1>();
    expectTypeOf(kyBackoff(ky.create({ timeout: 1 }), { retries: 1 })).toEqualTypeOf<KyInstance>();
  });

  it('types `backoff` in ky’s request options (module augmentation of `ky`)', () => {
    const api = kyBackoff(ky);
    expectTypeOf<Options['backoff']>().toEqualTypeOf<KyBackoffRequestOptions['backoff']>();
    const calls = [
      () => api.get('https://example.test', { backoff: { retries: 1, jitter: 'none' } }),
      () => api.post('https://example.test', { backoff: false, json: {} }),
      // @ts-expect-error: not a backoff option
      () => api.get('https://example.test', { backoff: { retriez: 1 } }),
      // @ts-expect-error: `true` is not an override
      () => api.get('https://example.test', { backoff: true }),
    ];
    expectTypeOf(calls).toBeArray();
  });

  it('rejects what is not a ky instance, and bad options, at compile time', () => {
    const calls = [
      // @ts-expect-error: not a ky instance
      () => kyBackoff({}),
      // @ts-expect-error: not an option
      () => kyBackoff(ky, { retriez: 1 }),
    ];
    expectTypeOf(calls).toBeArray();
  });
});
