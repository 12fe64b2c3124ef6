// `paygate settlement own-addresses|own-addresses-set|own-addresses-remove|unmatched|unmatched-assign|
// unmatched-refund` (issue 40; docs/settlement.md, Own addresses): the setting through the CLI, in the
// mode asked for only, and the refusals. The matching on a chain is test/e2e/tron-own-addresses-anvil.test.ts.
import { describe, expect, it } from "vitest";
import { useCli } from "./support/cli.ts";

const paygate = useCli({ inProcess: true });

describe("paygate settlement own addresses", () => {
  let merchantId: string;

  it("sets k own TRON addresses in test mode, lists them, leaves live mode alone, and removes the setting", async () => {
    const created = await paygate("merchant", "create", "--name", "Own Goods", "--json");
    expect(created.code).toBe(0);
    merchantId = String(JSON.parse(created.stdout).id);
    const none = await paygate("settlement", "own-addresses", "--merchant", merchantId);
    expect([none.code, none.stdout.trim()]).toEqual([0, `Merchant ${merchantId} settles no test-mode network to its own addresses.`]);
    const set = await paygate("settlement", "own-addresses-set", "--merchant", merchantId, "--count", "2", "--json");
    expect(set.code, set.stderr).toBe(0);
    const setting = JSON.parse(set.stdout) as { address_count: number; addresses: string[]; is_live: boolean };
    expect([setting.address_count, setting.is_live, setting.addresses.length]).toEqual([2, false, 2]);
    for (const a of setting.addresses) expect(a).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const live = await paygate("settlement", "own-addresses", "--merchant", merchantId, "--mode", "live", "--json");
    expect([live.code, JSON.parse(live.stdout)]).toEqual([0, { own_addresses: [] }]);
    const removed = await paygate("settlement", "own-addresses-remove", "--merchant", merchantId);
    expect([removed.code, removed.stdout.trim()]).toEqual([0, `New tron payments of merchant ${merchantId} get a fresh address each again.`]);
  }, 120_000); // the first command migrates the new data folder

  it("refuses bad arguments with exit code 1 and what to do", async () => {
    const count = await paygate("settlement", "own-addresses-set", "--merchant", merchantId, "--count", "11");
    expect([count.code, count.stderr]).toEqual([
      expect.any(Number),
      expect.stringContaining("--count must be a whole number from 1 to 10; got '11'."),
    ]);
    expect(count.code).not.toBe(0);
    const missing = await paygate("settlement", "own-addresses-set", "--merchant", merchantId);
    expect(missing.stderr).toContain("--count is required: how many own addresses, 1 to 10.");
    const evm = await paygate("settlement", "own-addresses-set", "--merchant", merchantId, "--count", "1", "--network", "bsc");
    expect(evm.code).not.toBe(0);
    expect(evm.stderr).toContain("--network must be tron (own addresses are TRON's); got 'bsc'.");
    const again = await paygate("settlement", "own-addresses-remove", "--merchant", merchantId);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("No own-address setting for network 'tron' in this mode")]);
    const unknown = await paygate(
      "settlement",
      "unmatched-assign",
      "ur_00000000-0000-4000-8000-000000000000",
      "--merchant",
      merchantId,
      "--transaction",
      "x",
    );
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      expect.stringContaining("No unmatched receipt with id 'ur_00000000-0000-4000-8000-000000000000'"),
    ]);
    const noHash = await paygate("settlement", "unmatched-refund", "ur_00000000-0000-4000-8000-000000000000", "--merchant", merchantId);
    expect(noHash.stderr).toContain("--tx-hash is required");
    const list = await paygate("settlement", "unmatched", "--merchant", merchantId);
    expect([list.code, list.stdout.trim()]).toEqual([0, `Merchant ${merchantId} has no test-mode unmatched receipts.`]);
  });
});
