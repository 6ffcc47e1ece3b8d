import type { Feature } from '../../run/roles.js';
import type { TracerLike } from './otel.js';

type Make = (tracer: TracerLike, redact: ReadonlySet<string>) => Feature;

/**
 * The context key of the attributes of the attempt being sent (`attemptAttributes` reads them): a registered
 * symbol, the one `createContextKey` would make, so that a second copy of this package reads the same value. Here,
 * in the few lines every bundle holds, so that neither the spans' chunk nor `attemptAttributes` brings it twice.
 */
export const ATTEMPT_ATTRIBUTES: unique symbol = /* @__PURE__ */ Symbol.for(
  'backoff-core attempt attributes',
) as never;

/** Made once the trace's code and `@opentelemetry/api` are loaded; shared by every policy of the page. */
let made: Make | undefined;
let loading: Promise<Make> | undefined;

/**
 * The `tracer` option's part in a policy (`redact`: the `redactQueryParams` option). Its code and `@opentelemetry/api` are imported when the first call with a
 * tracer starts (that call waits for them), so a bundle without `tracer` holds only these lines. A missing
 * `@opentelemetry/api` fails each call with an error that says so, before anything is sent.
 */
export function tracing(tracer: TracerLike, redact: ReadonlySet<string>): Feature {
  let feature: Feature | undefined;
  return {
    start(call) {
      if (made !== undefined) {
        feature ??= made(tracer, redact);
        return feature.start(call);
      }
      loading ??= import('./spans.js')
        .then((module) => module.spans())
        .then((make) => {
          made = make;
          return make;
        });
      // Registered in the caller's context: the call's span takes the caller's active span as its parent.
      return loading.then((make) => {
        feature ??= make(tracer, redact);
        return feature.start(call);
      });
    },
  };
}
