import { describe, expect, it } from "vitest";
import { chartLayout, PAD } from "../src/chart";

describe("the metric chart", () => {
  it("steps from one cutoff's value to the next, left to right", () => {
    const out = chartLayout([{ at: "2018-06-30", value: 22.48 }, { at: "2019-06-30", value: 24.51 }],
                            640, 240);
    const [a, b] = out.points;
    expect(a!.x).toBe(PAD.left);
    expect(b!.x).toBe(640 - PAD.right);
    expect(b!.y!).toBeLessThan(a!.y!); // a higher value is drawn higher
    expect(out.path).toBe(`M${a!.x},${a!.y}H${b!.x}V${b!.y}`);
  });

  it("breaks the line where nothing could be computed", () => {
    const out = chartLayout([{ at: "2017-06-30", value: 1 }, { at: "2018-06-30", value: null },
                             { at: "2019-06-30", value: 2 }], 640, 240);
    expect(out.points[1]!.y).toBeNull();
    expect(out.path.match(/M/g)).toHaveLength(2);
  });

  it("draws a single value in the middle, with room above and below", () => {
    const out = chartLayout([{ at: "2018-06-30", value: 5 }], 640, 240);
    expect(out.points[0]!.x).toBe(PAD.left + (640 - PAD.left - PAD.right) / 2);
    expect(out.yTicks[0]!.value).toBeLessThan(5);
    expect(out.yTicks[3]!.value).toBeGreaterThan(5);
  });
});
