import { type AxiosAdapter, CanceledError, getAdapter, type InternalAxiosRequestConfig } from 'axios';

// axios's runtime signatures, which the type declarations of older 1.x releases (1.13) get wrong or leave out.
// Typed here once so that the sources compile against every supported version's types.

/** What `config.adapter` may be: a name, an adapter function, or a list of them. */
export type AdapterSetting = InternalAxiosRequestConfig['adapter'];

/** `getAdapter(adapters, config)`: the config lets the fetch adapter read `config.env` (1.13 types: one argument). */
export const resolveAdapter = getAdapter as (
  adapters: AdapterSetting,
  config: InternalAxiosRequestConfig,
) => AxiosAdapter;

/** `new CanceledError(message, config)` (1.13 types inherit AxiosError's `(message, code, ...)`). */
export function canceledError(config: InternalAxiosRequestConfig): Error {
  const Canceled = CanceledError as unknown as new (
    message: string | undefined,
    config: InternalAxiosRequestConfig,
  ) => Error;
  return new Canceled(undefined, config);
}

/** A cancel token's listener methods, there since axios 0.22 (1.13 types leave them out). */
export interface CancelTokenListeners {
  subscribe(listener: () => void): void;
  unsubscribe(listener: () => void): void;
}
