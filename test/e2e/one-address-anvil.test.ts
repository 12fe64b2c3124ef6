// Issue 42 on a real EVM node: one address never receives for two obligations. With one key for ETH
// and USDT, ETH order #0 and USDT order #0 shared an address, and the ETH a merchant sends to a USDT
// order's address to pay a refund's gas was counted as the ETH order's payment. The service now
// refuses that key, and with an account per coin the top-up is no ETH order's money. The same for BNB
// and USDT on BNB Smart Chain (a second anvil on BSC testnet's chain id), whose gas is BNB.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { HDKey } from "@scure/bip32";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { CHAINS, USDT_BSC_TESTNET_CONTRACT } from "../../src/core/networks.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { abiCall, dueUnits } from "./evm.ts";
import { initializeBody } from "../support/builders.ts";
import { startE2eService, type E2eService, type Transaction } from "./service.ts";

const CHAIN_ID = 31_337;
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6" | "TestToken18", { deployedBytecode: string }>;
};
const seed = randomBytes(32);
const account = (n: number) => serializeKey(HDKey.fromMasterSeed(seed).derive(`m/44'/60'/${n}'`), "tpub");
const wallet = (slug: string, key: string, network?: "bsc") => ({
  currency: cryptoBySlug(slug) as CryptoCurrency,
  isLive: false,
  extendedPublicKey: key,
  ...(network ? { network } : {}),
});

let anvil: Anvil;
let bsc: Anvil;
let service: E2eService;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  bsc = await startAnvil({ chainId: CHAINS.bsc.test.chainId ?? 0 });
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  await bsc.setCode(USDT_BSC_TESTNET_CONTRACT, compiled.contracts.TestToken18.deployedBytecode);
  await bsc.sendTransaction({ to: USDT_BSC_TESTNET_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 24n) });
  service = await startE2eService(
    {
      PAYGATE_ETH_TEST_RPC_URL: anvil.url,
      PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID),
      PAYGATE_CONFIRMATIONS_ETH: "1",
      PAYGATE_BSC_TEST_RPC_URL: bsc.url,
      PAYGATE_CONFIRMATIONS_BNB: "1",
    },
    ["ETH", "USDT"],
  );
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
  await bsc?.stop();
});

describe("ETH and USDT of one merchant on one node", () => {
  it("refuses one key for both, and with an account each, ETH sent to a USDT order's address is no ETH order's payment", async () => {
    const gateway = service.runtime.gateway;
    await expect(
      gateway.operator.updateMerchant(service.merchant.id, { wallets: [wallet("ETH", account(0)), wallet("USDT", account(0))] }),
    ).rejects.toThrow(/^ETH wallet on ethereum \(test mode\): this key is already the USDT wallet on ethereum \(test mode\)/);
    // Fresh accounts: both orders below are #0 of their wallets.
    await gateway.operator.updateMerchant(service.merchant.id, { wallets: [wallet("ETH", account(0)), wallet("USDT", account(1))] });
    const eth = await service.initiate("ETH", "10");
    const usdt = await service.initiate("USDT", "10");
    await gasIsNoPayment(anvil, USDT_SEPOLIA_CONTRACT, eth, usdt);
  });
});

/**
 * Two orders #0 of one merchant, in the chain's coin and in USDT, at addresses apart: the merchant funds
 * the USDT address's gas (as docs/refunds.md says before a USDT refund) and the customer pays USDT in the
 * same blocks; the coin sent for gas is no payment of the order in that coin.
 */
async function gasIsNoPayment(node: Anvil, contract: string, coinOrder: Transaction, usdt: Transaction): Promise<void> {
  expect(usdt.payment_address.toLowerCase()).not.toBe(coinOrder.payment_address.toLowerCase());
  const gas = await node.sendTransaction({ to: usdt.payment_address, value: 10n ** 15n });
  await node.sendTransaction({ to: contract, data: abiCall("transfer(address,uint256)", usdt.payment_address, dueUnits(usdt)) });
  await node.mine(2);
  await service.until(usdt.id, (t) => t.status === "SUCCESSFUL", "the USDT order paid (its blocks read)");
  const after = await service.until(coinOrder.id, () => true, "the order in the chain's coin");
  expect(after).toMatchObject({ status: "PENDING", amount_paid: null });
  expect(after.receipts.map((r) => r.tx_hash)).not.toContain(gas);
}

/** A transaction initialized and initiated in USDT on bsc (the service's initiate takes the coin's default network). */
async function initiateOnBsc(usd: string): Promise<Transaction> {
  const response = await fetch(`${service.url}/v1/transaction`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.merchant.testPublicKey}`, "content-type": "application/json" },
    body: JSON.stringify(initializeBody({ amount: usd })),
  });
  expect(response.status).toBe(201);
  const { id } = ((await response.json()) as { data: Transaction }).data;
  const paid = await service.pay(id, { currency_id: String(cryptoBySlug("USDT")?.id), network: "bsc" });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return paid.body.data as Transaction;
}

describe("BNB and USDT on bsc of one merchant on one node", () => {
  it("refuses one key for both, and with an account each, BNB sent to a USDT order's address for its gas is no BNB order's payment", async () => {
    const gateway = service.runtime.gateway;
    await expect(
      gateway.operator.updateMerchant(service.merchant.id, { wallets: [wallet("BNB", account(2)), wallet("USDT", account(2), "bsc")] }),
    ).rejects.toThrow(/^BNB wallet on bsc \(test mode\): this key is already the USDT wallet on bsc \(test mode\)/);
    // Accounts no wallet of this merchant had: both orders below are #0 of their wallets.
    await gateway.operator.updateMerchant(service.merchant.id, { wallets: [wallet("BNB", account(2)), wallet("USDT", account(3), "bsc")] });
    const bnb = await service.initiate("BNB", "10");
    await gasIsNoPayment(bsc, USDT_BSC_TESTNET_CONTRACT, bnb, await initiateOnBsc("10"));
  });
});
