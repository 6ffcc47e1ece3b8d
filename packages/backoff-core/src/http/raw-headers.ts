import type { HeaderGetter } from './headers.js';

/** A header getter over Node's `rawHeaders` (`[name, value, name, value...]`): repeated headers joined with ", ". */
export function receivedHeaders(rawHeaders: readonly string[]): HeaderGetter {
  return (name) => {
    const wanted = name.toLowerCase();
    const values: string[] = [];
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      if ((rawHeaders[i] as string).toLowerCase() === wanted) values.push(rawHeaders[i + 1] as string);
    }
    return values.length === 0 ? undefined : values.join(', ');
  };
}
