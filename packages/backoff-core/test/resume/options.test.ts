import { createBackoff } from 'backoff-core';
import { describe, expect, it } from 'vitest';

describe('the resume option', () => {
  it('is off unless given', () => {
    expect(createBackoff().options.resume).toBeUndefined();
    expect(createBackoff({ resume: false }).options.resume).toBeUndefined();
  });

  it('true takes every default', () => {
    expect(createBackoff({ resume: true }).options.resume).toEqual({
      ranges: true,
      eventStreams: true,
      replayEvents: false,
      restart: true,
      maxEventSize: 1_048_576,
    });
  });

  it('settings are laid over the defaults, and an undefined field keeps its default', () => {
    expect(
      createBackoff({ resume: { ranges: false, maxEventSize: 4096, restart: undefined } }).options.resume,
    ).toEqual({ ranges: false, eventStreams: true, replayEvents: false, restart: true, maxEventSize: 4096 });
  });

  it('a per-request override replaces the policy resume setting, and false turns it off', () => {
    const policy = createBackoff({ resume: { eventStreams: false } });
    expect(policy.extend({ resume: true }).options.resume?.eventStreams).toBe(true);
    expect(policy.extend({ resume: false }).options.resume).toBeUndefined();
    expect(policy.extend({ retries: 1 }).options.resume?.eventStreams).toBe(false);
  });
});
