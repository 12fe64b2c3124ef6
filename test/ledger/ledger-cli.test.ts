// `paygate ledger list | totals | export` (issue 40, goal 5; docs/ledger.md): the same entries and
// totals as the REST API through the operator's access, each command saying what it did; the export
// writes a CSV that parses back; a bad period or filter exits 1 with the core's message, bad
// arguments exit 2 with the usage. The payments are made through the service's wiring on the CLI's database.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { Decimal } from "../../src/core/money/amounts.ts";
import { startRuntime } from "../../src/runtime.ts";
import { itRefusesBadArgs, useCli } from "../support/cli.ts";

const paygate = useCli({ inProcess: true, migrated: true });

/** Test payments of 40 USD in each coin, recorded by the test helper, through the service's wiring. */
async function payments(keys: { testPublicKey: string; testSecretKey: string }, currencyIds: string[]): Promise<string[]> {
  const runtime = await startRuntime(loadConfig(paygate.env()));
  try {
    const ids: string[] = [];
    for (const currencyId of currencyIds) {
      const created = await runtime.gateway.payments.initializeTransaction({
        bearerToken: keys.testPublicKey,
        body: { customer: { email: "ada@example.com" }, currency: "USD", amount: "40", description: "-2+3" },
      });
      const id = created.transaction.id;
      await runtime.gateway.payments.initiatePayment({ bearerToken: keys.testSecretKey, transactionId: id, body: { currency_id: currencyId } });
      await runtime.gateway.payments.recordTestPayment({ bearerToken: keys.testSecretKey, transactionId: id, body: {} });
      ids.push(id);
    }
    return ids;
  } finally {
    await runtime.close();
  }
}

describe("paygate ledger", () => {
  let merchantId: string;
  let ids: string[];

  it("lists the entries, totals them per coin and network, and exports a period's CSV, saying what it did", async () => {
    const created = await paygate("merchant", "create", "--name", "Ledger CLI Shop", "--json");
    expect(created.code, created.stderr).toBe(0);
    const merchant = JSON.parse(created.stdout);
    merchantId = String(merchant.id);
    ids = await payments(merchant, ["7", "7", "6"]);

    const json = await paygate("ledger", "list", "--merchant", merchantId, "--json");
    expect(json.code, json.stderr).toBe(0);
    const entries = JSON.parse(json.stdout).entries as { id: string; transaction_id: string; coin: string; amount: string; tx_hash: string | null }[];
    expect(entries.map((e) => e.transaction_id).sort()).toEqual([...ids].sort());

    const listed = await paygate("ledger", "list", "--merchant", merchantId, "--coin", "LTC");
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`Merchant ${merchantId}'s test-mode ledger, newest first:`);
    expect(lines.slice(1)).toHaveLength(2);
    for (const e of entries.filter((x) => x.coin === "LTC")) {
      expect(listed.stdout).toContain(`receipt       in       ${e.amount} LTC on litecoin  ${e.tx_hash}  ${e.id}`);
    }

    const totals = await paygate("ledger", "totals", "--merchant", merchantId, "--json");
    expect(totals.code, totals.stderr).toBe(0);
    const lines2 = JSON.parse(totals.stdout).totals as { coin: string; received: string; receipts: number; net: string }[];
    const sum = (coin: string) =>
      entries
        .filter((e) => e.coin === coin)
        .reduce((s, e) => s.plus(e.amount), new Decimal(0))
        .toFixed();
    expect(lines2.map((x) => [x.coin, x.receipts, x.received, x.net])).toEqual([
      ["ETH", 1, sum("ETH"), sum("ETH")],
      ["LTC", 2, sum("LTC"), sum("LTC")],
    ]);
    const text = await paygate("ledger", "totals", "--merchant", merchantId, "--coin", "LTC", "--from", "2000-01-01");
    expect(text.code, text.stderr).toBe(0);
    const ltc = lines2.find((x) => x.coin === "LTC");
    expect(text.stdout).toBe(
      `Totals of merchant ${merchantId}'s test-mode ledger from 2000-01-01T00:00:00.000Z to now:\n` +
        `  LTC on litecoin: received ${ltc?.received} (2), refunded 0 (0, fees 0), consolidated 0 (0, fees 0), net ${ltc?.net}\n`,
    );

    const out = path.join(mkdtempSync(path.join(tmpdir(), "paygate-ledger-")), "ledger.csv");
    const exported = await paygate("ledger", "export", "--merchant", merchantId, "--from", "2000-01-01", "--to", "2999-01-01", "--out", out);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toBe(
      `Wrote 3 entries of merchant ${merchantId}'s test-mode ledger from 2000-01-01T00:00:00.000Z to 2999-01-01T00:00:00.000Z to ${out} (CSV, one header row).\n`,
    );
    const rows = parse(readFileSync(out, "utf8"), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.id, r.amount, r.description])).toEqual(entries.map((e) => [e.id, e.amount, "'-2+3"]));
    // Without --out, the CSV alone on standard output.
    const stdout = await paygate("ledger", "export", "--merchant", merchantId, "--from", "2000-01-01", "--to", "2999-01-01", "--coin", "ETH");
    expect(stdout.code, stdout.stderr).toBe(0);
    expect((parse(stdout.stdout, { columns: true }) as Record<string, string>[]).map((r) => r.id)).toEqual(
      entries.filter((e) => e.coin === "ETH").map((e) => e.id),
    );
  }, 180_000);

  it("says so when the other mode has no entries", async () => {
    const res = await paygate("ledger", "list", "--merchant", merchantId, "--mode", "live");
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`Merchant ${merchantId} has no live-mode ledger entries that match.\n`);
    const totals = await paygate("ledger", "totals", "--merchant", merchantId, "--mode", "live");
    expect(totals.stdout).toBe(`No entries in merchant ${merchantId}'s live-mode ledger from the start to now.\n`);
  });

  it("refuses a bad period or filter with exit code 1 and the core's message, writing nothing", async () => {
    const cases: [string[], string][] = [
      [["ledger", "totals", "--from", "2026-12-02", "--to", "2026-12-01"], "to must be after from (2026-12-02T00:00:00.000Z)"],
      [["ledger", "list", "--coin", "DOGE"], "coin must be one of USDT, BTC, BNB, ETH, LTC"],
      [["ledger", "export", "--from", "2026-12-01"], "to is required: an export covers a stated period"],
    ];
    for (const [args, message] of cases) {
      const res = await paygate(...args, "--merchant", merchantId);
      expect([res.code, res.stdout], args.join(" ")).toEqual([1, ""]);
      expect(res.stderr).toContain(message);
    }
  });

  itRefusesBadArgs(paygate, [
    ["no merchant", ["ledger", "list"], /--merchant ID is required\./],
    ["a bad mode", ["ledger", "totals", "--merchant", "1", "--mode", "main"], /--mode must be test or live; got 'main'\./],
  ]);
});
