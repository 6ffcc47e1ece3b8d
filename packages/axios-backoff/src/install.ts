import axios, { type AxiosInstance } from 'axios';
import { type Backoff, createBackoff } from 'backoff-core';
import { briefly } from 'backoff-core/adapter';
import {
  attachedPeer,
  attemptTimeoutError,
  attemptTimeoutMessage,
  failing,
  peerConfigError,
} from './peer-config.js';
import { countCancelled, type Installation, originalAdapter, retryingAdapter } from './retry-adapter.js';
import type { AxiosBackoffOptions } from './types.js';

// Bundlers replace it: a production bundle leaves out the long explanations (docs/errors.md has them).
declare const process: { readonly env: { readonly NODE_ENV?: string | undefined } };

// Registered, so that two copies of this package still see each other on one instance.
const INSTALLED = Symbol.for('axios-backoff.installed');

/** What `axiosBackoff` returns: call it to remove the retries; `backoff` is the policy (options, budget). */
export type RemoveBackoff = (() => void) & {
  /** The policy this installation runs on: its resolved options and the budget its requests share. */
  readonly backoff: Backoff;
};

/** Anything with axios's interceptors and `request`: `axios`, `axios.create()`, `new axios.Axios()`. */
function isAxiosInstance(value: unknown): value is AxiosInstance {
  // No object test of its own: a primitive has no `request` method.
  const candidate = value as Partial<AxiosInstance> | null | undefined;
  return (
    typeof candidate?.request === 'function' &&
    typeof candidate.interceptors?.request?.use === 'function' &&
    typeof candidate.interceptors.request.eject === 'function'
  );
}

/**
 * Adds retries to an axios instance (the default `axios` when none is given) and returns a function that
 * removes them (and carries the policy as `.backoff`). Options are backoff-core's, validated here (a bad one throws a TypeError or RangeError naming
 * it); one budget is shared by all of this instance's requests unless `options.budget` says otherwise.
 *
 * It registers one request interceptor, `{ synchronous: true }`, that hands the request's adapter to
 * axios-backoff: retries happen below every interceptor, so they and `transformRequest` / `transformResponse`
 * run once per logical request. Installing twice on one instance throws: remove the first one before; so does
 * installing on an instance that axios-retry's or retry-axios's interceptors still retry. A request
 * that still carries axios-retry's (`config['axios-retry']`) or retry-axios's (`raxConfig`) settings, its own or
 * the instance's defaults', fails unsent with an AxiosError `'ERR_BAD_OPTION'` that says what each field is here.
 */
export function axiosBackoff(instance: AxiosInstance = axios, options?: AxiosBackoffOptions): RemoveBackoff {
  if (!isAxiosInstance(instance)) {
    throw new TypeError(
      process.env.NODE_ENV !== 'production'
        ? `Expected \`instance\` to be an axios instance (\`axios\` or \`axios.create()\`), got ${instance === null ? 'null' : typeof instance}.`
        : briefly('not-a-client', 'instance', instance),
    );
  }
  if (Object.hasOwn(instance, INSTALLED)) {
    throw new Error(
      process.env.NODE_ENV !== 'production'
        ? 'axiosBackoff is already installed on this axios instance: remove it first.'
        : briefly('already-installed', 'instance', instance),
    );
  }
  const peer = attachedPeer(instance);
  if (peer !== undefined) throw new Error(peer);
  if (options?.attemptTimeout !== undefined) {
    throw new TypeError(attemptTimeoutMessage(options.attemptTimeout, 'in the options of `axiosBackoff`'));
  }
  const installation: Installation = { policy: createBackoff(options), active: true };
  const id = instance.interceptors.request.use(
    (config) => {
      // A peer's settings left behind fail the request unsent, where axios fails any request (never a throw here:
      // axios 1.13 mishandles a synchronous request interceptor that throws).
      const leftover = peerConfigError(config, instance) ?? attemptTimeoutError(config);
      if (leftover !== undefined) {
        config.adapter = failing(leftover);
        return config;
      }
      // axios checks for a cancellation before it calls any adapter: such a call is counted here.
      countCancelled(config, installation);
      const retrying = retryingAdapter(originalAdapter(config.adapter), installation);
      config.adapter = installation.wrap === undefined ? retrying : installation.wrap(retrying);
      return config;
    },
    null,
    // Synchronous, so axios keeps its direct path (an async interceptor is what broke retries in 1.13.3).
    { synchronous: true },
  );
  Object.defineProperty(instance, INSTALLED, { value: installation, configurable: true });

  const remove = () => {
    if (!installation.active) return;
    installation.active = false;
    instance.interceptors.request.eject(id);
    if ((instance as unknown as Record<symbol, unknown>)[INSTALLED] === installation) {
      delete (instance as unknown as Record<symbol, unknown>)[INSTALLED];
    }
  };
  return Object.assign(remove, { backoff: installation.policy });
}
