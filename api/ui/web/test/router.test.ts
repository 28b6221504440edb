import { describe, expect, it } from "vitest";
import { hrefFor, parseHash, type Route } from "../src/router";

describe("hash routing", () => {
  it("reads an empty hash and #/ as the start page", () => {
    expect(parseHash("")).toEqual({ page: "home" });
    expect(parseHash("#/")).toEqual({ page: "home" });
  });

  it("reads a fact page, its id decoded, and its parameters", () => {
    expect(parseHash("#/fact/k98b.d1ee?asof=2018-06-30")).toEqual(
      { page: "fact", id: "k98b.d1ee", params: { asof: "2018-06-30" } });
    expect(parseHash("#/fact/a%2Fb%20%E5%88%A9")).toEqual({ page: "fact", id: "a/b 利", params: {} });
  });

  it("reads every page of the explorer", () => {
    expect(parseHash("#/search?q=operating%20margin&cutoff=2019-01-01")).toEqual(
      { page: "search", params: { q: "operating margin", cutoff: "2019-01-01" } });
    expect(parseHash("#/explain/f-1")).toEqual({ page: "explain", id: "f-1" });
    expect(parseHash("#/impact/0001652044-19-000015")).toEqual(
      { page: "impact", id: "0001652044-19-000015" });
    expect(parseHash("#/metric/operating_margin?subject=GOOGL")).toEqual(
      { page: "metric", metric: "operating_margin", params: { subject: "GOOGL" } });
    expect(parseHash("#/trace/e-4b1d")).toEqual({ page: "trace", id: "e-4b1d" });
    expect(parseHash("#/eval")).toEqual({ page: "eval", params: {} });
    expect(parseHash("#/eval?user=42")).toEqual({ page: "eval", params: { user: "42" } });
  });

  it("calls anything else an unknown page, a malformed escape included, without throwing", () => {
    for (const hash of ["#/nope", "#/fact", "#/fact/a/b", "#/eval/x", "#/fact/%E0%A4%A", "#/search/x"]) {
      expect(parseHash(hash)).toEqual({ page: "unknown", hash });
    }
  });

  it("builds hashes that parse back to the same route", () => {
    const routes: Route[] = [
      { page: "home" },
      { page: "search", params: { q: "营业利润 margin", cutoff: "2018-06-30" } },
      { page: "fact", id: "k/1?#&", params: {} },
      { page: "explain", id: "f 1" },
      { page: "impact", id: "0001652044-19-000015" },
      { page: "metric", metric: "operating_margin", params: { subject: "GOOGL", period: "FY2018Q1" } },
      { page: "trace", id: "e-1" },
      { page: "eval", params: { project: "北京" } },
    ];
    for (const route of routes) expect(parseHash(hrefFor(route))).toEqual(route);
  });

  it("leaves empty parameters out of a built hash", () => {
    expect(hrefFor({ page: "search", params: { q: "x", cutoff: "" } })).toBe("#/search?q=x");
  });
});
