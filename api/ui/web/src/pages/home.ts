// The start page: what each page shows and where to begin (the demo's figures as links).

import { h } from "../dom";
import { hrefFor } from "../router";
import { page, type Page } from "./common";

export function homePage(): Page {
  const link = (href: string, text: string): HTMLElement => h("li", {}, h("a", { href }, text));
  return page("Vintage lineage explorer",
    h("p", {}, "What was known, when, and why: every version of a figure on its three time axes, "
      + "how it was derived, what a filing reached, and what an agent was handed. Read-only; each "
      + "page shows what the API answers for the key you enter above."),
    h("h2", {}, "Pages"),
    h("ul", {},
      link(hrefFor({ page: "search", params: {} }), "Search facts and memories"),
      link(hrefFor({ page: "eval", params: {} }), "The evaluation report and memory health")),
    // Starting points on the data `make demo` loads (tenant demo); another tenant's key
    // finds nothing there, as it should.
    h("h2", {}, "On the demo's data"),
    h("ul", {},
      link(hrefFor({ page: "search", params: { q: "GOOGL operating margin" } }),
           "Search: GOOGL operating margin"),
      link(hrefFor({ page: "impact", id: "0001652044-19-000015" }),
           "Impact of Alphabet's 10-Q of 2019-04-30 (it recast Q1 2018)"),
      link(hrefFor({ page: "metric", metric: "operating_margin",
                     params: { subject: "GOOGL", period: "FY2018Q1" } }),
           "GOOGL operating margin, Q1 2018, across cutoffs")),
    h("p", { class: "muted" }, "A context's trace opens at #/trace/<injection id> (the id "
      + "POST /v1/context answers with)."));
}
