// Which statement texts a PostgreSQL connection keeps prepared (src/db/prepared-statements.ts).
import { describe, expect, it } from "vitest";
import { statementNamer } from "../../src/db/prepared-statements.ts";

describe("statementNamer", () => {
  it("names a text the third time it is seen, and keeps that name", () => {
    const nameOf = statementNamer({ limit: 10 });
    expect([nameOf("SELECT 1"), nameOf("SELECT 1")]).toEqual([undefined, undefined]);
    expect(nameOf("SELECT 1")).toBe("paygate_1");
    expect(nameOf("SELECT 1")).toBe("paygate_1");
    for (let i = 0; i < 2; i++) expect(nameOf("SELECT 2")).toBeUndefined();
    expect(nameOf("SELECT 2")).toBe("paygate_2");
    expect(nameOf("SELECT 1")).toBe("paygate_1");
  });

  it("names no more than its limit; texts seen after that run unnamed", () => {
    const nameOf = statementNamer({ limit: 2, threshold: 1 });
    expect(["a", "b", "c", "a", "c"].map(nameOf)).toEqual(["paygate_1", "paygate_2", undefined, "paygate_1", undefined]);
    const none = statementNamer({ limit: 0, threshold: 1 });
    expect(none("a")).toBeUndefined();
  });

  it("forgets the sightings of texts not seen for a long while, so a text built once never gets a name", () => {
    const nameOf = statementNamer({ limit: 10 });
    nameOf("once");
    nameOf("once");
    // More than the 1,000 sightings it remembers, each of another text.
    for (let i = 0; i < 1001; i++) nameOf(`SELECT ${i} FROM t WHERE id IN (${"$1,".repeat(i)}$0)`);
    expect(nameOf("once")).toBeUndefined();
    expect(nameOf("once")).toBeUndefined();
    expect(nameOf("once")).toBe("paygate_1");
  });
});
