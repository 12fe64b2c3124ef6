// `paygate merchant pricing ID [--spread] [--sources]` on the configured database (issue 29): shows
// and sets a merchant's spread and price providers through the core, with its checks (the providers
// of PAYGATE_PRICE_FEED, the quorum of the median), audited as the operator's.
import { describe, expect, it } from "vitest";
import { useCli } from "./support/cli.ts";

const paygate = useCli({
  inProcess: true,
  migrated: true,
  env: { PAYGATE_PRICE_FEED: "coingecko,coinbase,kraken", PAYGATE_PRICE_STRATEGY: "median", PAYGATE_PRICE_QUORUM: "2" },
});

describe("paygate merchant pricing", { timeout: 90_000 }, () => {
  it("shows, sets and refuses a merchant's pricing", async () => {
    const made = await paygate("merchant", "create", "--name", "CLI Pricing", "--json");
    expect(made.code).toBe(0);
    const id = String(JSON.parse(made.stdout).id);

    const shown = await paygate("merchant", "pricing", id);
    expect(shown).toMatchObject({ code: 0, stderr: "" });
    expect(shown.stdout).toBe(
      `Pricing of merchant ${id}: spread 0% (at most 10%).\nPrice sources: the operator's (available: coingecko, coinbase, kraken).\n`,
    );

    const set = await paygate("merchant", "pricing", id, "--spread", "1.5", "--sources", "coinbase,kraken", "--json");
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      spreadPercent: "1.5",
      sources: ["coinbase", "kraken"],
      available: ["coingecko", "coinbase", "kraken"],
      minimumSources: 2,
      spreadBounds: { min: "0", max: "10" },
    });

    const unknown = await paygate("merchant", "pricing", id, "--sources", "coinbase,binance");
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toBe("paygate: sources: unknown provider 'binance'; the known ones are coingecko, coinbase, kraken\n");
    const tooFew = await paygate("merchant", "pricing", id, "--sources", "kraken");
    expect(tooFew.code).toBe(1);
    expect(tooFew.stderr).toMatch(/sources must name at least 2 providers/);
    const tooMuch = await paygate("merchant", "pricing", id, "--spread", "25");
    expect(tooMuch.code).toBe(1);
    expect(tooMuch.stderr).toBe("paygate: spread must be a decimal string from 0 to 10 (percent), with at most 4 decimal places\n");

    const reset = await paygate("merchant", "pricing", id, "--sources", "");
    expect(reset.code).toBe(0);
    expect(reset.stdout).toBe(
      `Updated merchant ${id}: spread 1.5% (at most 10%).\nPrice sources: the operator's (available: coingecko, coinbase, kraken).\n`,
    );
    const missing = await paygate("merchant", "pricing", "999999");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No merchant with id 999999/);
  });
});
