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

  const badArgs: BadArgs[] = [
    ["a flush without --network", ["settlement", "flush", "--merchant", "1"], /--network is required \(ethereum or bsc\)\./],
    ["a setting without --destination", ["settlement", "forwarder-set", "--merchant", "1", "--network", "ethereum"], /--destination is required/],
  ];
  itRefusesBadArgs(paygate, badArgs);
});
