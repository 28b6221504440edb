// The fact page's timeline: each version's interval on one axis (valid, knowledge or system)
// as a bar, in percent of the lane's width (so it reads on a narrow window as on a wide one).
// Each axis has its own scale: valid time is a quarter in 2018, knowledge time the years the
// filings came out, system time when this store recorded them.

import type { Interval } from "./format";

export type Axis = "valid" | "knowledge" | "system";
export const AXES: readonly Axis[] = ["valid", "knowledge", "system"];

export interface Bar {
  left: number; // percent of the lane
  width: number; // percent of the lane, at least MIN_WIDTH so an instant stays visible
  open: boolean; // no end: still holds, drawn to the lane's end
}

export interface Tick {
  at: number; // percent of the lane
  label: string;
}

export interface Scale {
  min: number; // ms since 1970
  max: number; // the lane's right end: past every end and start
  ticks: Tick[];
}

export const MIN_WIDTH = 0.8;
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;

function ms(iso: string): number {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) throw new Error(`not an instant: ${JSON.stringify(iso)}`);
  return t;
}

// A tick reads as a date when the lane spans days; within a few days, to the minute; within a
// few minutes (a store that recorded every version in one run), to the second. Always UTC.
export function tickLabel(t: number, span: number): string {
  const text = new Date(t).toISOString();
  if (span >= 3 * DAY) return text.slice(0, 10);
  return `${text.slice(0, 10)} ${text.slice(11, span >= 3 * MINUTE ? 16 : 19)}Z`;
}

// The lane spans the earliest start to the latest known instant (a start or an end); open
// ends run on past it, into a margin of a tenth of the span, so "open" reads as open.
export function scaleFor(intervals: readonly Interval[], tickCount = 4): Scale {
  if (intervals.length === 0) return { min: 0, max: DAY, ticks: [] };
  const starts = intervals.map(([s]) => ms(s));
  const ends = intervals.flatMap(([, e]) => (e === null ? [] : [ms(e)]));
  const min = Math.min(...starts);
  let last = Math.max(...starts, ...ends);
  // At least a minute: versions recorded in the same second still get a readable lane.
  if (last - min < MINUTE) last = min + MINUTE;
  const open = intervals.some(([, e]) => e === null);
  const max = open ? last + (last - min) / 10 : last;
  const ticks: Tick[] = [];
  for (let i = 0; i < tickCount; i++) {
    const t = min + ((last - min) * i) / (tickCount - 1);
    ticks.push({ at: ((t - min) / (max - min)) * 100, label: tickLabel(t, last - min) });
  }
  return { min, max, ticks };
}

export function place(scale: Scale, [start, end]: Interval): Bar {
  const span = scale.max - scale.min;
  const at = (t: number): number => Math.min(100, Math.max(0, ((t - scale.min) / span) * 100));
  const left = at(ms(start));
  const right = end === null ? 100 : at(ms(end));
  return { left, width: Math.max(MIN_WIDTH, right - left), open: end === null };
}

export interface Lane {
  axis: Axis;
  scale: Scale;
  bars: Bar[];
}

export type Versioned = Record<Axis, Interval>;

export function lanes(versions: readonly Versioned[]): Lane[] {
  return AXES.map((axis) => {
    const scale = scaleFor(versions.map((v) => v[axis]));
    return { axis, scale, bars: versions.map((v) => place(scale, v[axis])) };
  });
}
