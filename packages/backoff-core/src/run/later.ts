import type { Feature } from './roles.js';

/** Each `load` once loaded, or loading: shared by every policy of the page. */
const modules = new Map<() => Promise<unknown>, { loading: Promise<unknown>; loaded?: { value: unknown } }>();

/**
 * A feature whose code is imported when the first call that needs it starts (that call waits for it; the calls
 * after it start at once), so that a bundle holds only this until then. `load` (a constant of its module: the
 * key its code is loaded once under, for every policy) imports the code; `make` makes the policy's feature of it.
 * A `load` that fails fails each call with its error, before anything is sent.
 */
export function later<M>(load: () => Promise<M>, make: (module: M) => Feature): Feature {
  let feature: Feature | undefined;
  const made = (module: M) => {
    feature ??= make(module);
    return feature;
  };
  return {
    start(call) {
      if (feature !== undefined) return feature.start(call);
      let entry = modules.get(load);
      if (entry === undefined) {
        const loading = load().then((value) => {
          modules.set(load, { loading, loaded: { value } });
          return value;
        });
        entry = { loading };
        modules.set(load, entry);
      }
      if (entry.loaded !== undefined) return made(entry.loaded.value as M).start(call);
      // Registered in the caller's context: a trace's call span takes the caller's active span as its parent.
      return entry.loading.then((module) => made(module as M).start(call));
    },
  };
}
