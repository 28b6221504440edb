// The metric page's chart: one figure's value at each cutoff, as a step line (a value holds
// from the cutoff it was first seen at until the next): what was known when. Pure layout here;
// pages/metric.ts draws it in SVG.

export interface Point {
  at: string; // the cutoff (ISO instant)
  value: number | null; // null: nothing could be computed then
}

export interface Placed {
  x: number;
  y: number | null;
  at: string;
  value: number | null;
}

export interface ChartLayout {
  points: Placed[];
  path: string; // SVG path of the steps through the known values
  yTicks: { y: number; value: number }[];
}

export const PAD = { left: 64, right: 16, top: 12, bottom: 28 };

export function chartLayout(points: readonly Point[], width: number, height: number): ChartLayout {
  const times = points.map((p) => Date.parse(p.at));
  const values = points.flatMap((p) => (p.value === null ? [] : [p.value]));
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  const lo = values.length ? Math.min(...values) : 0;
  const hi = values.length ? Math.max(...values) : 1;
  const pad = hi === lo ? Math.max(Math.abs(hi) * 0.1, 1) : (hi - lo) * 0.1;
  const [v0, v1] = [lo - pad, hi + pad];
  const w = width - PAD.left - PAD.right;
  const hgt = height - PAD.top - PAD.bottom;
  const x = (t: number): number => PAD.left + (t1 === t0 ? w / 2 : ((t - t0) / (t1 - t0)) * w);
  const y = (v: number): number => PAD.top + (1 - (v - v0) / (v1 - v0)) * hgt;
  const placed = points.map((p, i) => ({
    x: x(times[i]!), y: p.value === null ? null : y(p.value), at: p.at, value: p.value,
  }));
  let path = "";
  let last: Placed | null = null;
  for (const p of placed) {
    if (p.y === null) {
      last = null; // nothing known: the line breaks
      continue;
    }
    path += last === null ? `M${p.x},${p.y}` : `H${p.x}V${p.y}`;
    last = p;
  }
  const yTicks = [0, 1, 2, 3].map((i) => {
    const value = v0 + ((v1 - v0) * i) / 3;
    return { y: y(value), value };
  });
  return { points: placed, path, yTicks };
}
