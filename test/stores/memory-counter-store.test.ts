import { describe, expect, it } from "vitest";
import { memoryCounterStore } from "../../src/stores/memory-counter-store.js";
import { describeCounterStore } from "./contract.js";

describeCounterStore("memoryCounterStore", () => memoryCounterStore());

describe("memoryCounterStore", () => {
  it("stays within maxKeys, dropping the oldest keys first", async () => {
    const store = memoryCounterStore({ maxKeys: 10 });
    for (let i = 0; i < 25; i++) await store.increment(`ip:${i}`, 60);
    let kept = 0;
    for (let i = 0; i < 25; i++) kept += await store.get(`ip:${i}`);
    expect(kept).toBeLessThanOrEqual(10);
    await expect(store.get("ip:24")).resolves.toBe(1);
    await expect(store.get("ip:0")).resolves.toBe(0);
  });

  it("rejects bad options with a TypeError", () => {
    expect(() => memoryCounterStore({ maxKeys: -1 })).toThrow(TypeError);
  });
});
