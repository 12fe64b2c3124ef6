// `paygate settlement sweep-plan` (issue 40; docs/settlement.md, Sweeping fresh addresses) without a
// chain node: an empty plan (no payment is read, no node asked) and the refusals the parameters decide.
// Plans of paid addresses read from a node, and the sweep tool, are test/e2e/sweep-anvil.test.ts.
import { describe, expect, it } from "vitest";
import { itRefusesBadArgs, useCli, type BadArgs } from "./support/cli.ts";

const paygate = useCli({ inProcess: true });
const DESTINATION = "0x52908400098527886E0F7030069857D2E4169EE7";

describe("paygate settlement sweep-plan", () => {
  let merchantId: string;

  it("prints an empty plan of a merchant without payments, as text and as the JSON the sweep tool reads", async () => {
    const created = await paygate("merchant", "create", "--name", "Swept Goods", "--json");
    expect(created.code).toBe(0);
    merchantId = String(JSON.parse(created.stdout).id);
    const text = await paygate("settlement", "sweep-plan", "--merchant", merchantId, "--network", "ethereum", "--destination", DESTINATION);
    expect([text.code, text.stdout.trim().split("\n")]).toEqual([
      0,
      [
        `Sweep plan of merchant ${merchantId} on Ethereum Sepolia testnet to ${DESTINATION} (parameter):`,
        "  no address of a settled payment holds funds (0 payments read).",
        "Fees: 0 ETH (top-ups 0), 0 USD",
        "Nothing was moved. Run the sweep tool (tools/sweep, docs/settlement.md) on the merchant's machine to sweep.",
      ],
    ]);
    const json = await paygate(
      "settlement",
      "sweep-plan",
      "--merchant",
      merchantId,
      "--network",
      "tron",
      "--destination",
      "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
      "--json",
    );
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      object: "sweep_plan",
      network: "tron",
      fee_coin: "TRX",
      addresses: [],
      payments_read: 0,
      limit: 100,
      has_more: false,
      totals: { coins: [], value_usd: "0", fee_share_percent: null },
    });
  }, 120_000); // the first command migrates the new data folder

  it("refuses a destination of another network, a UTXO network and a missing destination, naming the parameter, with exit code 1", async () => {
    const cases: [string[], string][] = [
      [
        ["--network", "ethereum", "--destination", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
        "destination: destination is not an address of Ethereum Sepolia testnet",
      ],
      [
        ["--network", "bitcoin", "--destination", DESTINATION],
        "network: network must be one of ethereum, bsc, base, polygon, arbitrum, tron (got 'bitcoin')",
      ],
      [
        ["--network", "bsc"],
        "destination: destination is required: the merchant has no forwarder setting on bsc whose address the funds could go to",
      ],
    ];
    for (const [args, message] of cases) {
      const refused = await paygate("settlement", "sweep-plan", "--merchant", merchantId, ...args);
      expect(refused.code, args.join(" ")).toBe(1);
      expect(refused.stderr, args.join(" ")).toContain(message);
    }
  });

  const badArgs: BadArgs[] = [
    [
      "a plan without --network",
      ["settlement", "sweep-plan", "--merchant", "1"],
      /--network is required \(ethereum, bsc, base, polygon, arbitrum or tron\)\./,
    ],
  ];
  itRefusesBadArgs(paygate, badArgs);
});
