import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, type Span, SpanKind, type Tracer, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

export type { ReadableSpan };
export { SpanKind };

/**
 * An OpenTelemetry SDK for tests, registered globally (context manager, W3C propagator, tracer provider) through
 * the one `@opentelemetry/api` copy the core loads too: spans kept in memory, and a tracer that counts how often
 * each of its spans was ended.
 */
export class TraceRecorder {
  readonly exporter = new InMemorySpanExporter();
  readonly provider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: this.exporter })],
  });
  readonly #inner: Tracer;
  /** Spans started through `tracer`, and how often each was ended. */
  readonly #ends = new Map<Span, number>();

  constructor() {
    trace.disable();
    context.disable();
    propagation.disable();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(this.provider);
    this.#inner = this.provider.getTracer('backoff-test');
  }

  /** The tracer to pass as the `tracer` option. */
  readonly tracer: Tracer = {
    startSpan: (name, options, parent) => {
      const span = this.#inner.startSpan(name, options, parent);
      this.#ends.set(span, 0);
      const end = span.end.bind(span);
      span.end = (time) => {
        this.#ends.set(span, (this.#ends.get(span) ?? 0) + 1);
        end(time);
      };
      return span;
    },
    startActiveSpan: (() => {
      throw new Error('not used by backoff');
    }) as Tracer['startActiveSpan'],
  };

  /** Every finished span, in the order they ended. */
  spans(): ReadableSpan[] {
    return this.exporter.getFinishedSpans();
  }

  /** Spans `tracer` started that were not ended exactly once. */
  unbalanced(): number {
    let count = 0;
    for (const ends of this.#ends.values()) if (ends !== 1) count++;
    return count;
  }

  /** Spans `tracer` started. */
  get started(): number {
    return this.#ends.size;
  }

  reset(): void {
    this.exporter.reset();
    this.#ends.clear();
  }
}

/** The span id of a span's parent, or undefined for a root. */
export const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

/** A span's own id. */
export const idOf = (span: ReadableSpan): string => span.spanContext().spanId;

/** One request as the server saw it: its path and every `traceparent` header line it carried. */
export interface TracedArrival {
  readonly path: string;
  readonly traceparents: string[];
}

/**
 * A real server on 127.0.0.1 that answers each path with the statuses scripted for it, in turn (then 200), and
 * records the `traceparent` lines of every request (from the raw headers: a repeated header is seen twice).
 */
export class TraceServer {
  readonly arrivals: TracedArrival[] = [];
  readonly #scripts = new Map<string, number[]>();
  #server: Server | undefined;
  base = '';

  script(path: string, statuses: number[]): void {
    this.#scripts.set(path, [...statuses]);
  }

  async listen(): Promise<void> {
    this.#server = createServer((request: IncomingMessage, response) => {
      const path = request.url ?? '/';
      const traceparents: string[] = [];
      for (let i = 0; i < request.rawHeaders.length; i += 2) {
        if (request.rawHeaders[i]?.toLowerCase() === 'traceparent') {
          traceparents.push(request.rawHeaders[i + 1] as string);
        }
      }
      this.arrivals.push({ path, traceparents });
      const status = this.#scripts.get(path)?.shift() ?? 200;
      request.resume();
      response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  reset(): void {
    this.arrivals.length = 0;
    this.#scripts.clear();
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}
