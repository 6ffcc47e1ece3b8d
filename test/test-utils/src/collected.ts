import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/** A full GC, without `--expose-gc` on the command line: the flag is set at run time, `gc` taken from a new context. */
function gc(): void {
  if (collect === undefined) {
    const global = globalThis as { gc?: () => void };
    if (typeof global.gc !== 'function') setFlagsFromString('--expose-gc');
    collect = typeof global.gc === 'function' ? global.gc : (runInNewContext('gc') as () => void);
  }
  collect();
}

/**
 * Whether the object `ref` points to has been garbage-collected, after a turn of the event loop (a WeakRef keeps
 * its target until the job that made or read it ends) and a full GC. For "nothing holds X while Y waits" tests.
 */
export async function collected(ref: WeakRef<object>): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  return ref.deref() === undefined;
}
