import { withBackoff } from 'backoff-core';
import { describe, expect, it, vi } from 'vitest';

// Counts the imports of the spans' module: the policy reaches it through a dynamic import only.
const imports = vi.hoisted(() => ({ spans: 0 }));
vi.mock('../src/features/tracing/spans.ts', async (original) => {
  imports.spans++;
  return original();
});

const ok = () => Promise.resolve(new Response('ok'));
const tracer = {
  startSpan: () => ({
    end() {},
    setAttribute() {},
    setAttributes() {},
    setStatus() {},
    addEvent() {},
    spanContext: () => ({ traceId: '0'.repeat(32), spanId: '0'.repeat(16), traceFlags: 0 }),
    isRecording: () => false,
  }),
};

describe('the spans code loads only for a policy with a tracer', () => {
  it('a call without tracer never imports it', async () => {
    const api = withBackoff(ok);
    await api('https://example.com/a');
    await api('https://example.com/b', { backoff: { retries: 1 } });
    expect(imports.spans).toBe(0);
  });

  it('the first call with a tracer imports it, once for every later call and policy', async () => {
    await withBackoff(ok, { tracer: tracer as never })('https://example.com/a');
    expect(imports.spans).toBe(1);
    await withBackoff(ok, { tracer: tracer as never })('https://example.com/b');
    expect(imports.spans).toBe(1);
  });
});
