/**
 * Why a body cut after the headers could not go on:
 * - `'changed'`: the server now sends another representation (its `ETag` or `Last-Modified` changed, or an
 *   event stream came back as something else), so the rest would not belong to what you already got.
 * - `'no-validator'`: the response had no strong `ETag` and no `Last-Modified` old enough to be strong, so the
 *   server cannot prove that the rest belongs to the same representation.
 * - `'no-ranges'`: the server does not serve byte ranges (`Accept-Ranges: none`, or a `200` came back to a
 *   `Range` request).
 * - `'range-mismatch'`: the `206` does not carry exactly the missing bytes (its `Content-Range` starts elsewhere,
 *   ends elsewhere, states another length, or is missing: a cross-origin response shows it only when the server
 *   lists it in `Access-Control-Expose-Headers`).
 * - `'unsatisfiable'`: a `416` whose stated length is not the length already received.
 * - `'encoded'`: the body has a `Content-Encoding` (gzip, br...): a range counts encoded bytes while you read
 *   decoded ones, so no offset can be asked for.
 * - `'status'`: the new request was answered with a status that carries no continuation (a 404, a 500...).
 * - `'no-event-id'`: an event stream was cut after events reached you while it had no last event id (its events
 *   carry no `id:`, or an empty `id:` reset it): a reconnection could neither skip what you got nor be sure to miss
 *   nothing (`replayEvents` reconnects anyway).
 * - `'event-too-large'`: an event stream was cut inside an event larger than `maxEventSize`, part of which
 *   already reached you.
 * - `'unsafe-method'`: the body of a request other than a GET or a HEAD (a POST's stream, say) was cut: such a
 *   request is not sent again to continue its body.
 */
export type ResumeErrorCode =
  | 'changed'
  | 'no-validator'
  | 'no-ranges'
  | 'range-mismatch'
  | 'unsatisfiable'
  | 'encoded'
  | 'status'
  | 'no-event-id'
  | 'event-too-large'
  | 'unsafe-method';

/**
 * The error a resumed body fails with when the cut could not be repaired without giving you wrong bytes: `code`
 * says why, `cause` is the error the body broke with. A body cut where no retry is allowed fails with that error
 * itself, as it would without `resume`.
 */
export class ResumeError extends Error {
  override name = 'ResumeError';
  /** Why the body could not go on. */
  readonly code: ResumeErrorCode;
  /** Bytes of the body (of complete events, for an event stream) that had reached you before it failed. */
  readonly received: number;

  constructor(code: ResumeErrorCode, message: string, received: number, cause: unknown) {
    super(message, { cause });
    this.code = code;
    this.received = received;
  }
}
