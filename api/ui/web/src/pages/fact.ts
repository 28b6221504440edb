// The fact page: every version of the assertion (GET /v1/facts/history), each on the three
// time axes drawn as bands, with its sources, the change class of each revision, and an "as
// of" control asking GET /v1/facts at an instant what a question returned then.

import { get, seg, type Explanation, type FactOut, type FactView, type Impact, type Source } from "../api";
import { lanes, AXES, type Axis } from "../bands";
import { h } from "../dom";
import { dateParam, formatInstant, formatInterval, formatValue } from "../format";
import { factHref, hrefFor, type Params } from "../router";
import { definitions, errorLine, muted, page, sourceItem, staleFlag, type Page } from "./common";

const AXIS_TITLE: Record<Axis, string> = {
  valid: "Valid time: when it was true of the world",
  knowledge: "Knowledge time: when it was public",
  system: "System time: when this store recorded it",
};

const explanation = (id: string): Promise<Explanation> =>
  get<Explanation>(`/v1/facts/${seg(id)}/explanation`);

export function history(f: FactView): Promise<{ items: FactOut[] }> {
  return get<{ items: FactOut[] }>("/v1/facts/history", {
    subject: f.subject, predicate: f.predicate, valid_from: f.valid[0],
    valid_to: f.valid[1] ?? undefined, unit: f.unit ?? undefined,
  });
}

// A derived version cites no source of its own: its sources are those of its inputs, read
// from its derivation tree.
function treeSources(e: Explanation): Source[] {
  const found = new Map<string, Source>();
  const walk = (step: Explanation["root"]): void => {
    for (const s of step.sources) found.set(s.id, s);
    for (const j of step.derived_by) for (const i of j.inputs) walk(i.step);
  };
  walk(e.root);
  return [...found.values()].sort((a, b) => a.available_at.localeCompare(b.available_at));
}

// The change class of a revision, as the source that brought it recorded it: the impact of
// each source the version has and its predecessor had not lists what that source revised.
async function changeClass(version: FactOut, sources: Source[], before: Source[] | null,
                           impacts: Map<string, Promise<Impact>>): Promise<string> {
  if (before === null) return "first version";
  const had = new Set(before.map((s) => s.id));
  for (const s of sources.filter((s) => !had.has(s.id))) {
    if (!impacts.has(s.id)) impacts.set(s.id, get<Impact>(`/v1/sources/${seg(s.id)}/impact`));
    const revised = (await impacts.get(s.id)!).revised.find((r) => r.new?.id === version.id);
    if (revised) return revised.change ? `${revised.revision}: ${revised.change}` : revised.revision;
  }
  return "revised (class not recorded)";
}

function timeline(versions: FactOut[]): HTMLElement {
  return h("div", { class: "timeline" }, lanes(versions).map((lane) =>
    h("section", { class: `lane lane-${lane.axis}`, "aria-label": AXIS_TITLE[lane.axis] },
      h("h3", {}, AXIS_TITLE[lane.axis]),
      h("div", { class: "lane-row ticks", "aria-hidden": "true" }, h("span"),
        h("span", { class: "tick-track" }, lane.scale.ticks.map((t, i) => {
          const tick = h("span", { class: i === 0 ? "tick first" : "tick" }, t.label);
          tick.style.left = `${t.at}%`;
          return tick;
        }))),
      versions.map((v, i) => {
        const bar = lane.bars[i]!;
        const band = h("span", { class: `band band-${lane.axis}${bar.open ? " open" : ""}`,
                                 testid: `band-${lane.axis}`, title: formatInterval(v[lane.axis]),
                                 "data-version": v.id });
        band.style.left = `${bar.left}%`;
        band.style.width = `${bar.width}%`;
        return h("div", { class: "lane-row" },
                 h("span", { class: "lane-label" }, `r${v.revision}`),
                 h("span", { class: "track" }, band),
                 h("span", { class: "lane-text" }, formatInterval(v[lane.axis])));
      }))));
}

function versionRow(v: FactOut, sources: Source[], change: Promise<string>): HTMLElement {
  const cell = h("td", { testid: "change-class", "data-label": "change" }, "…");
  change.then((text) => { cell.textContent = text; },
              (e: unknown) => { cell.replaceChildren(errorLine(e)); });
  // data-label: on a narrow window each row reads as a card, each cell under its name.
  return h("tr", { testid: "version-row", "data-id": v.id },
    h("th", { scope: "row", "data-label": "revision" }, `r${v.revision}`),
    h("td", { class: "value", "data-label": "value" }, formatValue(v.value, v.unit)),
    AXES.map((axis) => h("td", { class: "nowrap", "data-label": axis }, formatInterval(v[axis]))),
    h("td", { "data-label": "status" }, v.status, v.stale ? [" ", staleFlag(v.stale)] : []),
    cell,
    h("td", { "data-label": "sources" }, sources.length
      ? h("ul", { class: "plain" }, sources.map(sourceItem)) : muted("none")),
    h("td", { "data-label": "lineage" },
      h("a", { href: hrefFor({ page: "explain", id: v.id }) }, "derivation tree")));
}

