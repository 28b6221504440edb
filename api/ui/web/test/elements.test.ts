import { describe, expect, it } from "vitest";
import type { Explanation, FactView, Impact, Source } from "../src/api";
import { explainGraph, impactGraph } from "../src/graph/elements";

const fact = (id: string, predicate: string, value: number, kind = "observation",
              revision = 1): FactView => ({
  id, subject: "GOOGL", predicate, value, unit: predicate.startsWith("metric:") ? "percent" : "USD",
  kind, status: "active", revision,
  valid: ["2018-01-01T00:00:00Z", "2018-04-01T00:00:00Z"],
  knowledge: ["2019-04-30T00:00:00Z", null], system: ["2026-12-06T17:18:12Z", null],
});
const filing = (accession: string): Source => ({
  id: accession, kind: "filing", form: "10-Q", accession,
  uri: `https://www.sec.gov/Archives/edgar/data/1652044/${accession.replace(/-/g, "")}/`,
  available_at: "2019-04-30T00:00:00Z",
});

const margin = fact("m.r2", "metric:operating_margin", 24.507, "derived", 2);
const income = fact("oi.r2", "us-gaap:OperatingIncomeLoss", 7633000000, "observation", 2);
const revenue = fact("rev.r1", "us-gaap:Revenues", 31146000000);
const recast = filing("0001652044-19-000015");
const first = filing("0001652044-18-000016");

describe("the derivation tree as a graph", () => {
  const e: Explanation = {
    system_at: "2026-12-06T17:20:00Z", stale: null,
    root: { fact: margin, sources: [], supersedes: ["m.r1"], superseded_by: [],
      derived_by: [{ derivation: { id: "d1", recipe: "operating_margin", formula: null }, inputs: [
        { role: "operating_income", step: { fact: income, sources: [recast], derived_by: [],
                                            supersedes: [], superseded_by: [] } },
        { role: "revenue", step: { fact: revenue, sources: [first, recast], derived_by: [],
                                   supersedes: [], superseded_by: [] } },
      ] }] },
  };

  it("has each fact and each source once, facts linking to their page, sources to their impact", () => {
    const g = explainGraph(e);
    expect(g.nodes.map((n) => n.id)).toEqual(["m.r2", "oi.r2", recast.id, "rev.r1", first.id]);
    expect(g.nodes.find((n) => n.id === "m.r2")!.href).toBe("#/fact/m.r2");
    expect(g.nodes.find((n) => n.id === recast.id)!.href).toBe(`#/impact/${recast.id}`);
    expect(g.nodes.find((n) => n.id === "m.r2")!.kind).toBe("derived");
  });

  it("draws an edge from a fact to each input (recipe and role) and to each source", () => {
    const edges = explainGraph(e).edges.map((x) => `${x.source} ${x.target} ${x.label}`);
    expect(new Set(edges)).toEqual(new Set([
      "m.r2 oi.r2 operating_margin: operating_income", `oi.r2 ${recast.id} source`,
      "m.r2 rev.r1 operating_margin: revenue", `rev.r1 ${first.id} source`, `rev.r1 ${recast.id} source`,
    ]));
    expect(edges).toHaveLength(5);
  });
});

describe("a source's impact as a graph", () => {
  const old = fact("oi.r1", "us-gaap:OperatingIncomeLoss", 7001000000);
  const oldMargin = fact("m.r1", "metric:operating_margin", 22.478, "derived");
  const i: Impact = {
    start: "source", start_id: recast.id, system_at: "2026-12-06T17:20:00Z",
    changed: [income], also_supported: [revenue],
    affected: [{ fact: margin, depth: 1, path: ["oi.r2", "m.r2"], survives: false }],
    by_kind: { derived: 1, observation: 1 },
    revised: [{ old, new: income, change: "reclassification", revision: "filed" },
              { old: oldMargin, new: margin, change: null, revision: "recomputed" }],
  };

  it("starts at the source and reaches the derived margin through its path", () => {
    const g = impactGraph(i);
    expect(g.nodes[0]).toMatchObject({ id: recast.id, kind: "source" });
    expect(g.nodes.find((n) => n.id === "m.r2")).toMatchObject({ kind: "closed", href: "#/fact/m.r2" });
    const edges = g.edges.map((x) => `${x.source} ${x.target} ${x.label}`);
    expect(edges).toContain(`${recast.id} oi.r2 rests on it`);
    expect(edges).toContain(`${recast.id} rev.r1 also supported elsewhere`);
    expect(edges).toContain("oi.r2 m.r2 input of");
    expect(edges).toContain("oi.r1 oi.r2 filed: reclassification");
    expect(edges).toContain("m.r1 m.r2 recomputed");
  });

  it("lists every node once, and draws no edge to a node it does not have", () => {
    const g = impactGraph(i);
    const ids = g.nodes.map((n) => n.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual([recast.id, "m.r1", "m.r2", "oi.r1", "oi.r2", "rev.r1"].sort());
    for (const e of g.edges) expect(ids).toContain(e.target);
  });
});
