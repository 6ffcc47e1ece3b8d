import { describe, expect, it } from 'vitest';
import { escapeXml, formatTick, lineChart, niceTicks, type Series, smallMultiples } from '../src/svg.js';

/** A minimal well-formedness check: one root <svg>, every tag closed in order, no stray `<` or `&`. */
function parse(svg: string): { tags: string[]; polylines: string[] } {
  expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
  expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
  const stack: string[] = [];
  const tags: string[] = [];
  const polylines: string[] = [];
  const text = svg.replace(/<([^>]*)>/g, (_whole, inner: string) => {
    if (inner.startsWith('/')) {
      expect(stack.pop()).toBe(inner.slice(1));
    } else {
      const name = /^[a-z]+/.exec(inner)?.[0] ?? expect.unreachable(inner);
      tags.push(name);
      if (name === 'polyline') polylines.push(inner);
      if (!inner.endsWith('/')) stack.push(name);
      // Attribute values are quoted and escaped.
      expect(inner.replace(/"[^"]*"/g, '')).not.toMatch(/["<&]/);
    }
    return '';
  });
  expect(stack).toEqual([]);
  expect(text).not.toMatch(/[<>]|&(?!amp;|lt;|gt;|quot;)/);
  expect(tags[0]).toBe('svg');
  expect(tags.filter((t) => t === 'svg')).toHaveLength(1);
  return { tags, polylines };
}

const series: readonly Series[] = [
  {
    name: 'full jitter',
    points: [
      [0, 1],
      [1, 4],
      [2, 9],
    ] as const,
  },
  {
    name: 'a <b> & "c"',
    points: [
      [0, 2],
      [1, 3],
      [2, 100],
    ] as const,
  },
  {
    name: 'flat',
    points: [
      [0, 0],
      [2, 0],
    ] as const,
    dashed: true,
  },
];

describe('lineChart', () => {
  it('writes well-formed SVG with one polyline per series and a legend entry each', () => {
    const svg = lineChart({
      title: 'Load & <calls>',
      xLabel: 'x',
      yLabel: 'y',
      series,
      guides: [{ y: 5, label: 'cap' }],
      markers: [{ x: 1, label: 'up <now>' }],
    });
    const { polylines } = parse(svg);
    expect(polylines).toHaveLength(3);
    expect(polylines[1]).toContain('data-series="a &lt;b&gt; &amp; &quot;c&quot;"');
    expect(svg).toContain('<title>Load &amp; &lt;calls&gt;</title>');
    expect(svg).toContain('>up &lt;now&gt;</text>');
    for (const s of series) expect(svg).toContain(`>${escapeXml(s.name)}</text>`);
    // Each polyline has one x,y pair per point, all inside the canvas.
    const pairs = polylines.map((p) => (/points="([^"]*)"/.exec(p)?.[1] ?? '').split(' '));
    expect(pairs.map((p) => p.length)).toEqual([3, 3, 2]);
    for (const pair of pairs.flat()) {
      const [x, y] = pair.split(',').map(Number) as [number, number];
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(860);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(y).toBeLessThanOrEqual(440);
    }
  });

  it('draws higher values higher, on a symlog axis too, and zero on the x axis', () => {
    for (const yScale of ['linear', 'symlog'] as const) {
      const svg = lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: series.slice(1, 2), yScale });
      const points =
        /points="([^"]*)"/
          .exec(svg)?.[1]
          ?.split(' ')
          .map((p) => Number(p.split(',')[1])) ?? [];
      expect(points[0]).toBeGreaterThan(points[1] as number);
      expect(points[1]).toBeGreaterThan(points[2] as number);
    }
  });
});

describe('smallMultiples', () => {
  it('draws one panel per entry with its own polyline, sharing the axes', () => {
    const svg = smallMultiples({
      title: 'herd',
      xLabel: 'time (s)',
      yLabel: 'requests per 100 ms',
      yScale: 'symlog',
      panels: series.map((s) => ({ title: s.name, series: [s], guides: [{ y: 20, label: 'capacity' }] })),
    });
    const { polylines } = parse(svg);
    expect(polylines).toHaveLength(3);
    expect(svg.match(/capacity<\/text>/g)).toHaveLength(3);
  });
});

describe('ticks', () => {
  it('are round numbers covering the range', () => {
    expect(niceTicks(100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(181, 8)).toEqual([0, 50, 100, 150, 200]);
    expect(niceTicks(60, 8)).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(niceTicks(0.7, 4)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(formatTick(12345)).toBe('12,345');
    expect(formatTick(0.25)).toBe('0.25');
  });
});