function asOfControl(f: FactView, initial: string): { box: HTMLElement; ask: () => void } {
  const input = h("input", { id: "asof", type: "date", testid: "asof-input", value: initial,
                             required: true });
  const answer = h("div", { testid: "asof-answer", class: "answer", "aria-live": "polite" },
                   "Pick an instant and ask.");
  const ask = async (event: Event): Promise<void> => {
    event.preventDefault();
    const at = dateParam(input.value);
    if (!at.ok) {
      answer.replaceChildren(h("p", { class: "error", role: "alert" }, at.error));
      return;
    }
    answer.textContent = `asking as of ${at.value}…`;
    try {
      const found = await get<{ items: FactOut[] }>("/v1/facts", {
        predicate: f.predicate, subject: f.subject, cutoff: at.value, valid_at: f.valid[0],
      });
      const same = found.items.filter((a) => a.valid[0] === f.valid[0]
        && a.valid[1] === f.valid[1] && a.unit === f.unit);
      answer.replaceChildren(same.length === 0
        ? h("p", {}, `As of ${at.value}, a question returned nothing: no version was known then.`)
        : h("p", {}, `As of ${at.value}, a question returned `,
            h("strong", {}, formatValue(same[0]!.value, same[0]!.unit)),
            ` (r${same[0]!.revision}, known from ${formatInstant(same[0]!.knowledge[0])}, `,
            h("a", { href: factHref(same[0]!.id) }, same[0]!.id), ").",
            same[0]!.stale ? [" ", staleFlag(same[0]!.stale)] : []));
    } catch (e) {
      answer.replaceChildren(errorLine(e));
    }
  };
  const form = h("form", { class: "inline", onsubmit: ask },
    h("label", { for: "asof" }, "As of (knowledge cutoff) "), input, " ",
    h("button", { type: "submit", testid: "asof-go" }, "Ask"));
  const box = h("section", { class: "asof", "aria-labelledby": "asof-title" },
    h("h2", { id: "asof-title" }, "What a question returned as of an instant"), form, answer);
  return { box, ask: () => form.requestSubmit() };
}

export async function factPage(id: string, params: Params): Promise<Page> {
  const e = await explanation(id);
  const f = e.root.fact;
  const versions = (await history(f)).items;
  const sources = await Promise.all(versions.map(async (v) =>
    v.sources.length || v.kind !== "derived" ? v.sources : treeSources(await explanation(v.id))));
  const impacts = new Map<string, Promise<Impact>>();
  const rows = versions.map((v, i) =>
    versionRow(v, sources[i]!, changeClass(v, sources[i]!, i ? sources[i - 1]! : null, impacts)));
  const asOf = asOfControl(f, params.asof ?? "");
  const p = page(`${f.subject} ${f.predicate}`,
    definitions([
      ["this version", h("span", {}, `${formatValue(f.value, f.unit)} (r${f.revision}, ${f.kind}, ${f.status}) `,
                         h("code", {}, f.id))],
      ["valid", formatInterval(f.valid)],
      ["as of", `the store as recorded at ${formatInstant(e.system_at)}`],
    ]),
    e.stale ? h("p", {}, staleFlag(e.stale)) : null,
    h("nav", { class: "actions", "aria-label": "About this fact" },
      h("a", { href: hrefFor({ page: "explain", id: f.id }) }, "Derivation tree"), " · ",
      h("a", { href: hrefFor({ page: "search", params: { q: `${f.subject} ${f.predicate}` } }) },
        "Search for it")),
    h("h2", {}, `Versions (${versions.length})`),
    versions.length === 0 ? h("p", {}, "No version of this assertion is visible to this key.")
      : h("div", { class: "scroll" }, h("table", { class: "versions" },
          h("thead", {}, h("tr", {}, ["rev", "value", "valid", "knowledge", "system", "status",
                                       "change", "sources", ""].map((t) => h("th", { scope: "col" }, t)))),
          h("tbody", {}, rows))),
    versions.length ? timeline(versions) : null,
    asOf.box);
  // #/fact/<id>?asof=2018-06-30 asks at once (a link can show an answer); once on the page.
  if (params.asof) p.mounted = asOf.ask;
  return p;
}
