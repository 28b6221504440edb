// The evaluation report (GET /v1/eval/report: what `vintage eval --record` kept) and a scope's
// memory health (GET /v1/eval/health), shown as they came: tables for lists of records.

import { get } from "../api";
import { h } from "../dom";
import { formatInstant } from "../format";
import { hrefFor, type Params } from "../router";
import { definitions, errorLine, page, type Page } from "./common";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Report {
  event: string;
  at: string;
  actor: string;
  summary: Json;
}

function isRecordList(v: Json): v is { [k: string]: Json }[] {
  return Array.isArray(v) && v.length > 0
    && v.every((x) => x !== null && typeof x === "object" && !Array.isArray(x));
}

export function render(value: Json, depth = 0): Node {
  if (value === null || typeof value !== "object") {
    return document.createTextNode(value === null ? "none" : String(value));
  }
  if (isRecordList(value)) {
    const columns = [...new Set(value.flatMap((r) => Object.keys(r)))];
    return h("div", { class: "scroll" }, h("table", {},
      h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, value.map((r) => h("tr", {}, columns.map((c) =>
        h("td", {}, r[c] === undefined ? "" : render(r[c]!, depth + 1))))))));
  }
  const entries = Object.entries(value);
  if (!Array.isArray(value) && entries.length <= 6
      && entries.every(([, v]) => v === null || typeof v !== "object")) {
    return document.createTextNode(entries.map(([k, v]) => `${k}: ${v ?? "none"}`).join(", "));
  }
  if (Array.isArray(value)) {
    return value.length ? h("ul", {}, value.map((v) => h("li", {}, render(v, depth + 1))))
      : document.createTextNode("none");
  }
  return h("dl", { class: depth ? "nested" : "facts" }, entries.flatMap(([k, v]) =>
    [h("dt", {}, k), h("dd", {}, render(v, depth + 1))]));
}

type Layer = { passed: number; total: number; score: number } | null;
type Rung = { rung: string; layers?: Record<string, Layer>; failures?: Json[] } & { [k: string]: Json };

// A layer's score as the CLI prints it: passed/total, none when the rung has no such layer.
export function layerText(layer: Layer | undefined): string {
  return layer ? `${layer.passed}/${layer.total} (${layer.score.toFixed(3)})` : "none";
}

const RUNG_FIGURES = ["memory_caused_errors", "errors_added_over_below", "refusals_right"];

// The ladder as one table (a row per rung, a column per layer), each rung's failures under
// it; anything else the summary holds is shown as it came.
function summary(value: Json): Node {
  if (value === null || typeof value !== "object" || Array.isArray(value)
      || !Array.isArray(value.rungs)) return render(value);
  const rungs = value.rungs as Rung[];
  const layers = [...new Set(rungs.flatMap((r) => Object.keys(r.layers ?? {})))];
  const rest = Object.fromEntries(Object.entries(value).filter(([k]) => k !== "rungs"));
  return h("div", {}, render(rest),
    h("h3", {}, "Score per rung and layer (checks passed / checks)"),
    h("div", { class: "scroll" }, h("table", {},
      h("thead", {}, h("tr", {}, ["rung", ...layers, ...RUNG_FIGURES.map((f) => f.replace(/_/g, " "))]
        .map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, rungs.map((r) => h("tr", { testid: "eval-rung" },
        h("th", { scope: "row" }, r.rung),
        layers.map((l) => h("td", {}, layerText(r.layers?.[l]))),
        RUNG_FIGURES.map((f) => h("td", {}, r[f] === undefined ? "" : String(r[f])))))))),
    rungs.map((r) => h("details", {},
      h("summary", {}, `${r.rung}: ${(r.failures ?? []).length} failed checks, and every figure`),
      render(Object.fromEntries(Object.entries(r).filter(([k]) => k !== "rung")), 1))));
}

function healthForm(params: Params): HTMLFormElement {
  return h("form", { class: "search-form", onsubmit: (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    location.hash = hrefFor({ page: "eval", params: {
      user: String(data.get("user") ?? "").trim(), project: String(data.get("project") ?? "").trim(),
      days: String(data.get("days") ?? "").trim() } });
  } },
    h("div", { class: "field" }, h("label", { for: "h-user" }, "User"),
      h("input", { id: "h-user", name: "user", value: params.user ?? "" })),
    h("div", { class: "field" }, h("label", { for: "h-project" }, "Project"),
      h("input", { id: "h-project", name: "project", value: params.project ?? "" })),
    h("div", { class: "field" }, h("label", { for: "h-days" }, "Days"),
      h("input", { id: "h-days", name: "days", type: "number", min: 1, value: params.days ?? "30" })),
    h("div", { class: "field" }, h("button", { type: "submit" }, "Show health")));
}

async function health(params: Params): Promise<Node> {
  if (!params.user && !params.project) {
    return h("p", { class: "muted" }, "Name a user or a project to see its memory health.");
  }
  try {
    const found = await get<Json>("/v1/eval/health", {
      user: params.user, project: params.project, days: params.days });
    return h("div", { testid: "eval-health" }, render(found));
  } catch (e) {
    return errorLine(e);
  }
}

export async function evalPage(params: Params): Promise<Page> {
  const [report, scoped] = await Promise.all([
    get<Report>("/v1/eval/report").then((r) => h("div", { testid: "eval-report" },
      definitions([["recorded", formatInstant(r.at)], ["by", r.actor], ["event", r.event]]),
      summary(r.summary)), errorLine),
    health(params)]);
  return page("Evaluation and health",
    h("h2", {}, "The latest evaluation report"), report,
    h("h2", {}, "Memory health of a scope"), healthForm(params), scoped);
}
