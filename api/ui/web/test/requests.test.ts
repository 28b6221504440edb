import { describe, expect, it } from "vitest";
import { queryString } from "../src/api";
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
