import { describe, expect, it } from "vitest";
import { queryString } from "../src/api";
import { changeText } from "../src/pages/fact";
import { defaultCutoffs, rowsOf } from "../src/pages/metric";
import { searchBody } from "../src/pages/search";
import { filters } from "../src/pages/trace";

describe("what the pages ask the API", () => {
  it("repeats a list parameter and leaves out empty ones", () => {
    expect(queryString({ subject: "GOOGL", cutoff: ["2018-06-30", "2019-06-30"], unit: undefined, x: "" }))
      .toBe("?subject=GOOGL&cutoff=2018-06-30&cutoff=2019-06-30");
    expect(queryString({})).toBe("");
  });

  it("builds a search body from the page's fields, scope and instants included", () => {
    expect(searchBody({ q: "营业利润", cutoff: "2019-01-01", user: "42", mode: "keyword", thread: "" }))
      .toEqual({ ok: true, body: { query: "营业利润", limit: 20, mode: "keyword", cutoff: "2019-01-01", user: "42" } });
  });

  it("refuses a search with a bad date before asking, naming the field", () => {
    expect(searchBody({ q: "x", valid_at: "soon" }))
      .toEqual({ ok: false, error: 'valid_at: not a date (YYYY-MM-DD): "soon"' });
  });

  it("says each hard filter of a trace with its reason, and what each exclusion removed", () => {
    const rows = filters({
      read: { scope: ["user=42"], known_at: "2019-01-01T00:00:00+00:00", statuses: ["active"],
              valid: ["2019-01-01T00:00:00+00:00", "2019-01-01T00:00:00+00:00"], kinds: null,
              min_authority: null, system_at: "2026-12-06T17:20:33.284464+00:00" },
      excluded: { superseded: 3 },
    });
    expect(rows[0]).toEqual(["scope", "only user=42"]);
    expect(rows[1]).toEqual(["knowledge cutoff", "only what was public by 2019-01-01"]);
    expect(rows.at(-1)).toEqual(["excluded: superseded", "3 removed (superseded)"]);
  });
});

describe("what the pages make of the API's answers", () => {
  it("names a version's change class, the first version's included", () => {
    expect(changeText({ change: null, revision: 1 })).toBe("first version");
    expect(changeText({ change: "recomputed", revision: 2 })).toBe("recomputed");
    expect(changeText({ change: "reclassification", revision: 2 })).toBe("reclassification");
  });

  it("takes one row per cutoff, the subject's answer, a refusal kept as a row", () => {
    const answer = (cutoff: string, value: number | null, refused: string | null = null) => ({
      metric: "operating_margin", cutoff, answers: [
        { subject: "MSFT", value: 1, unit: "percent", method: null, fact_id: "x", refused: null },
        { subject: "GOOGL", value, unit: "percent", method: "100 * operating_income / revenue",
          fact_id: value === null ? null : `f-${cutoff}`, refused }] });
    const rows = rowsOf({ metric: "operating_margin", period: "FY2018Q1", answers: [
      answer("2017-06-30T00:00:00Z", null, "no input public yet"),
      answer("2018-06-30T00:00:00Z", 22.48), answer("2019-06-30T00:00:00Z", 24.51)] },
      "googl", ["2017-06-30", "2018-06-30", "2019-06-30"]);
    expect(rows.map((r) => [r.cutoff, r.value, r.refused])).toEqual([
      ["2017-06-30", null, "no input public yet"], ["2018-06-30", 22.48, null],
      ["2019-06-30", 24.51, null]]);
    expect(rows[1]!.fact_id).toBe("f-2018-06-30T00:00:00Z");
  });
});

describe("a metric page's cutoffs when the address names none", () => {
  const today = new Date("2026-12-06T12:00:00Z");

  it("are the half-year ends from the period's year on", () => {
    expect(defaultCutoffs("FY2018Q1", today)).toEqual(
      ["2018-06-30", "2018-12-31", "2019-06-30", "2019-12-31", "2020-06-30", "2020-12-31"]);
  });

  it("are the last years' for LTM, never past today", () => {
    expect(defaultCutoffs("LTM", today)).toEqual(
      ["2024-06-30", "2024-12-31", "2025-06-30", "2025-12-31", "2026-06-30"]);
    expect(defaultCutoffs("FY2026", new Date("2026-03-01T00:00:00Z"))).toEqual(["2026-03-01"]);
  });
});
