import { describe, expect, it } from "vitest";
import { forgetKey, readKey, saveKey } from "../src/key";

// sessionStorage's interface over a Map: node has no browser storage.
function storage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() { return m.size; },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => { m.delete(k); },
    setItem: (k, v) => { m.set(k, v); },
  };
}

describe("the API key", () => {
  it("is kept trimmed, read back, and forgotten", () => {
    const s = storage();
    expect(readKey(s)).toBeNull();
    saveKey("  vk_abc  ", s);
    expect(readKey(s)).toBe("vk_abc");
    forgetKey(s);
    expect(readKey(s)).toBeNull();
  });

  it("is removed by saving an empty one, not kept as blank", () => {
    const s = storage();
    saveKey("vk_abc", s);
    saveKey("   ", s);
    expect(readKey(s)).toBeNull();
    expect(s.length).toBe(0);
  });
});
