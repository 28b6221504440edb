// Pieces every page uses: headings, the error line, a fact's one-line summary, source links.

import { ApiError, type FactView, type Source, type Stale } from "../api";
import { h } from "../dom";
import { formatInstant, formatValue } from "../format";
import { factHref } from "../router";

export interface Page {
  node: Node;
  mounted?: () => void; // after the node is in the document (a drawing needs its size)
  unmount?: () => void;
}

export const page = (title: string, ...children: (Node | null)[]): Page => ({
  node: h("section", { class: "page", "aria-labelledby": "page-title" },
          h("h1", { id: "page-title", tabindex: "-1" }, title), ...children),
});

// One line, the server's words: "404 Not Found: no fact 'x' in this tenant".
export function errorLine(error: unknown): HTMLElement {
  const text = error instanceof ApiError
    ? (error.status === 401 ? `The API refused the key (401): ${error.detail}` : error.message)
    : `The request failed: ${error instanceof Error ? error.message : String(error)}`;
  return h("p", { class: "error", role: "alert", testid: "error" }, text);
}

export function factLink(f: Pick<FactView, "id" | "subject" | "predicate" | "value" | "unit">,
                         testid?: string): HTMLAnchorElement {
  return h("a", { href: factHref(f.id), testid },
           `${f.subject} ${f.predicate} = ${formatValue(f.value, f.unit)}`);
}

// A filing's link goes to the regulator's page the API names (the filing index on sec.gov);
// a source without one (a memory's conversation) is named, not linked.
export function sourceItem(s: Source): HTMLElement {
  const name = `${s.form ?? s.kind} ${s.accession ?? s.id}`;
  const when = `public ${formatInstant(s.available_at)}`;
  const link = s.uri && /^https:\/\//.test(s.uri)
    ? h("a", { href: s.uri, testid: "source-link", rel: "noopener noreferrer", target: "_blank" },
        name)
    : h("span", { class: "source-name" }, name);
  return h("li", { class: "source" }, link, " ", h("span", { class: "muted" }, when));
}

export function staleFlag(s: Stale): HTMLElement {
  const when = s.when ? ` on ${formatInstant(s.when)}` : "";
  const by = s.by ? ` by ${s.by}` : "";
  return h("span", { class: "stale-flag", testid: "stale-flag", role: "status" },
           `stale: its premise ${s.premise} was ${s.reason}${when}${by}`,
           s.closed ? " (closed: no longer held)" : "");
}

export const muted = (text: string): HTMLElement => h("span", { class: "muted" }, text);

export function definitions(rows: [string, Node | string][]): HTMLElement {
  return h("dl", { class: "facts" }, rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}
