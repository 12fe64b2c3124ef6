// The watcher's share is its slot's rank among the slots held (src/core/transactions/watch-shares.ts);
// PostgreSQL's slots themselves are tested in test/jobs/watch-shares.test.ts.
import { describe, expect, it } from "vitest";
import { shareOf, SlotWatchShares, type WatchSlots } from "../../src/core/transactions/watch-shares.ts";

describe("watch shares", () => {
  it("ranks an instance's slot among those held, its own counted once", () => {
    expect(shareOf(5, [2, 5, 9])).toEqual({ index: 1, of: 3 });
    expect(shareOf(5, [9, 2])).toEqual({ index: 1, of: 3 });
    expect(shareOf(0, [])).toEqual({ index: 0, of: 1 });
  });

  it("watches nothing, and says so, while every slot is taken or the slots cannot be read", async () => {
    const lines: string[] = [];
    let released = 0;
    let fail = false;
    const slots: WatchSlots = {
      capacity: 2,
      claim: async () => {
        if (fail) throw new Error("connection refused");
        return { own: null, held: [0, 1] };
      },
      release: async () => {
        released++;
      },
    };
    const shares = new SlotWatchShares(slots, (line) => lines.push(line));
    expect(await shares.current()).toBeNull();
    expect(lines.pop()).toBe("payment watcher: all 2 watch slots are taken; watching nothing until one is free");
    fail = true;
    expect(await shares.current()).toBeNull();
    expect(lines.pop()).toBe("payment watcher: its share of the watch list is unknown (connection refused); asking again at the next pass");
    expect(released).toBe(1);
  });
});
