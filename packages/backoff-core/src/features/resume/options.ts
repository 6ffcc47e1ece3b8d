import { type Check, checked, fail, oneOf, range } from '../../options/check.js';
import { describeValue } from '../../options/show.js';

/**
 * The `resume` option as settings: how a body cut after the headers goes on. `resume: true` takes every default.
 */
export interface ResumeOptions {
  /**
   * Continue a body cut after some bytes reached you from where it stopped, with `Range` and `If-Range`, when the
   * server proves it is the same representation. `false`: such a cut fails as it would without `resume`.
   * @default true
   */
  ranges?: boolean | undefined;
  /**
   * Reconnect a `text/event-stream` cut after some events reached you, with `Last-Event-ID` (the id of the last
   * event you got) and after the wait the stream's `retry:` field asked for. You get whole events only, so a cut
   * never hands you half of one.
   * @default true
   */
  eventStreams?: boolean | undefined;
  /**
   * Reconnect an event stream even when the server cannot be told where you are: its events carry no `id:`, or an
   * event with an empty `id:` reset the last event id. The reconnection then sends no `Last-Event-ID`, as
   * EventSource does, and the server decides where to start again: events you already got may come again (tell
   * them apart by their data). `false`: such a cut fails with a `ResumeError` `'no-event-id'`, so that you never
   * read an event twice.
   * @default false
   */
  replayEvents?: boolean | undefined;
  /**
   * Request the body again whole when it is cut before any byte of it reached you.
   * @default true
   */
  restart?: boolean | undefined;
  /**
   * The largest unfinished event of an event stream held back until it is complete, in bytes. A longer event is
   * handed over as it arrives; a cut inside it then fails (`ResumeError` `'event-too-large'`) rather than repeat it.
   * @default 1048576 (1 MiB)
   */
  maxEventSize?: number | undefined;
}

/** The `resume` option after validation (`resume: false` or absent resolves to `undefined`). */
export interface ResolvedResumeOptions {
  readonly ranges: boolean;
  readonly eventStreams: boolean;
  readonly replayEvents: boolean;
  readonly restart: boolean;
  readonly maxEventSize: number;
}

/** What `resume: true` means. */
export const RESUME_DEFAULTS: ResolvedResumeOptions = {
  ranges: true,
  eventStreams: true,
  replayEvents: false,
  restart: true,
  maxEventSize: 1024 * 1024,
};

const flag = oneOf([true, false], 'a boolean');

const RESUME_CHECKS: Readonly<Record<keyof ResumeOptions, Check>> = {
  ranges: flag,
  eventStreams: flag,
  replayEvents: flag,
  restart: flag,
  // Held in memory per stream: 64 MiB is already far beyond any event a browser's EventSource would be fed.
  maxEventSize: range(64 * 1024 * 1024, 1, 'an integer'),
};

/** Checks the `resume` option: `true`, `false` (off) or settings. */
export const checkResume: Check = (value, name) => {
  if (value === false) return undefined;
  if (value === true) return RESUME_DEFAULTS;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(
      name,
      value,
      `true, false or { ranges?, eventStreams?, replayEvents?, restart?, maxEventSize? }, got ${describeValue(value)}`,
    );
  }
  return { ...RESUME_DEFAULTS, ...checked(value, RESUME_CHECKS, 'resume', '', `${name}.`) };
};
