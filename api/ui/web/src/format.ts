// How values, instants and intervals read on every page. Pure, so the tests pin them.

export type Value = number | string | boolean | null;
export type Interval = readonly [string, string | null];

const MIDNIGHT = /T00:00:00(\.0+)?(Z|\+00:00)$/;

// An instant as the API sends it (ISO 8601, UTC): a date when it is a day's first instant
// (every filing date is), otherwise to the second, always in UTC (never the browser's zone).
export function formatInstant(iso: string | null | undefined): string {
  if (iso === null || iso === undefined || iso === "") return "open";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const text = new Date(t).toISOString();
  return MIDNIGHT.test(text) ? text.slice(0, 10) : `${text.slice(0, 19)}Z`;
}

export function formatInterval([start, end]: Interval): string {
  return `${formatInstant(start)} .. ${formatInstant(end)}`;
}

const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 4 });
const percent = new Intl.NumberFormat("en-US", {
  minimumFractionDigits: 2, maximumFractionDigits: 2,
});

export function formatValue(value: Value, unit?: string | null): string {
  if (value === null) return "none";
  if (typeof value === "number") {
    if (unit === "percent") return `${percent.format(value)} %`;
    const text = grouped.format(value);
    return unit ? `${text} ${unit}` : text;
  }
  const text = String(value);
  return unit ? `${text} ${unit}` : text;
}

// A date the <input type=date> gives (YYYY-MM-DD) as the API's instant: that day's first
// instant, UTC. Anything else is refused here with the reason, before a request is made.
export function dateParam(text: string): { ok: true; value: string } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(trimmed) || Number.isNaN(Date.parse(`${trimmed}T00:00:00Z`))) {
    return { ok: false, error: `not a date (YYYY-MM-DD): ${JSON.stringify(trimmed)}` };
  }
  return { ok: true, value: trimmed };
}

// A long id shown whole but breakable; the 80-column trees cut them, the pages never do.
export function shortId(id: string): string {
  return id.length > 24 ? `${id.slice(0, 12)}…${id.slice(-8)}` : id;
}
