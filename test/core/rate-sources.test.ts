// The providers behind a locked quote, as stored in transactions.quote_sources and read back.
import { describe, expect, it } from "vitest";
import { rateSourcesOf, storedRateSources } from "../../src/core/transactions/rate-sources.ts";

describe("rate sources", () => {
  it("stores each provider's part with its time as ISO text, and reads it back unchanged", () => {
    const stored = storedRateSources([
      {
        provider: "coingecko",
        rate: "65000.1",
        quotedAt: new Date("2026-11-26T10:00:00Z"),
        used: true,
        reason: null,
        detail: "0% from the median 65000.1",
      },
      { provider: "kraken", rate: null, quotedAt: null, used: false, reason: "timeout", detail: "kraken: no complete answer within 3000 ms" },
    ]);
    expect(stored?.[0]?.quotedAt).toBe("2026-11-26T10:00:00.000Z");
    expect(rateSourcesOf(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
  });

  it("stores nothing for a quote from one provider", () => {
    expect(storedRateSources(undefined)).toBeNull();
    expect(storedRateSources([])).toBeNull();
  });

  it("reads a damaged column as no sources rather than breaking the transaction's view", () => {
    for (const damaged of [null, "x", {}, [1], [{ provider: 1, used: true }], [{ provider: "kraken" }]]) expect(rateSourcesOf(damaged)).toBeNull();
    expect(rateSourcesOf([{ provider: "kraken", used: false, rate: 5 }])).toEqual([
      { provider: "kraken", rate: null, quotedAt: null, used: false, reason: null, detail: null },
    ]);
  });
});
