// `paygate settlement sweep-record` and `paygate settlement sweeps` (issue 40; docs/settlement.md,
// Recording sweeps) without a chain node: an empty list, the refusals the arguments and the body decide,
// and the node that cannot be asked. Sweeps read from a node and recorded are test/e2e/sweep-record-anvil.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { itRefusesBadArgs, useCli, type BadArgs } from "./support/cli.ts";

const paygate = useCli({ inProcess: true, env: { PAYGATE_ETH_TEST_RPC_URL: "none", PAYGATE_TRON_TEST_RPC_URL: "none" } });
const HASH = `0x${"ab".repeat(32)}`;
const dir = mkdtempSync(path.join(tmpdir(), "paygate-sweep-record-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("paygate settlement sweep-record and sweeps", () => {
  let merchantId: string;

  it("lists no sweeps of a new merchant, as text and JSON", async () => {
    const created = await paygate("merchant", "create", "--name", "Swept Goods", "--json");
    expect(created.code).toBe(0);
    merchantId = String(JSON.parse(created.stdout).id);
    const text = await paygate("settlement", "sweeps", "--merchant", merchantId);
    expect([text.code, text.stdout.trim()]).toEqual([0, `Merchant ${merchantId} has no recorded test-mode sweeps.`]);
    const json = await paygate("settlement", "sweeps", "--merchant", merchantId, "--network", "bsc", "--json");
    expect([json.code, JSON.parse(json.stdout)]).toEqual([0, { sweeps: [] }]);
  }, 120_000); // the first command migrates the new data folder

  it("refuses what the core refuses, naming the field, and a node that cannot be asked, with exit code 1", async () => {
    const report = path.join(dir, "report.json");
    writeFileSync(report, JSON.stringify({ network: "ethereum", sweeps: [{ tx_hash: "0x12", top_up_tx_hash: null }] }));
    const cases: [string[], string][] = [
      [["--network", "litecoin", "--tx-hash", HASH], "network: network must be one of ethereum, bsc, base, polygon, arbitrum, tron (got 'litecoin')"],
      [
        ["--network", "tron", "--tx-hash", HASH],
        "The TRON Nile testnet node's HTTP API (PAYGATE_TRON_TEST_HTTP_URL) cannot be asked about the sweep's transactions (none is configured); nothing was recorded",
      ],
      [["--network", "ethereum", "--file", report], "sweeps.0.tx_hash: sweeps.0.tx_hash must be a transaction hash: 64 hexadecimal digits"],
      [["--network", "ethereum", "--tx-hash", HASH, "--top-up", HASH], `top_up_tx_hash: ${HASH} cannot be its own top-up`],
      [
        ["--network", "ethereum", "--tx-hash", HASH],
        "The Ethereum Sepolia testnet node (PAYGATE_ETH_TEST_RPC_URL) cannot be asked about the sweep's transactions (no node is configured); nothing was recorded",
      ],
    ];
    for (const [args, message] of cases) {
      const refused = await paygate("settlement", "sweep-record", "--merchant", merchantId, ...args);
      expect(refused.code, args.join(" ")).toBe(1);
      expect(refused.stderr, args.join(" ")).toContain(message);
    }
  });

  const other = path.join(dir, "bsc.json");
  writeFileSync(other, JSON.stringify({ network: "bsc", sweeps: [] }));
  const badArgs: BadArgs[] = [
    [
      "a record without --network",
      ["settlement", "sweep-record", "--merchant", "1", "--tx-hash", HASH],
      /--network is required: the network the sweeps were sent on \(an EVM network or tron\)\./,
    ],
    [
      "a record with neither --tx-hash nor --file",
      ["settlement", "sweep-record", "--merchant", "1", "--network", "ethereum"],
      /give either --tx-hash HASH or --file REPORT\.json\./,
    ],
    [
      "a report of another network",
      ["settlement", "sweep-record", "--merchant", "1", "--network", "ethereum", "--file", other],
      /reports sweeps on bsc, not ethereum\./,
    ],
    [
      "an unreadable report",
      ["settlement", "sweep-record", "--merchant", "1", "--network", "ethereum", "--file", path.join(dir, "missing.json")],
      /is not a readable JSON file/,
    ],
  ];
  itRefusesBadArgs(paygate, badArgs);
});
