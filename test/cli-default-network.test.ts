// `paygate merchant update … --default-network CURRENCY=NETWORK` (issue 25): sets the network a coin
// is paid on when an initiate names none, in --mode; refused where the merchant has no wallet, or
// for a network that does not carry the coin.
import { describe, expect, it } from "vitest";
import { itRefusesBadArgs, useCli, type BadArgs } from "./support/cli.ts";

const paygate = useCli({ inProcess: true });

describe("paygate merchant update --default-network", () => {
  let merchantId: string;

  it("sets a test-mode default where the merchant has a wallet, and shows it", async () => {
    const created = await paygate("merchant", "create", "--name", "Lagos Shop", "--json");
    expect(created.code).toBe(0);
    merchantId = String(JSON.parse(created.stdout).id);
    // A new merchant has a test wallet for each coin on its own network (USDT: ethereum).
    const res = await paygate("merchant", "update", merchantId, "--default-network", "usdt=Ethereum", "--mode", "test", "--json");
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).defaultNetworks).toEqual([{ currency: "USDT", mode: "test", network: "ethereum" }]);
    const text = await paygate("merchant", "update", merchantId, "--default-network", "USDT=ethereum", "--mode", "test");
    expect(text.stdout).toContain("Default networks: test USDT on ethereum.");
  }, 120_000); // the first command migrates the new data folder

  it("refuses a network the merchant has no wallet on, with exit code 1, and changes nothing", async () => {
    // A new merchant has a test wallet on every network (issue 43), and none in live mode.
    const res = await paygate("merchant", "update", merchantId, "--default-network", "USDT=tron", "--json");
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("default network: no USDT wallet on tron is set for live mode; add one before making tron the default for USDT");
    const live = await paygate("merchant", "update", merchantId, "--default-network", "USDT=ethereum", "--json");
    expect(live.code).toBe(1);
    expect(live.stderr).toContain("no USDT wallet on ethereum is set for live mode");
    const unchanged = await paygate("merchant", "update", merchantId, "--active", "true", "--json");
    expect(JSON.parse(unchanged.stdout).defaultNetworks).toEqual([{ currency: "USDT", mode: "test", network: "ethereum" }]);
  });

  it("refuses a network that does not carry the coin, naming the allowed ones", async () => {
    const res = await paygate("merchant", "update", merchantId, "--default-network", "USDT=litecoin", "--mode", "test");
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("default network must be one of ethereum, bsc, tron, polygon, arbitrum for USDT (got 'litecoin')");
  });

  const badArgs: BadArgs[] = [
    [
      "a --default-network of an unknown coin",
      ["merchant", "update", "1", "--default-network", "DOGE=tron"],
      /--default-network takes CURRENCY=NETWORK/,
    ],
    ["a --default-network without a network", ["merchant", "update", "1", "--default-network", "USDT"], /--default-network takes CURRENCY=NETWORK/],
  ];
  itRefusesBadArgs(paygate, badArgs);
});
