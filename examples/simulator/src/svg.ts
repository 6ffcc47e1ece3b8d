/**
 * A tiny hand-written SVG line-chart writer: axes, ticks, labels, a legend and one polyline per series. No
 * dependencies, and the files stand on their own (a white background so they read on dark themes too, system
 * fonts, no scripts or styles), so they render the same in a browser, on GitHub and in an image viewer.
 */

export interface Series {
  readonly name: string;
  readonly points: ReadonlyArray<readonly [number, number]>;
  readonly color?: string | undefined;
  readonly dashed?: boolean | undefined;
}

/** A labelled horizontal reference line (e.g. the server's capacity). */
export interface Guide {
  readonly y: number;
  readonly label: string;
}

/** A labelled vertical reference line (e.g. the moment a server comes back). */
export interface Marker {
  readonly x: number;
  readonly label: string;
}

/**
 * `linear`, or `symlog`: y drawn as log10(1 + y), so values spanning 0 to 10,000 fit on one axis and 0 stays
 * exactly 0 (a plain log axis cannot draw the empty buckets).
 */
export type YScale = 'linear' | 'symlog';

export interface ChartOptions {
  readonly title: string;
  readonly subtitle?: string | undefined;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly guides?: readonly Guide[] | undefined;
  readonly markers?: readonly Marker[] | undefined;
  readonly yScale?: YScale | undefined;
  /** Axis bounds; by default 0 to the data's maximum (rounded up to a tick). */
  readonly xMax?: number | undefined;
  readonly yMax?: number | undefined;
  /** @default 860 */
  readonly width?: number | undefined;
  /** @default 440 */
  readonly height?: number | undefined;
}

export interface Panel {
  readonly title: string;
  readonly series: readonly Series[];
  readonly guides?: readonly Guide[] | undefined;
}

export interface PanelsOptions {
  readonly title: string;
  readonly subtitle?: string | undefined;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly panels: readonly Panel[];
  /** Vertical lines drawn in every panel. */
  readonly markers?: readonly Marker[] | undefined;
  readonly yScale?: YScale | undefined;
  readonly xMax?: number | undefined;
  /** One y axis for every panel, so their heights compare directly. */
  readonly yMax?: number | undefined;
  /** @default 860 */
  readonly width?: number | undefined;
  /** @default 120 */
  readonly panelHeight?: number | undefined;
}

/**
 * Tableau 10 (its yellow and pink darkened so that titles drawn in them read on white): distinct at a glance and
 * still readable for most colour-blind readers.
 */
export const PALETTE: readonly string[] = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#c49a00',
  '#b07aa1',
  '#d37295',
  '#9c755f',
  '#bab0ac',
];

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

/** Escapes text for SVG content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** Round tick values from 0 to at least max: the smallest step of 1, 2 or 5 x 10^k giving at most `count` steps. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  const ticks: number[] = [];
  for (let i = 0; i * step < max + step * 0.999; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

/** 0 and powers of ten up to the first one at or above `max` (1 is left out when 10 fits: it sits on top of 0). */
function symlogTicks(max: number): number[] {
  const ticks = [0];
  for (let v = max > 10 ? 10 : 1; ticks.length < 8; v *= 10) {
    ticks.push(v);
    if (v >= max) break;
  }
  return ticks;
}

