// ky 2 passes every hook one state object; ky 1 passes `beforeRequest`, `afterResponse` and `beforeError` their
// arguments one by one. These read either shape into one view, so each hook is written once.

/** The fields of ky's normalized options that the hooks read (ky strips its own options from them in 2.x). */
export interface HookOptions {
  readonly context?: unknown;
  readonly body?: unknown;
  readonly backoff?: unknown;
  readonly retry?: unknown;
  /** Seen by ky 1.x hooks only (ky 2 strips it): kyBackoff reads it where it cannot force a retry (ky 1.13). */
  readonly throwHttpErrors?: unknown;
}

export interface RequestHookView {
  readonly request: Request;
  readonly options: HookOptions;
}

export interface ResponseHookView extends RequestHookView {
  readonly response: Response;
}

function isStateObject(args: readonly unknown[]): args is [Record<string, unknown>] {
  return args.length === 1 && typeof args[0] === 'object' && args[0] !== null && 'options' in args[0];
}

/**
 * `beforeRequest({request, options})` (2.x) or `beforeRequest(request, options, state)` (1.x): its first two
 * arguments (on the success path: no array of arguments per call).
 */
export function requestHookView(first: unknown, second: unknown): RequestHookView {
  if (second === undefined) return first as RequestHookView;
  return { request: first as Request, options: second as HookOptions };
}

/** `afterResponse({request, options, response})` (2.x) or `afterResponse(request, options, response)` (1.x). */
export function responseHookView(args: readonly unknown[]): ResponseHookView {
  if (isStateObject(args)) return args[0] as unknown as ResponseHookView;
  return {
    request: args[0] as Request,
    options: (args[1] ?? {}) as HookOptions,
    response: args[2] as Response,
  };
}

/**
 * `beforeError({error, options})` (2.x, every final error) or `beforeError(error, state)` (1.x, HTTPError only,
 * whose `options` are the request's).
 */
export function errorHookView(args: readonly unknown[]): {
  readonly error: unknown;
  readonly options: HookOptions | undefined;
} {
  if (isStateObject(args)) {
    const state = args[0] as { error: unknown; options: HookOptions };
    return { error: state.error, options: state.options };
  }
  const error = args[0];
  return { error, options: (error as { options?: HookOptions } | null)?.options };
}
