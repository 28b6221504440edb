// Search (POST /v1/search): the form is the URL (#/search?q=..&cutoff=..), so a search is a
// link; results link to fact pages; "nothing relevant" and stale items are said as such.

import { post, type SearchOut } from "../api";
import { h } from "../dom";
import { dateParam, formatInterval, formatValue } from "../format";
import { factHref, hrefFor, type Params } from "../router";
import { errorLine, muted, page, sourceItem, staleFlag, type Page } from "./common";

const FIELDS: [string, string, string][] = [
  // [param, label, input type]
  ["cutoff", "Knowledge cutoff", "date"],
  ["valid_at", "Valid at", "date"],
  ["user", "User", "text"],
  ["project", "Project", "text"],
  ["thread", "Thread", "text"],
];
const MODES = ["hybrid", "keyword", "semantic", "exact"];

// The request body from the page's parameters; a bad date is refused before anything is asked.
export function searchBody(params: Params): { ok: true; body: Record<string, unknown> } | { ok: false; error: string } {
  const body: Record<string, unknown> = { query: params.q ?? "", limit: 20 };
  if (MODES.includes(params.mode ?? "")) body.mode = params.mode;
  for (const [name] of FIELDS) {
    const value = (params[name] ?? "").trim();
    if (!value) continue;
    if (name === "cutoff" || name === "valid_at") {
      const d = dateParam(value);
      if (!d.ok) return { ok: false, error: `${name}: ${d.error}` };
      body[name] = d.value;
    } else {
      body[name] = value;
    }
  }
  return { ok: true, body };
}

function form(params: Params): HTMLFormElement {
  const q = h("input", { id: "q", type: "search", testid: "search-query", value: params.q ?? "",
                         required: true, maxlength: 2000, autocomplete: "off" });
  const inputs = FIELDS.map(([name, , type]) => h("input", {
    id: `f-${name}`, name, type, value: params[name] ?? "",
    testid: name === "cutoff" ? "search-cutoff" : undefined }));
  const mode = h("select", { id: "f-mode" }, MODES.map((m) =>
    h("option", { value: m, selected: (params.mode ?? "hybrid") === m }, m)));
  return h("form", { class: "search-form", role: "search", onsubmit: (event: Event) => {
    event.preventDefault();
    const next: Params = { q: q.value.trim(), mode: mode.value };
    FIELDS.forEach(([name], i) => { next[name] = inputs[i]!.value.trim(); });
    location.hash = hrefFor({ page: "search", params: next });
  } },
    h("div", { class: "field wide" }, h("label", { for: "q" }, "Query"), q),
    FIELDS.map(([name, label], i) =>
      h("div", { class: "field" }, h("label", { for: `f-${name}` }, label), inputs[i]!)),
    h("div", { class: "field" }, h("label", { for: "f-mode" }, "Mode"), mode),
    h("div", { class: "field" }, h("button", { type: "submit", testid: "search-go" }, "Search")));
}

function results(out: SearchOut): Node[] {
  const summary = h("p", { class: "muted" }, `${out.results.length} answers; ${out.legal} legal `
    + `items ranked, ${out.matched} matched` + (Object.keys(out.excluded).length
      ? `; excluded: ${Object.entries(out.excluded).map(([k, n]) => `${k} ${n}`).join(", ")}` : ""));
  const verdict = out.nothing_relevant
    ? h("div", { class: "verdict", testid: "nothing-relevant", role: "status" },
        h("strong", {}, "Nothing relevant is known."), " ", out.relevance?.reason ?? "")
    : null;
  const none = out.results.length === 0 && !out.nothing_relevant && !out.refusal
    ? h("p", { role: "status" }, "No answer: ", out.relevance?.reason ?? "nothing matched the query.")
    : null;
  const refusal = out.refusal ? h("p", { class: "error", role: "alert" }, `Refused: ${out.refusal}`) : null;
  const list = h("ol", { class: "results" }, out.results.map((r) => h("li", { testid: "search-result" },
    h("a", { href: factHref(r.id) }, `${r.subject} ${r.predicate} = ${formatValue(r.value, r.unit)}`),
    " ", r.stale ? staleFlag(r.stale) : null,
    h("div", { class: "muted" }, `valid ${formatInterval(r.valid)} · known ${formatInterval(r.knowledge)}`
      + ` · ${r.status} · score ${r.score.toFixed(3)}`),
    r.sources.length ? h("ul", { class: "plain" }, r.sources.map(sourceItem),
                         r.sources_via_inputs ? h("li", {}, muted("(the sources of its inputs)")) : null)
      : null)));
  const closed = out.closed.length === 0 ? null : h("section", {},
    h("h2", {}, "Closed by a change (not evidence)"),
    h("ul", {}, out.closed.map((c) => h("li", {}, c.item, " ", staleFlag(c)))));
  return [summary, verdict, none, refusal, list, closed].filter((n): n is HTMLElement => n !== null);
}

export async function searchPage(params: Params): Promise<Page> {
  const body = searchBody(params);
  let answer: Node[] = [h("p", { class: "muted" }, "Facts and memories this key may read.")];
  if (params.q && !body.ok) answer = [h("p", { class: "error", role: "alert" }, body.error)];
  else if (params.q && body.ok) {
    try {
      answer = results(await post<SearchOut>("/v1/search", body.body));
    } catch (e) {
      answer = [errorLine(e)];
    }
  }
  return page("Search", form(params), h("div", { class: "search-answer" }, answer));
}
