import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: ((options?: { type: 'minor' }) => void) | undefined;

/**
 * A garbage collection: a full one, or with `'minor'` only the young generation. Works without `--expose-gc` on
 * the command line (so `pnpm bench` and the vitest smoke test need no flags): the flag is set at run time and
 * `gc` is taken from a fresh context, where V8 now installs it.
 */
export function gc(kind: 'full' | 'minor' = 'full'): void {
  if (collect === undefined) {
    const global = globalThis as { gc?: () => void };
    if (typeof global.gc === 'function') {
      collect = global.gc;
    } else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  if (kind === 'minor') collect({ type: 'minor' });
  else collect();
}
