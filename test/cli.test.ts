// The operator CLI as an operator runs it: `paygate …` in a child process, on the configured database.
import { describe, expect, it } from "vitest";
import { itRefusesBadArgs, useCli, type BadArgs } from "./support/cli.ts";

const BIP84_ZPUB =
  "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs";
const paygate = useCli();

describe("paygate CLI", () => {
  let merchantId: number;

  it("creates a merchant and prints its keys once, as JSON", async () => {
    const res = await paygate("merchant", "create", "--name", "Acme Stores", "--test-webhook-url", "http://127.0.0.1:9999/hook", "--json");
    expect(res.code).toBe(0);
    const merchant = JSON.parse(res.stdout);
    expect(Object.keys(merchant).sort()).toEqual(
      ["id", "livePublicKey", "liveSecretKey", "name", "testPublicKey", "testSecretKey", "webhookSecret"].sort(),
    );
    expect(merchant.name).toBe("Acme Stores");
    expect(merchant.testPublicKey).toMatch(/^pub_test_/);
    expect(merchant.testSecretKey).toMatch(/^sec_test_/);
    expect(merchant.livePublicKey).toMatch(/^pub_live_/);
    expect(merchant.liveSecretKey).toMatch(/^sec_live_/);
    expect(merchant.webhookSecret).toMatch(/^whsec_/);
    merchantId = merchant.id;
  });

  it("prints a readable summary without --json", async () => {
    const res = await paygate("merchant", "create", "--name", "Readable Ltd", "--kyb", "pending");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/Created merchant \d+ "Readable Ltd" \(KYB: pending\)/);
    expect(res.stdout).toMatch(/test secret key\s+sec_test_/);
  });

  it("sets a live wallet, KYB and activity, and shows them", async () => {
    const res = await paygate("merchant", "update", String(merchantId), "--kyb", "verified", "--active", "false", "--wallet", `BTC=${BIP84_ZPUB}`, "--json");
    expect(res.code).toBe(0);
    const summary = JSON.parse(res.stdout);
    expect(summary).toMatchObject({ id: merchantId, active: false, kyb: "verified" });
    expect(summary.wallets).toContainEqual({ currency: "BTC", mode: "live", extendedPublicKey: BIP84_ZPUB, nextIndex: 0 });
    expect(summary.wallets.filter((w: { mode: string }) => w.mode === "test")).toHaveLength(5);
  });

  it("refuses a wallet key of the wrong network, saying why, and changes nothing", async () => {
    const res = await paygate("merchant", "update", String(merchantId), "--wallet", `LTC=${BIP84_ZPUB}`, "--mode", "test");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/LTC wallet: /);
    expect(res.stderr).toMatch(/test/i);
  });

  it("refuses an unknown merchant with exit code 1", async () => {
    const res = await paygate("merchant", "update", "999999", "--active", "true");
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/No merchant with id 999999/);
  });

  it("creates test and live payment links", async () => {
    const test = await paygate("payment-link", "create", "--merchant", String(merchantId), "--json");
    expect(test.code).toBe(0);
    expect(JSON.parse(test.stdout).slug).toMatch(/^pl_[0-9A-Za-z]{20}$/);
    const live = await paygate("payment-link", "create", "--merchant", String(merchantId), "--live");
    expect(live.code).toBe(0);
    expect(live.stdout).toMatch(/Created live payment link pl_\w+ for merchant/);
  });

  const badArgs: BadArgs[] = [
    ["an unknown command", ["merchant", "delete"], /Unknown command 'merchant delete'/],
    ["a missing name", ["merchant", "create"], /--name is required/],
    ["an unknown option", ["merchant", "create", "--name", "x", "--colour", "red"], /Unknown option '--colour'/],
    ["a bad KYB status", ["merchant", "create", "--name", "x", "--kyb", "maybe"], /--kyb must be one of/],
    ["a bad merchant id", ["merchant", "update", "abc", "--active", "true"], /merchant id is a whole number/],
    ["a bad --active", ["merchant", "update", "1", "--active", "yes"], /--active must be true or false/],
    ["a malformed --wallet", ["merchant", "update", "1", "--wallet", "DOGE=abc"], /--wallet takes CURRENCY=EXTENDED_PUBLIC_KEY/],
    ["nothing to change", ["merchant", "update", "1"], /Nothing to change/],
  ];
  itRefusesBadArgs(paygate, badArgs);
});
