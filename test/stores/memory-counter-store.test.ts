import { describe, expect, it, vi } from "vitest";
import { memoryCounterStore } from "../../src/stores/memory-counter-store.js";
import { describeCounterStore } from "./contract.js";

describeCounterStore("memoryCounterStore", () => memoryCounterStore());
describeCounterStore("memoryCounterStore (whenFull: reject)", () => memoryCounterStore({ whenFull: "reject" }));

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

  it("makes room only in the flooding namespace, never evicting another's keys", async () => {
    const store = memoryCounterStore({ maxKeys: 10 });
    for (const user of ["a", "b", "c", "d", "e"]) await store.increment(`user:${user}`, 60);
    for (let i = 0; i < 200; i++) await store.increment(`ip:${i}`, 60);
    for (const user of ["a", "b", "c", "d", "e"]) await expect(store.get(`user:${user}`)).resolves.toBe(1);
    await expect(store.get("ip:199")).resolves.toBe(1);
  });

  it("bounds each namespace on its own: a full one does not crowd out another", async () => {
    const store = memoryCounterStore({ maxKeys: 10 });
    for (let i = 0; i < 10; i++) await store.increment(`ip:${i}`, 60);
    for (let i = 0; i < 10; i++) await store.increment(`user:${i}`, 60);
    for (let i = 0; i < 10; i++) await expect(store.get(`user:${i}`)).resolves.toBe(1);
    for (let i = 0; i < 10; i++) await expect(store.get(`ip:${i}`)).resolves.toBe(1);
  });

  it("within a namespace, drops the lowest counts first", async () => {
    const store = memoryCounterStore({ maxKeys: 10 });
    for (let i = 0; i < 6; i++) await store.increment("user:locked", 60);
    for (let i = 0; i < 100; i++) await store.increment(`user:fresh-${i}`, 60);
    await expect(store.get("user:locked")).resolves.toBe(6);
  });

  it("with whenFull: reject, keeps every unexpired key and rejects new ones while full", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const store = memoryCounterStore({ maxKeys: 10, whenFull: "reject" });
      // One namespace: each is bounded on its own.
      await store.increment("ip:revoked", 60);
      for (let i = 0; i < 9; i++) await store.increment(`ip:${i}`, 1);
      await expect(store.increment("ip:new", 60)).rejects.toThrow(/full/);
      await expect(store.increment("ip:other", 60)).rejects.toThrow(/full/);
      await expect(store.get("ip:revoked")).resolves.toBe(1);
      // A key already held still counts, and an expired key makes room.
      await expect(store.increment("ip:revoked", 60)).resolves.toBe(2);
      vi.setSystemTime(Date.now() + 1000);
      await expect(store.increment("ip:new", 60)).resolves.toBe(1);
      await expect(store.get("ip:revoked")).resolves.toBe(2);
      // A key deleted while the store is full frees its slot at once.
      for (let i = 0; i < 8; i++) await store.increment(`ip:again:${i}`, 60);
      await expect(store.increment("ip:more", 60)).rejects.toThrow(/full/);
      await store.delete("ip:new");
      await expect(store.increment("ip:more", 60)).resolves.toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("rejects bad options with a TypeError", () => {
    expect(() => memoryCounterStore({ maxKeys: -1 })).toThrow(TypeError);
    expect(() => memoryCounterStore({ whenFull: "drop" as never })).toThrow(/whenFull/);
  });
});