/** A tick label: thousands separated, at most two decimals. */
export function formatTick(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  const [whole = '0', fraction] = String(Math.abs(rounded)).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${rounded < 0 ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

interface Frame {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

interface Axes {
  readonly xTicks: readonly number[];
  readonly yTicks: readonly number[];
  readonly xMax: number;
  readonly yMax: number;
  readonly scale: YScale;
}

function dataMax(series: readonly Series[], index: 0 | 1): number {
  let max = 0;
  for (const s of series) for (const point of s.points) max = Math.max(max, point[index]);
  return max;
}

function axes(
  series: readonly Series[],
  guides: readonly Guide[],
  scale: YScale,
  xMax?: number,
  yMax?: number,
): Axes {
  const xTicks = niceTicks(xMax ?? dataMax(series, 0), 8);
  const highest = yMax ?? Math.max(dataMax(series, 1), ...guides.map((g) => g.y));
  const yTicks = scale === 'symlog' ? symlogTicks(highest) : niceTicks(highest, 4);
  return {
    xTicks,
    yTicks,
    xMax: xMax ?? (xTicks.at(-1) as number),
    yMax: yMax ?? (yTicks.at(-1) as number),
    scale,
  };
}

function yValue(value: number, scale: YScale): number {
  return scale === 'symlog' ? Math.log10(1 + Math.max(0, value)) : value;
}

/** One plot: grid, axes, ticks, guides and the series' polylines, inside `frame`. */
function plot(
  frame: Frame,
  a: Axes,
  series: readonly Series[],
  guides: readonly Guide[],
  markers: readonly Marker[],
  colors: readonly string[],
  showXTickLabels: boolean,
): string[] {
  const px = (x: number) => frame.x + (Math.min(x, a.xMax) / a.xMax) * frame.width;
  const top = yValue(a.yMax, a.scale);
  const py = (y: number) => frame.y + frame.height - (Math.min(yValue(y, a.scale), top) / top) * frame.height;
  const out: string[] = [];
  const bottom = frame.y + frame.height;

  out.push(`<g stroke="#e6e6e6" stroke-width="1">`);
  for (const t of a.yTicks)
    out.push(`<line x1="${frame.x}" y1="${r(py(t))}" x2="${frame.x + frame.width}" y2="${r(py(t))}"/>`);
  for (const t of a.xTicks)
    out.push(`<line x1="${r(px(t))}" y1="${frame.y}" x2="${r(px(t))}" y2="${bottom}"/>`);
  out.push('</g>');

  out.push(`<g ${FONT} font-size="11" fill="#555">`);
  for (const t of a.yTicks) {
    out.push(`<text x="${frame.x - 6}" y="${r(py(t) + 4)}" text-anchor="end">${formatTick(t)}</text>`);
  }
  if (showXTickLabels) {
    for (const t of a.xTicks) {
      out.push(`<text x="${r(px(t))}" y="${bottom + 15}" text-anchor="middle">${formatTick(t)}</text>`);
    }
  }
  out.push('</g>');

  for (const guide of guides) {
    const y = r(py(guide.y));
    out.push(
      `<line x1="${frame.x}" y1="${y}" x2="${frame.x + frame.width}" y2="${y}" stroke="#333" stroke-width="1" stroke-dasharray="5 4"/>`,
      `<text x="${frame.x + frame.width - 4}" y="${y - 4}" text-anchor="end" ${FONT} font-size="11" fill="#333">${escapeXml(guide.label)}</text>`,
    );
  }

  for (const marker of markers) {
    const x = r(px(marker.x));
    out.push(
      `<line x1="${x}" y1="${frame.y}" x2="${x}" y2="${bottom}" stroke="#888" stroke-width="1" stroke-dasharray="2 3"/>`,
      `<text x="${x + 4}" y="${frame.y + 12}" ${FONT} font-size="11" fill="#555">${escapeXml(marker.label)}</text>`,
    );
  }

  series.forEach((s, i) => {
    const color = s.color ?? colors[i % colors.length] ?? '#000';
    const points = flatten(s.points.map(([x, y]) => [r(px(x)), r(py(y))] as const))
      .map(([x, y]) => `${x},${y}`)
      .join(' ');
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<polyline data-series="${escapeXml(s.name)}" fill="none" stroke="${color}" stroke-width="1.6" stroke-linejoin="round"${dash} points="${points}"/>`,
    );
  });

  out.push(
    `<line x1="${frame.x}" y1="${bottom}" x2="${frame.x + frame.width}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${frame.x}" y1="${frame.y}" x2="${frame.x}" y2="${bottom}" stroke="#333"/>`,
  );
  return out;
}

/** Drops the inner points of horizontal runs (long stretches of empty buckets): the same line, a smaller file. */
function flatten(points: ReadonlyArray<readonly [number, number]>): Array<readonly [number, number]> {
  return points.filter((point, i) => {
    const before = points[i - 1];
    const after = points[i + 1];
    return before === undefined || after === undefined || before[1] !== point[1] || after[1] !== point[1];
  });
}

function r(value: number): number {
  return Math.round(value * 10) / 10;
}

function open(width: number, height: number, title: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
}

function heading(title: string, subtitle: string | undefined, x: number): string[] {
  const out = [
    `<text x="${x}" y="24" ${FONT} font-size="16" font-weight="600" fill="#111">${escapeXml(title)}</text>`,
  ];
  if (subtitle)
    out.push(`<text x="${x}" y="42" ${FONT} font-size="12" fill="#555">${escapeXml(subtitle)}</text>`);
  return out;
}

function axisLabels(frame: Frame, xLabel: string, yLabel: string, xLabelY: number): string[] {
  const cy = frame.y + frame.height / 2;
  return [
    `<text x="${frame.x + frame.width / 2}" y="${xLabelY}" text-anchor="middle" ${FONT} font-size="12" fill="#333">${escapeXml(xLabel)}</text>`,
    `<text x="16" y="${cy}" transform="rotate(-90 16 ${cy})" text-anchor="middle" ${FONT} font-size="12" fill="#333">${escapeXml(yLabel)}</text>`,
  ];
}

/** A line chart with one polyline per series and a legend on the right. */
export function lineChart(options: ChartOptions): string {
  const width = options.width ?? 860;
  const height = options.height ?? 440;
  const guides = options.guides ?? [];
  // Wide enough for the longest name (12 px sans-serif: about 7 px a character), so no legend is cut at the edge.
  const longest = Math.max(0, ...options.series.map((s) => s.name.length));
  const legendWidth = Math.max(190, 28 + Math.ceil(longest * 7));
  const top = options.subtitle ? 60 : 44;
  const frame: Frame = { x: 70, y: top, width: width - 70 - legendWidth - 20, height: height - top - 52 };
  const a = axes(options.series, guides, options.yScale ?? 'linear', options.xMax, options.yMax);
  const out = open(width, height, options.title);
  out.push(...heading(options.title, options.subtitle, frame.x));
  out.push(...plot(frame, a, options.series, guides, options.markers ?? [], PALETTE, true));
  out.push(...axisLabels(frame, options.xLabel, options.yLabel, frame.y + frame.height + 36));
  const lx = frame.x + frame.width + 20;
  options.series.forEach((s, i) => {
    const y = frame.y + 8 + i * 20;
    const color = s.color ?? PALETTE[i % PALETTE.length] ?? '#000';
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(
      `<line x1="${lx}" y1="${y}" x2="${lx + 22}" y2="${y}" stroke="${color}" stroke-width="2.5"${dash}/>`,
      `<text x="${lx + 28}" y="${y + 4}" ${FONT} font-size="12" fill="#222">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/**
 * Small multiples: one panel per strategy, stacked, sharing the x axis (and the y axis when `yMax` is given),
 * so each strategy's curve is readable on its own and the panels still compare at a glance.
 */
export function smallMultiples(options: PanelsOptions): string {
  const width = options.width ?? 860;
  const panelHeight = options.panelHeight ?? 120;
  const gap = 30;
  const top = options.subtitle ? 64 : 48;
  const allSeries = options.panels.flatMap((p) => p.series);
  const allGuides = options.panels.flatMap((p) => p.guides ?? []);
  const a = axes(allSeries, allGuides, options.yScale ?? 'linear', options.xMax, options.yMax);
  const height = top + options.panels.length * (panelHeight + gap) + 36;
  const out = open(width, height, options.title);
  out.push(...heading(options.title, options.subtitle, 70));
  options.panels.forEach((panel, i) => {
    const frame: Frame = {
      x: 70,
      y: top + i * (panelHeight + gap) + 16,
      width: width - 70 - 24,
      height: panelHeight,
    };
    const color = PALETTE[i % PALETTE.length] ?? '#000';
    out.push(
      `<text x="${frame.x}" y="${frame.y - 5}" ${FONT} font-size="12" font-weight="600" fill="${color}">${escapeXml(panel.title)}</text>`,
    );
    const colors = panel.series.length === 1 ? [color] : PALETTE;
    out.push(
      ...plot(
        frame,
        a,
        panel.series,
        panel.guides ?? [],
        options.markers ?? [],
        colors,
        i === options.panels.length - 1,
      ),
    );
    if (i === Math.floor(options.panels.length / 2)) {
      out.push(...axisLabels(frame, '', options.yLabel, 0).slice(1));
    }
  });
  const lastBottom = top + options.panels.length * (panelHeight + gap) - gap + 16;
  out.push(
    `<text x="${70 + (width - 94) / 2}" y="${lastBottom + 34}" text-anchor="middle" ${FONT} font-size="12" fill="#333">${escapeXml(options.xLabel)}</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
