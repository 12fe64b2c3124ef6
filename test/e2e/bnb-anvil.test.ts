// End to end on a real EVM node for BNB: a second anvil on a chain id of its own as the test-mode BNB
// Smart Chain node (PAYGATE_BSC_TEST_RPC_URL, PAYGATE_BSC_TEST_CHAIN_ID), the service in test mode with
// a merchant's own test account key; a dev account pays with signed transactions. One node for the file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type Anvil } from "../support/anvil.ts";
import { nativeCoinCases } from "./evm.ts";
import { literal, startE2eService, type E2eService } from "./service.ts";

const CHAIN_ID = 31_338;
const REQUIRED = 3;

let anvil: Anvil;
let service: E2eService;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  service = await startE2eService(
    { PAYGATE_BSC_TEST_RPC_URL: anvil.url, PAYGATE_BSC_TEST_CHAIN_ID: String(CHAIN_ID), PAYGATE_CONFIRMATIONS_BNB: String(REQUIRED) },
    ["BNB"],
  );
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

describe("BNB through the service on anvil", () => {
  nativeCoinCases("BNB", REQUIRED, () => ({ anvil, service }));
});

describe("the BNB Smart Chain test node's chain", () => {
  it("is refused at start, with no payment yet, when test mode expects BSC testnet (no PAYGATE_BSC_TEST_CHAIN_ID), in one message naming the variables", async () => {
    const wrong = await startE2eService({ PAYGATE_BSC_TEST_RPC_URL: anvil.url }, ["BNB"]);
    try {
      const said = [
        expect.stringMatching(
          `^payment watcher: BNB test, USDT on bsc test, USDC on bsc test: .+ JSON-RPC \\(${literal(new URL(anvil.url).host)}\\): the node is on chain id ${CHAIN_ID}, not 97 \\(.+\\): set PAYGATE_BSC_TEST_RPC_URL to a node of .+ \\(or PAYGATE_BSC_TEST_CHAIN_ID=${CHAIN_ID} for a local development chain\\)`,
        ),
      ];
      expect(await wrong.logged(/JSON-RPC/)).toEqual(said);
      // A payment's passes fail alike: said once, not again within the minute.
      const t0 = await wrong.initiate("BNB", "10");
      expect(t0.payment_uri).toContain("@97?");
      expect(await wrong.loggedOnce(/JSON-RPC/)).toEqual(said);
      expect((await wrong.get(t0.id)).receipts).toEqual([]);
    } finally {
      await wrong.close();
    }
  });
});
