// `paygate settlement forwarders|forwarder-set|forwarder-remove|flush|flushes` (issue 40;
// docs/settlement.md) without a chain node: the refusals the configuration and the database decide.
// The flush itself on a chain is test/e2e/forwarders-anvil.test.ts (REST, the same core use case).
import { describe, expect, it } from "vitest";
import { itRefusesBadArgs, useCli, type BadArgs } from "./support/cli.ts";

const paygate = useCli({ inProcess: true });

describe("paygate settlement and deposit forwarders", () => {
  let merchantId: string;

  it("lists no setting and no flush of a new merchant", async () => {
    const created = await paygate("merchant", "create", "--name", "Forwarded Goods", "--json");
    expect(created.code).toBe(0);
    merchantId = String(JSON.parse(created.stdout).id);
    const settings = await paygate("settlement", "forwarders", "--merchant", merchantId, "--json");
    expect([settings.code, JSON.parse(settings.stdout)]).toEqual([0, { forwarders: [] }]);
    const flushes = await paygate("settlement", "flushes", "--merchant", merchantId);
    expect([flushes.code, flushes.stdout.trim()]).toEqual([0, `Merchant ${merchantId} has no test-mode flushes.`]);
  }, 120_000); // the first command migrates the new data folder

  it("refuses a setting and a flush without the operator's factory, naming its variable, with exit code 1", async () => {
    const set = await paygate(
      "settlement",
      "forwarder-set",
      "--merchant",
      merchantId,
      "--network",
      "ethereum",
      "--destination",
      "0x52908400098527886E0F7030069857D2E4169EE7",
    );
    expect(set.code).toBe(1);
    expect(set.stderr).toContain(
      "Deposit forwarders are not configured for Ethereum Sepolia testnet (test mode): the operator must set PAYGATE_ETH_TEST_FORWARDER_FACTORY",
    );
    const flush = await paygate("settlement", "flush", "--merchant", merchantId, "--network", "bsc", "--mode", "live");
    expect(flush.code).toBe(1);
    expect(flush.stderr).toContain(
      "Deposit forwarders are not configured for BNB Smart Chain (live mode): the operator must set PAYGATE_BSC_FORWARDER_FACTORY",
    );
    const removed = await paygate("settlement", "forwarder-remove", "--merchant", merchantId, "--network", "ethereum");
    expect(removed.code).toBe(1);
    expect(removed.stderr).toContain("No forwarder setting for network 'ethereum' in this mode");
  });

  it("sets, lists and removes a flush rule, printing what it did; a bad threshold exits 1 with the field's message", async () => {
    const set = await paygate(
      "settlement",
      "flush-rule-set",
      "--merchant",
      merchantId,
      "--network",
      "bsc",
      "--min-payments",
      "10",
      "--min-value",
      "250",
      "--value-currency",
      "USD",
    );
    expect([set.code, set.stdout.trim()]).toEqual([
      0,
      `Merchant ${merchantId}'s settled bsc forwarders are flushed by the job as soon as one holds:\n  bsc  flush at 10 payments or 250.00 USD or the operator's age`,
    ]);
    const listed = await paygate("settlement", "flush-rules", "--merchant", merchantId, "--json");
    expect([
      listed.code,
      JSON.parse(listed.stdout).flush_rules.map((r: { network: string; min_payments: number }) => [r.network, r.min_payments]),
    ]).toEqual([0, [["bsc", 10]]]);
    const live = await paygate("settlement", "flush-rules", "--merchant", merchantId, "--mode", "live");
    expect(live.stdout.trim()).toBe(`Merchant ${merchantId} has no live-mode flush rules: the operator's thresholds apply.`);
    const bad = await paygate("settlement", "flush-rule-set", "--merchant", merchantId, "--network", "bsc", "--max-age-hours", "9999");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("max_age_hours must be a whole number from 1 to 2160");
    const removed = await paygate("settlement", "flush-rule-remove", "--merchant", merchantId, "--network", "bsc");
    expect([removed.code, removed.stdout.trim()]).toEqual([
      0,
      `Removed merchant ${merchantId}'s bsc flush rule: the operator's thresholds apply again.`,
    ]);
    const again = await paygate("settlement", "flush-rule-remove", "--merchant", merchantId, "--network", "bsc");
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("No flush rule for network 'bsc' in this mode")]);
  });

  const badArgs: BadArgs[] = [
    [
      "a flush rule without --network",
      ["settlement", "flush-rule-set", "--merchant", "1", "--min-payments", "3"],
      /--network is required \(ethereum, bsc, base, polygon, arbitrum\)\./,
    ],
    [
      "a flush rule's value without its currency",
      ["settlement", "flush-rule-set", "--merchant", "1", "--network", "bsc", "--min-value", "5"],
      /--min-value and --value-currency go together/,
    ],
    [
      "a flush rule's count that is no number",
      ["settlement", "flush-rule-set", "--merchant", "1", "--network", "bsc", "--min-payments", "ten"],
      /--min-payments must be a whole number; got 'ten'\./,
    ],
    ["a flush without --network", ["settlement", "flush", "--merchant", "1"], /--network is required \(ethereum, bsc, base, polygon, arbitrum\)\./],
    ["a setting without --destination", ["settlement", "forwarder-set", "--merchant", "1", "--network", "ethereum"], /--destination is required/],
  ];
  itRefusesBadArgs(paygate, badArgs);
});
