import { describe, expect, it } from "vitest";
import { lanes, MIN_WIDTH, place, scaleFor } from "../src/bands";

// The demo's GOOGL operating margin, Q1 2018: two versions (the 2019 10-Q recast it).
const r1 = { valid: ["2018-01-01T00:00:00Z", "2018-04-01T00:00:00Z"],
             knowledge: ["2018-04-24T00:00:00Z", "2019-04-30T00:00:00Z"],
             system: ["2026-12-06T17:18:11Z", null] } as const;
const r2 = { valid: ["2018-01-01T00:00:00Z", "2018-04-01T00:00:00Z"],
             knowledge: ["2019-04-30T00:00:00Z", null],
             system: ["2026-12-06T17:18:12Z", null] } as const;

describe("the time bands", () => {
  it("draws one lane per axis, in the order valid, knowledge, system, a bar per version", () => {
    const out = lanes([r1, r2]);
    expect(out.map((l) => l.axis)).toEqual(["valid", "knowledge", "system"]);
    for (const lane of out) expect(lane.bars).toHaveLength(2);
  });

  it("puts two versions valid over the same quarter on the same span", () => {
    const [valid] = lanes([r1, r2]);
    expect(valid!.bars[0]).toEqual(valid!.bars[1]);
    expect(valid!.bars[0]).toEqual({ left: 0, width: 100, open: false });
  });

  it("lays knowledge out end to start: the first version ends where the second begins", () => {
    const knowledge = lanes([r1, r2])[1]!;
    const [a, b] = knowledge.bars;
    expect(a!.left).toBe(0);
    expect(a!.left + a!.width).toBeCloseTo(b!.left, 9);
    expect(b!.open).toBe(true);
    expect(b!.left + b!.width).toBe(100);
    // the open end runs on past the last known instant, into the margin
    expect(b!.left).toBeLessThan(100 * 10 / 11 + 1e-9);
  });

  it("keeps an instant-long interval visible", () => {
    const scale = scaleFor([["2018-01-01T00:00:00Z", "2020-01-01T00:00:00Z"]]);
    const bar = place(scale, ["2019-01-01T00:00:00Z", "2019-01-01T00:00:00Z"]);
    expect(bar.width).toBe(MIN_WIDTH);
  });

  it("gives a lane whose versions all start at one instant a minute's width, not a zero span", () => {
    const scale = scaleFor([["2026-12-06T00:00:00Z", null]]);
    expect(scale.max).toBeGreaterThan(scale.min);
    expect(place(scale, ["2026-12-06T00:00:00Z", null])).toEqual({ left: 0, width: 100, open: true });
  });

  it("refuses an instant it cannot read, naming it", () => {
    expect(() => scaleFor([["yesterday", null]])).toThrow('not an instant: "yesterday"');
  });
});

describe("the lane's ticks", () => {
  it("read as dates over a span of days, to the minute over a few hours, first at the lane's start", () => {
    const days = scaleFor([["2018-04-24T00:00:00Z", "2019-04-30T00:00:00Z"]]);
    expect(days.ticks.map((t) => t.label)[0]).toBe("2018-04-24");
    expect(days.ticks.at(-1)).toEqual({ at: 100, label: "2019-04-30" });
    const hours = scaleFor([["2026-12-06T17:18:11Z", "2026-12-06T20:18:11Z"]]);
    expect(hours.ticks[0]).toEqual({ at: 0, label: "2026-12-06 17:18Z" });
    const seconds = scaleFor([["2026-12-06T17:18:11Z", null], ["2026-12-06T17:18:12Z", null]]);
    expect(seconds.ticks[0]).toEqual({ at: 0, label: "2026-12-06 17:18:11Z" });
    expect(seconds.ticks.at(-1)!.at).toBeLessThan(100); // the open margin lies past the last tick
  });
});
