// End to end on a real EVM node for ETH and USDT: anvil as the test-mode Ethereum node
// (PAYGATE_ETH_TEST_RPC_URL, PAYGATE_ETH_TEST_CHAIN_ID=31337), the 6-decimal test token's code at the
// configured test USDT contract, the service in test mode with a merchant's own test account key. A
// dev account pays ETH with a signed transaction and USDT with a real `transfer`; everything is read
// back through the REST API and the webhooks a real receiver gets. One node for the file.
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { decimalOf, dueUnits, nativeCoinCases } from "./evm.ts";
import { eventArrives, literal, progress, startE2eService, type E2eService } from "./service.ts";

const CHAIN_ID = 31_337;
const REQUIRED = 3;
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

let anvil: Anvil;
let service: E2eService;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  service = await startE2eService(
    { PAYGATE_ETH_TEST_RPC_URL: anvil.url, PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID), PAYGATE_CONFIRMATIONS_ETH: String(REQUIRED) },
    ["ETH", "USDT"],
  );
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

/** ABI encoding of a call with address and uint256 arguments. */
function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** The dev account's `transfer(to, units)` of the token: a real ERC-20 transfer, mined. */
const transfer = (to: string, units: bigint) =>
  anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", to, units) });

describe("ETH through the service on anvil", () => {
  nativeCoinCases("ETH", REQUIRED, () => ({ anvil, service }));
});

describe("USDT through the service on anvil", () => {
  it("hands out a transfer URI of the token on the local chain, is paid by a transfer, counts 1 and 2 of 3, then succeeds with its events", async () => {
    const t0 = await service.initiate("USDT", "25");
    expect(t0.payment_uri).toMatch(
      new RegExp(`^ethereum:${USDT_SEPOLIA_CONTRACT}@${CHAIN_ID}/transfer\\?address=${t0.payment_address}&uint256=\\d+$`),
    );
    const due = dueUnits(t0);
    const amount = decimalOf(due, 6);
    const tx = await transfer(t0.payment_address, due);
    let t = await service.until(t0.id, (t) => t.receipts.length === 1, "its transfer seen");
    expect(progress(t)).toEqual({
      status: "PENDING",
      state: "confirming",
      confirmations: 1,
      required: REQUIRED,
      receipts: [[tx, amount, 1, "SEEN"]],
    });
    expect(t.receipts[0]?.key).toMatch(new RegExp(`^${tx}:\\d+$`));
    await anvil.mine(1);
    t = await service.until(t0.id, (t) => t.meta.payment?.confirmations === 2, "2 of 3");
    expect(progress(t).receipts).toEqual([[tx, amount, 2, "SEEN"]]);
    await anvil.mine(1);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(progress(t)).toEqual({
      status: "SUCCESSFUL",
      state: "paid",
      confirmations: null,
      required: REQUIRED,
      receipts: [[tx, amount, 3, "CONFIRMED"]],
    });
    await eventArrives(service, t0.reference, "payment.received");
    expect(service.events(t0.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });

  it("stays underpaid on a part transfer and succeeds once topped up; drops a transfer a reorganisation takes away", async () => {
    const t0 = await service.initiate("USDT", "12");
    const due = dueUnits(t0);
    await transfer(t0.payment_address, due - 1n); // one base unit short
    await anvil.mine(REQUIRED);
    let t = await service.until(t0.id, (t) => t.receipts[0]?.state === "CONFIRMED", "the part transfer confirmed");
    expect(progress(t)).toMatchObject({ status: "PENDING", state: "underpaid" });
    await transfer(t0.payment_address, 1n);
    await anvil.mine(REQUIRED);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(t.meta.payment).toMatchObject({ state: "paid", amount_confirmed: decimalOf(due, 6) });

    const gone = await service.initiate("USDT", "12");
    const tx = await transfer(gone.payment_address, dueUnits(gone));
    t = await service.until(gone.id, (t) => t.receipts.length === 1, "its transfer seen");
    expect(progress(t).receipts).toEqual([[tx, decimalOf(dueUnits(gone), 6), 1, "SEEN"]]);
    await anvil.reorg(1);
    t = await service.until(gone.id, (t) => t.receipts[0]?.state === "DROPPED", "its receipt dropped");
    expect(progress(t)).toMatchObject({ status: "PENDING", state: "awaiting_payment" });
  });
});

describe("the Ethereum test node's chain", () => {
  it("is said at start, in one line, when it is the configured chain id", async () => {
    // The first line about the node is the start-up check's, said once (the payments above may log later lines).
    const answers = `payment watcher: ETH test, USDT test, USDC test: Ethereum Sepolia testnet JSON-RPC (${new URL(anvil.url).host}) answers: chain id ${CHAIN_ID}`;
    const said = await service.logged(/ETH test/);
    expect(said[0]).toBe(answers);
    expect(said.filter((line) => /answers: chain id/.test(line))).toEqual([answers]);
  });

  it("is refused at start, with no payment yet, when it is not the configured chain id, in one message naming the variables", async () => {
    const wrong = await startE2eService({ PAYGATE_ETH_TEST_RPC_URL: anvil.url, PAYGATE_ETH_TEST_CHAIN_ID: "31338" }, ["ETH"]);
    try {
      const said = [
        expect.stringMatching(
          `^payment watcher: ETH test, USDT test, USDC test: .+ JSON-RPC \\(${literal(new URL(anvil.url).host)}\\): ${literal("the node is on chain id 31337, not 31338 (PAYGATE_ETH_TEST_CHAIN_ID): set PAYGATE_ETH_TEST_RPC_URL to a node of chain 31338, or PAYGATE_ETH_TEST_CHAIN_ID to the node's")}`,
        ),
      ];
      expect(await wrong.logged(/JSON-RPC/)).toEqual(said);
      // A payment's passes fail alike: said once, not again within the minute.
      const t0 = await wrong.initiate("ETH", "10");
      expect(t0.payment_uri).toContain("@31338?");
      expect(await wrong.loggedOnce(/JSON-RPC/)).toEqual(said);
      expect((await wrong.get(t0.id)).receipts).toEqual([]);
    } finally {
      await wrong.close();
    }
  });
});
