// CappedPlaces (src/edge/connection-limits.ts), the one counter behind the live connections' caps and the
// event stream's: the cap in all first, then each key's, a place given back once however often released.
import { describe, expect, it } from "vitest";
import { CappedPlaces } from "../../src/edge/connection-limits.ts";

describe("CappedPlaces", () => {
  it("refuses past the cap in all, then past a key's cap, naming the cap and its limit", () => {
    const places = new CappedPlaces<"address" | "credential">({ total: 3, address: 2, credential: 1 });
    const a = places.acquire({ address: "a", credential: "k" });
    expect("release" in a).toBe(true);
    expect(places.acquire({ address: "a", credential: "k" })).toEqual({ cap: "credential", limit: 1 });
    expect("release" in places.acquire({ address: "a" })).toBe(true);
    expect(places.acquire({ address: "a" })).toEqual({ cap: "address", limit: 2 });
    expect("release" in places.acquire({ address: "b" })).toBe(true);
    expect(places.count).toBe(3);
    expect(places.acquire({ address: "c" })).toEqual({ cap: "total", limit: 3 });
  });

  it("gives a place back once, however often released; a key counted outside the total leaves the total alone", () => {
    const places = new CappedPlaces<"key">({ total: 1, key: 2 });
    const first = places.acquire({ key: "x" });
    if (!("release" in first)) throw new Error("refused");
    const keyOnly = places.acquire({ key: "x" }, false);
    if (!("release" in keyOnly)) throw new Error("refused");
    expect(places.count).toBe(1);
    expect(places.acquire({ key: "x" }, false)).toEqual({ cap: "key", limit: 2 });
    first.release();
    first.release();
    expect(places.count).toBe(0);
    // Given back once: keyOnly holds one, so one more fits and the next is refused.
    expect("release" in places.acquire({ key: "x" }, false)).toBe(true);
    expect(places.acquire({ key: "x" }, false)).toEqual({ cap: "key", limit: 2 });
    keyOnly.release();
    expect("release" in places.acquire({ key: "x" })).toBe(true);
  });
});
