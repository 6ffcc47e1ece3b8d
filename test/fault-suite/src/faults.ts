/** One thing the fault server can do with a request. */
export type Fault =
  /** A normal response (hostile headers included: a value may be a list, sent as repeated header lines). */
  | {
      readonly kind: 'respond';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string | readonly string[]>>;
      readonly body?: string;
    }
  /** Read the request, then reset the connection (RST) before any byte of a response. */
  | { readonly kind: 'reset' }
  /** Write the headers and half the promised body, then close the connection. */
  | { readonly kind: 'cut-body'; readonly status: number }
  /** Write a complete header block that promises a body, then close the connection. */
  | { readonly kind: 'headers-only'; readonly status: number }
  /** Never answer (until the server closes): for the client's own per-attempt timeout. */
  | { readonly kind: 'stall' }
  /** On a kept-alive connection that already served a request, reset it (RST); on a fresh one, answer 200. */
  | { readonly kind: 'reset-reused' }
  /** 503 (with `retryAfter`, if given) until `forMs` after the path's first request, on the server's clock; then 200. */
  | { readonly kind: 'unavailable'; readonly forMs: number; readonly retryAfter?: string }
  /** `status` for every `k`-th request by arrival order over the whole server, 200 for the others. */
  | { readonly kind: 'every'; readonly k: number; readonly status: number };

/**
 * A fault, or a shorthand: a status code, a fault's name for those that need nothing more, or a server that says
 * "now": `now` (a 503 with `Retry-After: 0`), `past` (a 429 whose Retry-After is a date long past).
 */
export type Step =
  | Fault
  | number
  | 'reset'
  | 'cut-body'
  | 'headers-only'
  | 'stall'
  | 'reset-reused'
  | 'now'
  | 'past';

/** A Retry-After date long past: "come back now", written as a date. */
export const PAST_DATE = 'Wed, 21 Oct 2015 07:28:00 GMT';

export function toFault(step: Step): Fault {
  if (typeof step === 'number') return { kind: 'respond', status: step };
  if (step === 'now') return { kind: 'respond', status: 503, headers: { 'Retry-After': '0' } };
  if (step === 'past') return { kind: 'respond', status: 429, headers: { 'Retry-After': PAST_DATE } };
  if (step === 'cut-body' || step === 'headers-only') return { kind: step, status: 200 };
  if (typeof step === 'string') return { kind: step };
  return step;
}

const NAMED: ReadonlySet<string> = new Set([
  'reset',
  'cut-body',
  'headers-only',
  'stall',
  'reset-reused',
  'now',
  'past',
]);

/**
 * The script written in a path: `/fault/<step>,<step>,.../<anything>`, each step a status code or a fault name
 * (`reset`, `cut-body`, `headers-only`, `stall`, `reset-reused`, `now`, `past`); the last step repeats. The tail makes the
 * path, and so its counters, unique per logical request. `undefined` for any other path.
 */
export function parseFaultPath(path: string): Fault[] | undefined {
  const match = /^\/fault\/([^/]+)(?:\/.*)?$/.exec(path);
  if (!match) return undefined;
  const steps = (match[1] as string).split(',').map((token): Step | undefined => {
    if (/^[1-5]\d\d$/.test(token)) return Number(token);
    return NAMED.has(token) ? (token as Step) : undefined;
  });
  if (steps.some((step) => step === undefined)) return undefined;
  return (steps as Step[]).map(toFault);
}

/** The path of a logical request whose attempts follow `steps`, unique by `id`. */
export function faultPath(steps: readonly (number | string)[], id: string | number): string {
  return `/fault/${steps.join(',')}/${id}`;
}
