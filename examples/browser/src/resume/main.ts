import { type BackoffResult, getBackoffResult, ResumeError, withBackoff } from 'backoff-core';
import ky from 'ky';
import { kyBackoff } from 'ky-backoff';

/** What the page read of one body. */
export interface ResumeRead {
  readonly status: number | undefined;
  /** SHA-256 (hex) of the bytes the page read, and their count. */
  readonly sha256: string;
  readonly bytes: number;
  /** The error the body (or the request) failed with: its name, `code` for a ResumeError, and message. */
  readonly error: { readonly name: string; readonly code?: string; readonly message: string } | undefined;
  readonly result: BackoffResult | undefined;
}

/** What the resume probe page exposes to the Node side. */
export interface ResumeProbe {
  /** GETs `url` through `client` with `resume: true` (and `ranges` as given) and reads the body to its end. */
  read(client: 'fetch' | 'ky', url: string, ranges: boolean): Promise<ResumeRead>;
}

declare global {
  interface Window {
    resume: ResumeProbe;
  }
}

// Waits are fired at once: the Node side checks what was sent, not how long the page waited.
const timers = {
  setTimeout: (callback: () => void) => setTimeout(callback, 0),
  clearTimeout: (handle: unknown) => clearTimeout(handle as number),
};

const hex = (digest: ArrayBuffer) =>
  Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');

// No MSW on this page: a real server on another origin cuts the bodies.
window.resume = {
  async read(client, url, ranges) {
    const options = { resume: { ranges }, retries: 5, timers };
    let response: Response | undefined;
    const parts: Uint8Array[] = [];
    let error: ResumeRead['error'];
    try {
      response =
        client === 'fetch'
          ? await withBackoff(fetch, options)(url)
          : await kyBackoff(ky.create({ timeout: false }), options)(url);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parts.push(chunk.value);
    } catch (failure) {
      const { name, message } = failure as Error;
      error = { name, message, ...(failure instanceof ResumeError ? { code: failure.code } : {}) };
    }
    const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      whole.set(part, at);
      at += part.length;
    }
    return {
      status: response?.status,
      sha256: hex(await crypto.subtle.digest('SHA-256', whole)),
      bytes: whole.length,
      error,
      result: response === undefined ? undefined : getBackoffResult(response),
    };
  },
};
