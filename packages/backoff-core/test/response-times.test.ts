import { describe, expect, it } from 'vitest';
import { ResponseTimes } from '../src/features/hedge.ts';

describe("ResponseTimes (hedge: { delay: 'auto' }): bounded", () => {
  it('keeps at most 1,000 origins, however many answer', () => {
    const times = new ResponseTimes();
    for (let i = 0; i < 5000; i++) times.record(`https://host-${i}.example`, 12);
    expect(times.size).toBe(1000);
  });

  it('a new origin takes the place of the one least recently heard from, not of a busy one', () => {
    const times = new ResponseTimes();
    const learn = (origin: string, n = 20) => {
      for (let i = 0; i < n; i++) times.record(origin, 40 + i);
    };
    learn('https://busy.example');
    for (let i = 0; i < 999; i++) learn(`https://host-${i}.example`);
    // The first one heard from, and heard from again last: it stays, and the next oldest goes.
    learn('https://busy.example', 1);
    learn('https://new.example');
    expect(times.delay('https://busy.example')).toBe(58);
    expect(times.delay('https://host-0.example')).toBeUndefined();
    expect(times.delay('https://host-1.example')).toBe(58);
    expect(times.delay('https://new.example')).toBe(58);
    expect(times.size).toBe(1000);
  });
});
