import { describe, expect, it } from 'vitest';
import { EventQueue } from '../src/event-queue.js';
import { Network } from '../src/request.js';
import { mulberry32 } from '../src/rng.js';
import { Histogram, mean, quantile } from '../src/stats.js';

describe('EventQueue', () => {
  it('runs events in time order, ties in the order they were scheduled', () => {
    const queue = new EventQueue();
    const seen: string[] = [];
    const log = (name: string) => () => seen.push(`${name}@${queue.now}`);
    queue.at(30, log('c'));
    queue.at(10, log('a1'));
    queue.at(20, () => {
      seen.push(`b@${queue.now}`);
      queue.after(0, log('b-now'));
      queue.after(5, log('b+5'));
    });
    queue.at(10, log('a2'));
    // Many events in reverse order exercise the heap, not just a sorted insert.
    for (let t = 100; t > 40; t--) queue.at(t, log(`t${t}`));
    queue.run();
    expect(seen.slice(0, 6)).toEqual(['a1@10', 'a2@10', 'b@20', 'b-now@20', 'b+5@25', 'c@30']);
    expect(seen.slice(6)).toEqual(Array.from({ length: 60 }, (_, i) => `t${41 + i}@${41 + i}`));
    expect(queue.processed).toBe(66);
    expect(queue.size).toBe(0);
  });

  it('refuses to schedule in the past, and can stop at a time', () => {
    const queue = new EventQueue();
    queue.at(10, () => expect(() => queue.at(5, () => {})).toThrow(RangeError));
    queue.at(50, () => {});
    queue.run(20);
    expect(queue.now).toBe(10);
    expect(queue.size).toBe(1);
    expect(() => queue.after(Number.NaN, () => {})).toThrow(RangeError);
  });
});

describe('Network', () => {
  it('delays each message by |N(delay, (0.2 delay)^2)|', () => {
    const network = new Network(new EventQueue(), 10, mulberry32(1));
    const legs = Array.from({ length: 20_000 }, () => network.leg());
    const m = mean(legs);
    const sd = Math.sqrt(mean(legs.map((x) => (x - m) ** 2)));
    expect(m).toBeCloseTo(10, 1);
    expect(sd).toBeCloseTo(2, 1);
    expect(Math.min(...legs)).toBeGreaterThanOrEqual(0);
  });

  it('answers at the server after one leg and at the client after another', () => {
    const queue = new EventQueue();
    const network = new Network(queue, 0, mulberry32(1));
    const times: number[] = [];
    queue.at(7, () =>
      network.call(
        (now) => {
          times.push(now);
          return 'pong';
        },
        (reply) => times.push(reply === 'pong' ? queue.now : -1),
      ),
    );
    queue.run();
    expect(times).toEqual([7, 7]);
  });
});

describe('stats', () => {
  it('quantile uses the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile(values, 1)).toBe(100);
    expect(quantile([], 0.5)).toBeUndefined();
  });

  it('Histogram counts per bucket and finds the peak', () => {
    const h = new Histogram(100);
    for (const t of [0, 99, 100, 250, 260, 270]) h.add(t);
    expect(h.counts).toEqual([2, 1, 3]);
    expect(h.peak()).toEqual({ count: 3, at: 200 });
    expect(h.peak(300)).toEqual({ count: 0, at: 0 });
    expect(h.padded(5)).toEqual([2, 1, 3, 0, 0]);
  });
});
