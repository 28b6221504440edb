// The interactive drawing: cytoscape (bundled from npm, no CDN) with pan, zoom and a click on
// a node opening its page. The page lists the same nodes as links beside it (graph-node-list),
// so everything the drawing offers is reachable by keyboard and by a screen reader.

import cytoscape from "cytoscape";
import type { Graph } from "./elements";

// cytoscape adds a one-rule <style> to <head> unless an element with this id exists; the page's
// CSP (style-src 'self') refuses inline styles, so the rule ships in app.css and this marker
// tells cytoscape it is there.
const MARKER = "__________cytoscape_stylesheet";

function markStylesheet(): void {
  if (document.getElementById(MARKER)) return;
  const marker = document.createElement("meta");
  marker.id = MARKER;
  marker.name = "cytoscape-stylesheet";
  marker.content = "in app.css";
  document.head.appendChild(marker);
}

const COLOURS: Record<string, string> = {
  fact: "#2563eb", derived: "#7c3aed", source: "#0f766e", changed: "#c2410c",
  affected: "#a16207", closed: "#b91c1c",
};

export interface Drawn {
  fit(): void;
  select(id: string): void; // the node the list's focus is on, marked in the drawing
  zoom(by: number): void;
  destroy(): void;
}

export function draw(container: HTMLElement, graph: Graph, open: (href: string) => void): Drawn {
  markStylesheet();
  const cy = cytoscape({
    container,
    elements: [
      ...graph.nodes.map((n) => ({ data: { id: n.id, label: n.label, kind: n.kind, href: n.href } })),
      ...graph.edges.map((e) => ({ data: { id: e.id, source: e.source, target: e.target, label: e.label } })),
    ],
    // Breadth-first from the roots, turned to run left to right: the nodes of one depth
    // stack in a column, so their labels (beside them) have the width of the drawing.
    layout: { name: "breadthfirst", directed: true, spacingFactor: 1, padding: 16,
              transform: (_node, p) => ({ x: p.y * 2.2, y: p.x / 1.6 }) },
    minZoom: 0.2,
    maxZoom: 4,
    style: [
      { selector: "node", style: {
        label: "data(label)", "text-wrap": "wrap", "text-max-width": "200px", "font-size": 10,
        "text-valign": "center", "text-halign": "right", "text-margin-x": 5, width: 18,
        height: 18, color: "#111827",
        "background-color": (n: cytoscape.NodeSingular) => COLOURS[n.data("kind") as string] ?? "#64748b",
        "font-family": 'system-ui, "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", sans-serif',
      } },
      { selector: "node[kind = 'source']", style: { shape: "round-rectangle" } },
      { selector: "edge", style: {
        width: 1.5, "line-color": "#94a3b8", "target-arrow-color": "#94a3b8",
        "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(label)",
        "font-size": 7, color: "#64748b", "text-rotation": "autorotate",
      } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#111827" } },
    ],
  });
  cy.on("tap", "node", (event) => open(event.target.data("href") as string));
  return {
    fit: () => cy.fit(undefined, 20),
    select: (id) => {
      cy.nodes().unselect();
      cy.getElementById(id).select();
    },
    zoom: (by) => cy.zoom({ level: cy.zoom() * by,
                            renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } }),
    destroy: () => cy.destroy(),
  };
}
