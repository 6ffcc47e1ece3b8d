/**
 * The part of OpenTelemetry's API the `tracer` option is read through, written out so that the core names no
 * package: a `Tracer` from `@opentelemetry/api` 1.x fits it.
 */

/** What a span is started with (OpenTelemetry's `SpanOptions`, the fields used here). */
export interface TraceSpanOptions {
  /** OpenTelemetry's `SpanKind`: 0 internal, 2 client. */
  readonly kind?: number;
  readonly attributes?: Readonly<Record<string, string | number | boolean | undefined>>;
}

/** What the `tracer` option takes: an OpenTelemetry `Tracer` (`trace.getTracer('my-app')`). */
export interface TracerLike {
  startSpan(name: string, options?: TraceSpanOptions, context?: unknown): unknown;
}
