// `paygate test-rates …` on the configured database: in this process through runCli, and once as an
// operator runs it, in a child process.
import { describe, expect, it } from "vitest";
import { itRefusesBadArgs, useCli, type BadArgs } from "./support/cli.ts";

const paygate = useCli({ inProcess: true, migrated: true });

interface Row {
  crypto: string;
  fiat: string;
  rate: string;
  origin: string;
  updatedAt: string | null;
}

// Each command opens the database afresh and closes it, in this process or in a child one.
describe("paygate test-rates", { timeout: 90_000 }, () => {
  it("lists every pair with its default rate, as JSON (bin/paygate.mjs in a child process)", async () => {
    const res = await paygate.child("test-rates", "list", "--json");
    expect(res.code).toBe(0);
    const { rates } = JSON.parse(res.stdout) as { rates: Row[] };
    // Six coins (USDC is issue 43's extension) × two fiats.
    expect(rates).toHaveLength(12);
    expect(rates).toContainEqual({ crypto: "USDC", fiat: "USD", rate: "1", origin: "default", updatedAt: null });
    expect(rates).toContainEqual({ crypto: "BTC", fiat: "USD", rate: "65000", origin: "default", updatedAt: null });
    expect(rates).toContainEqual({ crypto: "USDT", fiat: "NGN", rate: "1500", origin: "default", updatedAt: null });
    expect(rates.every((r) => r.origin === "default")).toBe(true);
  });

  it("sets a rate, says what it changed, and lists it", async () => {
    const set = await paygate("test-rates", "set", "btc", "usd", "70000.5");
    expect(set.code).toBe(0);
    expect(set.stdout.trim()).toBe("Set the test rate of BTC/USD to 70000.5 USD per BTC; it was 65000 (default).");

    const again = await paygate("test-rates", "set", "BTC", "USD", "71000", "--json");
    expect(again.code).toBe(0);
    const change = JSON.parse(again.stdout);
    expect(change).toMatchObject({ crypto: "BTC", fiat: "USD", rate: "71000", previous: { rate: "70000.5", origin: "set" } });
    expect(new Date(change.updatedAt).toISOString()).toBe(change.updatedAt);

    const list = await paygate("test-rates", "list");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^\s+BTC\s+USD\s+71000\s+set \d{4}-\d\d-\d\dT/m);
    expect(list.stdout).toMatch(/^\s+BTC\s+NGN\s+97500000\s+default$/m);
  });

  it("keeps every digit of a precise rate", async () => {
    const res = await paygate("test-rates", "set", "ETH", "NGN", "4500000.123456789012345678", "--json");
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ rate: "4500000.123456789012345678", previous: { rate: "4500000", origin: "default" } });
  });

  const badArgs: BadArgs[] = [
    ["an unknown action", ["test-rates", "reset"], /Unknown command 'test-rates reset'/],
    ["a missing rate", ["test-rates", "set", "BTC", "USD"], /Expected 3 argument\(s\), got 2/],
    ["an extra argument", ["test-rates", "set", "BTC", "USD", "1", "2"], /Expected 3 argument\(s\), got 4/],
    ["an unknown coin", ["test-rates", "set", "DOGE", "USD", "1"], /CRYPTO must be one of USDT, BTC, BNB, ETH, LTC, USDC; got 'DOGE'/],
    ["an unknown fiat", ["test-rates", "set", "BTC", "EUR", "1"], /FIAT must be one of USD, NGN; got 'EUR'/],
    ["a zero rate", ["test-rates", "set", "BTC", "USD", "0"], /RATE must be greater than 0/],
    ["a rate that is not a decimal", ["test-rates", "set", "BTC", "USD", "65k"], /RATE must be a positive decimal/],
    ["a negative rate", ["test-rates", "set", "BTC", "USD", "--", "-5"], /RATE must be a positive decimal/],
    ["too many decimals", ["test-rates", "set", "BTC", "USD", "1.0000000000000000001"], /more than 18 decimal places/],
    ["an unknown option", ["test-rates", "list", "--all"], /Unknown option '--all'/],
    ["an argument to list", ["test-rates", "list", "BTC"], /Unexpected argument|Expected 0 argument/],
  ];
  itRefusesBadArgs(paygate, badArgs, /test-rates set CRYPTO FIAT RATE/);

  it("changed nothing on a refused set", async () => {
    const res = await paygate("test-rates", "list", "--json");
    const { rates } = JSON.parse(res.stdout) as { rates: Row[] };
    expect(
      rates
        .filter((r) => r.origin === "set")
        .map((r) => `${r.crypto}/${r.fiat}=${r.rate}`)
        .sort(),
    ).toEqual(["BTC/USD=71000", "ETH/NGN=4500000.123456789012345678"]);
  });
});
