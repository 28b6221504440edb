// What the explain and impact graphs draw, as plain nodes and edges (pure: the tests pin them;
// view.ts hands them to the graph library, and the page lists the same nodes as links).

import type { Explanation, FactView, Impact, Source, Step } from "../api";
import { formatValue } from "../format";
import { factHref, hrefFor } from "../router";

export type NodeKind = "fact" | "derived" | "source" | "changed" | "affected" | "closed";

export interface GraphNode {
  id: string;
  label: string;
  kind: NodeKind;
  href: string; // a fact's page, or a source's impact
  detail: string; // one line for the accessible list
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  label: string;
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

function factNode(f: FactView, kind?: NodeKind): GraphNode {
  return {
    id: f.id, kind: kind ?? (f.kind === "derived" ? "derived" : "fact"),
    // The drawing's label is short (the list beside it says everything): concept and value.
    label: `${f.predicate.replace(/^[\w-]+:/, "")}\n${formatValue(f.value, f.unit)}`,
    href: factHref(f.id),
    detail: `${f.subject} ${f.predicate} = ${formatValue(f.value, f.unit)} (r${f.revision}, ${f.status})`,
  };
}

function sourceNode(s: Source): GraphNode {
  const name = [s.form, s.accession ?? s.id].filter(Boolean).join(" ");
  return {
    id: s.id, kind: "source", label: name, href: hrefFor({ page: "impact", id: s.id }),
    detail: `source ${name}, public ${s.available_at.slice(0, 10)}`,
  };
}

class Builder {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly edges = new Map<string, GraphEdge>();

  node(n: GraphNode): void {
    if (!this.nodes.has(n.id)) this.nodes.set(n.id, n);
  }

  edge(source: string, target: string, label: string): void {
    const id = `${source}->${target}:${label}`;
    if (!this.edges.has(id)) this.edges.set(id, { id, source, target, label });
  }

  graph(): Graph {
    const nodes = [...this.nodes.values()];
    const known = new Set(nodes.map((n) => n.id));
    const edges = [...this.edges.values()].filter((e) => known.has(e.source) && known.has(e.target));
    return { nodes, edges };
  }
}

// The derivation tree: each fact, the inputs its recipe used (edge: recipe and role), and the
// sources that support it (edge: "source").
export function explainGraph(e: Explanation): Graph {
  const b = new Builder();
  const walk = (step: Step): void => {
    b.node(factNode(step.fact));
    for (const s of step.sources) {
      b.node(sourceNode(s));
      b.edge(step.fact.id, s.id, "source");
    }
    for (const j of step.derived_by) {
      for (const input of j.inputs) {
        walk(input.step);
        b.edge(step.fact.id, input.step.fact.id, `${j.derivation.recipe}: ${input.role}`);
      }
    }
  };
  walk(e.root);
  return b.graph();
}

// A source's impact: what rests on it alone (would change), what another source also holds,
// the derived facts downstream along their paths, and what it already revised (old -> new).
export function impactGraph(i: Impact): Graph {
  const b = new Builder();
  const facts = new Map<string, FactView>();
  for (const f of [...i.changed, ...i.also_supported, ...i.affected.map((a) => a.fact),
                   ...i.revised.flatMap((r) => (r.new ? [r.old, r.new] : [r.old]))]) {
    facts.set(f.id, f);
  }
  if (i.start === "source") {
    b.node({ id: i.start_id, kind: "source", label: i.start_id, href: hrefFor({ page: "impact", id: i.start_id }),
             detail: `source ${i.start_id} (the start)` });
  }
  for (const f of i.changed) {
    b.node(factNode(f, "changed"));
    if (i.start === "source") b.edge(i.start_id, f.id, "rests on it");
  }
  for (const f of i.also_supported) {
    b.node(factNode(f));
    if (i.start === "source") b.edge(i.start_id, f.id, "also supported elsewhere");
  }
  for (const a of i.affected) {
    b.node(factNode(a.fact, a.survives ? "affected" : "closed"));
    a.path.forEach((id, n) => {
      const f = facts.get(id);
      if (f) b.node(factNode(f));
      if (n > 0) b.edge(a.path[n - 1]!, id, "input of");
    });
  }
  for (const r of i.revised) {
    b.node(factNode(r.old));
    if (r.new) {
      b.node(factNode(r.new));
      b.edge(r.old.id, r.new.id, r.change ? `${r.revision}: ${r.change}` : r.revision);
    }
  }
  return b.graph();
}
