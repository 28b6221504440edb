// An injection's trace (GET /v1/injections/{id}/trace): the candidates with their signals, the
// hard filters (the read's bounds, and what each removed), the cuts, the budget, and what was
// handed over and used.

import { get, seg, type TraceOut } from "../api";
import { h } from "../dom";
import { formatInstant } from "../format";
import { factHref } from "../router";
import { definitions, muted, page, type Page } from "./common";

type Considered = { id: string; rank: number; score: number; signals: Record<string, number> };
type Read = Record<string, unknown>;

const show = (v: unknown): string =>
  v === null || v === undefined ? "any" : Array.isArray(v) ? v.join(", ") || "none" : String(v);

// The read's hard bounds, each a filter with its reason; then what each exclusion removed.
export function filters(trace: Record<string, unknown>): [string, string][] {
  const read = (trace.read ?? {}) as Read;
  const rows: [string, string][] = [
    ["scope", `only ${show(read.scope)}${trace.all_scopes ? " (every scope: an admin read)" : ""}`],
    ["knowledge cutoff", `only what was public by ${formatInstant(read.known_at as string | null)}`],
    ["valid time", `only what held in ${Array.isArray(read.valid)
      ? read.valid.map((v) => formatInstant(v as string | null)).join(" .. ") : "any"}`],
    ["system time", `as recorded by ${formatInstant(read.system_at as string | null)}`],
    ["status", `only ${show(read.statuses)}`],
    ["kinds", `only ${show(read.kinds)}`],
    ["authority", `at least ${show(read.min_authority)}`],
  ];
  for (const [reason, count] of Object.entries((trace.excluded ?? {}) as Record<string, number>)) {
    rows.push([`excluded: ${reason}`, `${count} removed (${reason})`]);
  }
  return rows;
}

function candidates(considered: Considered[], fate: (id: string) => string): HTMLElement {
  const signals = [...new Set(considered.flatMap((c) => Object.keys(c.signals)))];
  const head = h("tr", {}, ["rank", "item", "fate", "score", ...signals].map((n) =>
    h("th", { scope: "col" }, n)));
  const rows = considered.map((c) => h("tr", { testid: "trace-candidate", "data-id": c.id },
    h("td", {}, String(c.rank)), h("td", {}, h("a", { href: factHref(c.id) }, c.id)),
    h("td", {}, fate(c.id)), h("td", {}, String(c.score)),
    signals.map((s) => h("td", {}, c.signals[s] === undefined ? "" : String(c.signals[s])))));
  return h("section", {}, h("h2", {}, `Candidates and their signals (${considered.length})`),
    considered.length === 0 ? h("p", {}, "No candidate passed the filters.")
      : h("div", { class: "scroll" }, h("table", {}, h("thead", {}, head), h("tbody", {}, rows))));
}

export async function tracePage(id: string): Promise<Page> {
  const t = await get<TraceOut>(`/v1/injections/${seg(id)}/trace`);
  const tr = t.trace;
  const considered = (tr.considered ?? []) as Considered[];
  const final = (tr.final ?? []) as string[];
  const cut = (tr.cut ?? []) as string[];
  const used = new Set(t.used);
  const verdicts = new Map(t.items.map((v) => [v.id, v]));
  const fate = (id: string): string => used.has(id) ? "used" : final.includes(id) ? "handed over"
    : cut.includes(id) ? "cut by the budget" : verdicts.get(id)?.verdict ?? "not handed over";
  return page(`Context ${t.injection}`,
    definitions([["thread", t.thread], ["built", formatInstant(t.at)], ["by", t.actor],
                 ["mode", String(tr.mode ?? "")], ["legal items", String(tr.legal ?? "")],
                 ["matched", String(tr.matched ?? "")]]),
    h("section", { testid: "trace-budget", class: "budget" }, h("h2", {}, "Budget"),
      h("p", {}, `${show(tr.tokens)} of ${show(tr.budget)} tokens used `
        + `(${show(tr.header_tokens)} for headers), counted in ${show(tr.tokenizer)}`),
      h("meter", { min: 0, max: Number(tr.budget) || 1, value: Number(tr.tokens) || 0,
                   "aria-label": "tokens used of the budget" })),
    h("section", {}, h("h2", {}, "Hard filters"),
      h("ul", {}, filters(tr).map(([name, why]) =>
        h("li", { testid: "trace-filter" }, h("strong", {}, name), ": ", why)))),
    candidates(considered, fate),
    h("section", {}, h("h2", {}, `Cut by the budget (${cut.length})`),
      cut.length ? h("ul", {}, cut.map((c) => h("li", {}, h("a", { href: factHref(c) }, c))))
        : muted("nothing was cut")),
    h("section", { testid: "trace-used" }, h("h2", {}, `Handed over (${final.length}), used (${t.used.length})`),
      final.length ? h("ul", {}, final.map((c) => h("li", {}, h("a", { href: factHref(c) }, c),
        used.has(c) ? h("strong", {}, " used by the agent") : muted(" not marked used"))))
        : h("p", {}, "Nothing was handed over.")));
}
