// The begin step: a call made for one logical request, its generated key stamped, every feature started; an
// open circuit refuses it here, before anything is sent.

import { stop } from '../decide/rules.js';
import { Call, type Policy, type RequestDescription } from './call.js';
import { type FeatureCall, type Stamp, Stopped } from './roles.js';
import { isThenable } from './sleep.js';

/** A started call, and why a feature refused it (then nothing may be sent, and every feature heard it ended). */
export interface Begun {
  readonly call: Call;
  readonly refusal: Stopped | undefined;
}

/**
 * Starts the call of one logical request: a generated key stamped on the request (`stamp` puts it there and returns
 * the headers as they will be sent), every feature told. At once, unless a feature's start answers later (a shared
 * store): then a Promise of it.
 */
export function begin(policy: Policy, request: RequestDescription, stamp: Stamp | undefined): Begun | Later {
  const call = new Call(policy, request);
  if (call.key !== undefined && stamp !== undefined) {
    call.sent(stamp(policy.options.idempotencyKeyHeader, call.key));
  }
  const parts: (FeatureCall | undefined | PromiseLike<FeatureCall | undefined>)[] = [];
  let refusal: Stopped | undefined;
  let async = false;
  for (const feature of policy.features) {
    try {
      const part = feature.start(call);
      async ||= isThenable(part);
      parts.push(part);
    } catch (error) {
      refusal ??= refused(error);
    }
  }
  if (!async) return started(call, parts as (FeatureCall | undefined)[], refusal);
  const later = Promise.allSettled(parts).then((settled) => {
    const features: (FeatureCall | undefined)[] = [];
    for (const part of settled) {
      if (part.status === 'fulfilled') features.push(part.value);
      else refusal ??= refused(part.reason);
    }
    return started(call, features, refusal);
  });
  return Object.assign(later, { call });
}

/** A call whose features start later (a shared store): the call itself is there at once, to end it on an abort. */
export type Later = Promise<Begun> & { readonly call: Call };

/** Why a feature refused a call: an open circuit's `Stopped`, or a callback of the feature's that failed (a key). */
const refused = (error: unknown): Stopped =>
  error instanceof Stopped ? error : new Stopped('callback-error', error);

/** The call with its features' parts; a refused one ended at once for every feature. */
function started(
  call: Call,
  parts: readonly (FeatureCall | undefined)[],
  refusal: Stopped | undefined,
): Begun {
  call.features = parts.filter((part): part is FeatureCall => part !== undefined);
  if (refusal !== undefined) {
    call.last = stop(refusal.reason, undefined);
    call.end(refusal.reason);
  }
  return { call, refusal };
}

/**
 * Starts a call for a client that schedules its own attempts and waits (a simulator in virtual time): decide each
 * attempt with `decide`, wait each retry's delay yourself. Throws the refusal's error when a feature refused the
 * call (an open circuit), and a TypeError when a feature's store answers later (use `runCall` then).
 */
export function startCall(policy: Policy, request: RequestDescription = {}, stamp?: Stamp): Call {
  const begun = begin(policy, request, stamp);
  if (isThenable(begun)) {
    begun.then(undefined, () => {});
    throw new TypeError(
      'A feature of this policy starts a call asynchronously (a shared store): use runCall.',
    );
  }
  if (begun.refusal !== undefined) throw begun.refusal.error;
  return begun.call;
}
