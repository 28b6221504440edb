// One figure across cutoffs: what was known when, as a chart and a table (one row per cutoff).

import { get, seg } from "../api";
import { chartLayout, PAD } from "../chart";
import { h, svg } from "../dom";
import { dateParam, formatInstant, formatValue } from "../format";
import { factHref, hrefFor, type Params } from "../router";
import { page, type Page } from "./common";

export interface Vintage {
  cutoff: string;
  value: number | null;
  unit: string | null;
  fact_id: string | null;
  method: string | null;
  refused: string | null;
}

interface MetricAnswer {
  metric: string;
  cutoff: string;
  answers: { subject: string; value: number | null; unit: string | null; method: string | null;
             fact_id: string | null; refused: string | null }[];
}

// GET /v1/metrics/{metric}/cutoffs: one answer per cutoff, in the order asked.
interface Vintages {
  metric: string;
  period: string;
  answers: MetricAnswer[];
}

// Without cutoffs in the address: each half-year end from the period's year on (FY2018Q1:
// 2018-06-30 .. 2020-12-31), or the last three years' for LTM or a span; never past today.
export function defaultCutoffs(period: string, today: Date): string[] {
  const year = /^FY(\d{4})/.exec(period)?.[1];
  const now = today.toISOString().slice(0, 10);
  const first = year ? Number(year) : today.getUTCFullYear() - 2;
  const out: string[] = [];
  for (let y = first; y <= first + 2; y++) {
    for (const end of [`${y}-06-30`, `${y}-12-31`]) if (end <= now) out.push(end);
  }
  return out.length ? out : [now];
}

// One row per cutoff: the subject's answer then (a refusal or nothing is a row too).
export function rowsOf(found: Vintages, subject: string, cutoffs: string[]): Vintage[] {
  return found.answers.map((a, i) => {
    const one = a.answers.find((x) => x.subject.toUpperCase() === subject.toUpperCase())
      ?? a.answers[0];
    return { cutoff: cutoffs[i] ?? a.cutoff, value: one?.value ?? null, unit: one?.unit ?? null,
             fact_id: one?.fact_id ?? null, method: one?.method ?? null,
             refused: one?.refused ?? null };
  });
}

async function vintages(metric: string, subject: string, period: string,
                        cutoffs: string[]): Promise<Vintage[]> {
  const found = await get<Vintages>(`/v1/metrics/${seg(metric)}/cutoffs`,
                                    { subject, cutoff: cutoffs, period });
  return rowsOf(found, subject, cutoffs);
}

function chart(rows: Vintage[]): SVGElement {
  const [width, height] = [640, 240];
  const layout = chartLayout(rows.map((r) => ({ at: r.cutoff, value: r.value })), width, height);
  const unit = rows.find((r) => r.unit)?.unit ?? null;
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img",
                      "data-testid": "metric-chart",
                      "aria-label": `value at each cutoff: ${rows.map((r) =>
                        `${r.cutoff} ${formatValue(r.value, r.unit)}`).join("; ")}` },
    ...layout.yTicks.map((t) => svg("g", {},
      svg("line", { x1: PAD.left, x2: width - PAD.right, y1: t.y, y2: t.y, class: "grid" }),
      label(svg("text", { x: PAD.left - 6, y: t.y + 4, "text-anchor": "end" }),
            formatValue(Number(t.value.toPrecision(4)), unit === "percent" ? "percent" : null)))),
    svg("path", { d: layout.path, class: "line" }),
    ...layout.points.map((p, i, all) => svg("g", {},
      p.y === null ? null : svg("circle", { cx: p.x, cy: p.y, r: 4, class: "dot" }),
      // the first and last dates sit inside the drawing, not centred past its edges
      label(svg("text", { x: p.x, y: height - 8, "text-anchor": all.length > 1 && i === 0 ? "start"
                          : all.length > 1 && i === all.length - 1 ? "end" : "middle" }),
            p.at.slice(0, 10)))));
}

function label(el: SVGElement, text: string): SVGElement {
  el.textContent = text;
  return el;
}

export async function metricPage(metric: string, params: Params): Promise<Page> {
  const subject = params.subject ?? "";
  const period = params.period ?? "LTM";
  const cutoffs = (params.cutoffs ?? defaultCutoffs(period, new Date()).join(","))
    .split(",").map((c) => c.trim()).filter(Boolean);
  const bad = cutoffs.map(dateParam).find((d) => !d.ok);
  const fields = h("form", { class: "search-form", onsubmit: (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    location.hash = hrefFor({ page: "metric", metric, params: {
      subject: String(data.get("subject") ?? ""), period: String(data.get("period") ?? ""),
      cutoffs: String(data.get("cutoffs") ?? "") } });
  } },
    h("div", { class: "field" }, h("label", { for: "m-subject" }, "Subject"),
      h("input", { id: "m-subject", name: "subject", value: subject, required: true })),
    h("div", { class: "field" }, h("label", { for: "m-period" }, "Period"),
      h("input", { id: "m-period", name: "period", value: period })),
    h("div", { class: "field wide" }, h("label", { for: "m-cutoffs" }, "Cutoffs (comma-separated dates)"),
      h("input", { id: "m-cutoffs", name: "cutoffs", value: cutoffs.join(",") })),
    h("div", { class: "field" }, h("button", { type: "submit" }, "Show")));
  if (!subject) return page(`Metric ${metric}`, fields, h("p", {}, "Name a subject (a ticker or CIK)."));
  if (bad && !bad.ok) return page(`Metric ${metric}`, fields, h("p", { class: "error", role: "alert" }, bad.error));
  const rows = await vintages(metric, subject, period, cutoffs);
  return page(`${metric} of ${subject}, ${period}, across cutoffs`, fields, chart(rows),
    h("div", { class: "scroll" }, h("table", {},
      h("thead", {}, h("tr", {}, ["cutoff", "value", "method", "fact"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows.map((r) => h("tr", { testid: "metric-row" },
        h("td", {}, formatInstant(r.cutoff)),
        h("td", {}, r.refused ? `refused: ${r.refused}` : formatValue(r.value, r.unit)),
        h("td", {}, r.method ?? ""),
        h("td", {}, r.fact_id ? h("a", { href: factHref(r.fact_id) }, r.fact_id) : "none")))))));
}
