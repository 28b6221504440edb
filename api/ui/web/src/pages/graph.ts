// The derivation tree (GET /v1/facts/{id}/explanation) and a source's impact
// (GET /v1/sources/{id}/impact), drawn interactively, with the same nodes listed as links.

import { get, seg, type Explanation, type Impact } from "../api";
import { h } from "../dom";
import { explainGraph, impactGraph, type Graph } from "../graph/elements";
import { formatInstant, formatValue } from "../format";
import { factHref } from "../router";
import { definitions, factLink, page, type Page } from "./common";

const KIND_TEXT: Record<string, string> = {
  fact: "fact", derived: "derived fact", source: "source", changed: "changes",
  affected: "downstream, survives", closed: "downstream, stops holding",
};

function legend(graph: Graph): HTMLElement {
  const kinds = [...new Set(graph.nodes.map((n) => n.kind))];
  return h("ul", { class: "legend", "aria-label": "Colours of the drawing" }, kinds.map((k) =>
    h("li", {}, h("span", { class: `swatch swatch-${k}`, "aria-hidden": "true" }), KIND_TEXT[k] ?? k)));
}

function nodeList(graph: Graph, focused: (id: string) => void): HTMLElement {
  return h("ol", { class: "node-list", testid: "graph-node-list", "aria-label": "Nodes of the graph",
                   onfocusin: (event: Event) => {
                     const item = (event.target as Element).closest("[data-id]");
                     if (item) focused(item.getAttribute("data-id")!);
                   } },
    graph.nodes.map((n) => h("li", { testid: "graph-node", "data-id": n.id, "data-kind": n.kind },
      h("a", { href: n.href }, n.detail), " ",
      h("span", { class: `tag tag-${n.kind}` }, KIND_TEXT[n.kind] ?? n.kind), " ",
      h("code", { class: "id" }, n.id))));
}

function graphPage(title: string, intro: Node, graph: Graph, after: Node | null): Page {
  const canvas = h("div", { class: "graph", testid: "graph", role: "img",
                            "aria-label": `${title}: ${graph.nodes.length} nodes; the list beside it has each as a link` });
  let drawn: import("../graph/view").Drawn | null = null;
  const controls = h("div", { class: "graph-controls", role: "group", "aria-label": "Zoom" },
    h("button", { type: "button", onclick: () => drawn?.zoom(1.25) }, "Zoom in"),
    h("button", { type: "button", onclick: () => drawn?.zoom(0.8) }, "Zoom out"),
    h("button", { type: "button", onclick: () => drawn?.fit() }, "Fit"));
  const p = page(title, intro,
    h("div", { class: "graph-layout" },
      h("div", { class: "graph-box" }, controls, canvas,
        legend(graph),
        h("p", { class: "muted" }, "Drag to pan, scroll to zoom, click a node to open it.")),
      h("div", { class: "graph-side" }, h("h2", {}, "Nodes"),
        nodeList(graph, (id) => drawn?.select(id)))),
    after);
  p.mounted = () => {
    // The library is loaded with the first graph page: the other pages do without it.
    void import("../graph/view").then(({ draw }) => {
      if (!canvas.isConnected) return;
      drawn = draw(canvas, graph, (href) => { location.hash = href; });
    });
  };
  p.unmount = () => drawn?.destroy();
  return p;
}

export async function explainPage(id: string): Promise<Page> {
  const e = await get<Explanation>(`/v1/facts/${seg(id)}/explanation`);
  const f = e.root.fact;
  return graphPage(`Derivation of ${f.subject} ${f.predicate}`,
    definitions([["fact", factLink(f)], ["value", formatValue(f.value, f.unit)],
                 ["read at", formatInstant(e.system_at)]]),
    explainGraph(e), null);
}

export async function impactPage(id: string): Promise<Page> {
  const i = await get<Impact>(`/v1/sources/${seg(id)}/impact`);
  const revised = i.revised.length === 0 ? null : h("section", {},
    h("h2", {}, "Already revised by this source"),
    h("ul", {}, i.revised.map((r) => h("li", {},
      `${r.old.subject} ${r.old.predicate}: ${formatValue(r.old.value, r.old.unit)} → `,
      r.new ? h("a", { href: factHref(r.new.id) }, formatValue(r.new.value, r.new.unit)) : "closed",
      ` (${r.revision}${r.change ? `: ${r.change}` : ""})`))));
  return graphPage(`Impact of ${id}`,
    definitions([
      ["would change", `${i.changed.length} facts resting on it alone`],
      ["kept by other sources", String(i.also_supported.length)],
      ["downstream", `${i.affected.length} derived facts`],
      ["read at", formatInstant(i.system_at)],
    ]),
    impactGraph(i), revised);
}
