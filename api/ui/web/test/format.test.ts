import { describe, expect, it } from "vitest";
import { dateParam, formatInstant, formatInterval, formatValue } from "../src/format";

describe("formatting", () => {
  it("shows a day's first instant as a date, any other instant to the second, in UTC", () => {
    expect(formatInstant("2019-04-30T00:00:00Z")).toBe("2019-04-30");
    expect(formatInstant("2026-12-06T17:18:12.101127Z")).toBe("2026-12-06T17:18:12Z");
    expect(formatInstant("2019-04-30T02:00:00+02:00")).toBe("2019-04-30");
    expect(formatInstant(null)).toBe("open");
  });

  it("shows an interval with an open end as open", () => {
    expect(formatInterval(["2018-01-01T00:00:00Z", "2018-04-01T00:00:00Z"]))
      .toBe("2018-01-01 .. 2018-04-01");
    expect(formatInterval(["2019-04-30T00:00:00Z", null])).toBe("2019-04-30 .. open");
  });

  it("groups money, gives a percentage two decimals, and keeps text as it is", () => {
    expect(formatValue(7001000000, "USD")).toBe("7,001,000,000 USD");
    expect(formatValue(24.507159827907277, "percent")).toBe("24.51 %");
    expect(formatValue(1.21, "USD/shares")).toBe("1.21 USD/shares");
    expect(formatValue("顺丰快递，不要周末送", null)).toBe("顺丰快递，不要周末送");
    expect(formatValue(null, "USD")).toBe("none");
  });

  it("takes a calendar date and refuses anything else with the reason", () => {
    expect(dateParam(" 2018-06-30 ")).toEqual({ ok: true, value: "2018-06-30" });
    expect(dateParam("2018-13-45")).toEqual({ ok: false, error: 'not a date (YYYY-MM-DD): "2018-13-45"' });
    expect(dateParam("30/06/2018").ok).toBe(false);
    expect(dateParam("").ok).toBe(false);
  });
});
