/**
 * The context key of the attributes of the attempt being sent (`attemptAttributes` reads them): a registered
 * symbol, the one `createContextKey` would make, so that a second copy of this package reads the same value.
 */
export const ATTEMPT_ATTRIBUTES: unique symbol = /* @__PURE__ */ Symbol.for(
  'backoff-core attempt attributes',
) as never;
