// The fact page: every version of the assertion (GET /v1/facts/{id}/versions), each on the
// three time axes drawn as bands, with its sources and the change class of each revision, and
// an "as of" control asking GET /v1/facts/{id}/asof what a question returned at an instant.

import { get, seg, type AsOfOut, type FactView, type VersionOut, type Versions } from "../api";
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

// The API's change class in words: null is the first version.
export function changeText(v: Pick<VersionOut, "change" | "revision">): string {
  return v.change ?? (v.revision <= 1 ? "first version" : "not recorded");
}

function timeline(versions: VersionOut[]): HTMLElement {
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

function versionRow(v: VersionOut, shown: string): HTMLElement {
  // data-label: on a narrow window each row reads as a card, each cell under its name.
  return h("tr", { testid: "version-row", "data-id": v.id,
                   class: v.id === shown ? "shown" : undefined },
    // The revision, and where to go from it: its own page (this one, or open it) and its tree.
    h("th", { scope: "row", "data-label": "revision" }, `r${v.revision}`,
      h("div", { class: "row-links" },
        v.id === shown ? muted("this page") : h("a", { href: factHref(v.id) }, "open"), " · ",
        h("a", { href: hrefFor({ page: "explain", id: v.id }),
                 "aria-label": `derivation tree of r${v.revision}` }, "tree"))),
    h("td", { class: "value", "data-label": "value" }, formatValue(v.value, v.unit)),
    AXES.map((axis) => h("td", { class: "nowrap", "data-label": axis }, formatInterval(v[axis]))),
    h("td", { "data-label": "status" }, v.status, v.stale ? [" ", staleFlag(v.stale)] : []),
    h("td", { testid: "change-class", "data-label": "change" }, changeText(v)),
    h("td", { "data-label": "sources", class: "sources" }, v.sources.length
      ? h("ul", { class: "plain" }, v.sources.map(sourceItem),
          v.cited === "inputs" ? h("li", {}, muted("via its inputs")) : null)
      : muted("none")));
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
      const found = (await get<AsOfOut>(`/v1/facts/${seg(f.id)}/asof`, { cutoff: at.value })).answer;
      answer.replaceChildren(found === null
        ? h("p", {}, `As of ${at.value}, a question returned nothing: no version was public yet.`)
        : h("p", {}, `As of ${at.value}, a question returned `,
            h("strong", {}, formatValue(found.value, found.unit)),
            ` (r${found.revision}, public from ${formatInstant(found.knowledge[0])}, `,
            h("a", { href: factHref(found.id) }, found.id), ").",
            found.stale ? [" ", staleFlag(found.stale)] : []));
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
  const versions = (await get<Versions>(`/v1/facts/${seg(id)}/versions`)).items;
  const f = versions.find((v) => v.id === id);
  if (!f) return page("Not visible", h("p", {}, "This key sees no version of this fact."));
  const asOf = asOfControl(f, params.asof ?? "");
  const p = page(`${f.subject} ${f.predicate}`,
    definitions([
      ["this version", h("span", {}, `${formatValue(f.value, f.unit)} (r${f.revision}, ${f.kind}, ${f.status}) `,
                         h("code", {}, f.id))],
      ["valid", formatInterval(f.valid)],
    ]),
    f.stale ? h("p", {}, staleFlag(f.stale)) : null,
    h("nav", { class: "actions", "aria-label": "About this fact" },
      h("a", { href: hrefFor({ page: "explain", id: f.id }) }, "Derivation tree"), " · ",
      h("a", { href: hrefFor({ page: "search", params: { q: `${f.subject} ${f.predicate}` } }) },
        "Search for it")),
    h("h2", {}, `Versions (${versions.length})`),
    h("div", { class: "scroll" }, h("table", { class: "versions" },
      h("thead", {}, h("tr", {}, ["rev", "value", "valid", "knowledge", "system", "status",
                                   "change", "sources"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, versions.map((v) => versionRow(v, f.id))))),
    timeline(versions),
    asOf.box);
  // #/fact/<id>?asof=2018-06-30 asks at once (a link can show an answer); once on the page.
  if (params.asof) p.mounted = asOf.ask;
  return p;
}
