// Issue 42 on a real EVM node: one address never receives for two obligations. With one key for ETH
// and USDT, ETH order #0 and USDT order #0 shared an address, and the ETH a merchant sends to a USDT
// order's address to pay a refund's gas was counted as the ETH order's payment. The service now
// refuses that key, and with an account per coin the top-up is no ETH order's money.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { HDKey } from "@scure/bip32";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { dueUnits } from "./evm.ts";
import { startE2eService, type E2eService } from "./service.ts";

const CHAIN_ID = 31_337;
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};
const seed = randomBytes(32);
const account = (n: number) => serializeKey(HDKey.fromMasterSeed(seed).derive(`m/44'/60'/${n}'`), "tpub");
const wallet = (slug: string, key: string) => ({ currency: cryptoBySlug(slug) as CryptoCurrency, isLive: false, extendedPublicKey: key });

let anvil: Anvil;
let service: E2eService;

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  service = await startE2eService(
    { PAYGATE_ETH_TEST_RPC_URL: anvil.url, PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID), PAYGATE_CONFIRMATIONS_ETH: "1" },
    ["ETH", "USDT"],
  );
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

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
    expect(usdt.payment_address.toLowerCase()).not.toBe(eth.payment_address.toLowerCase());

    // The merchant funds the USDT address's gas (as docs/refunds.md says before a USDT refund); the customer pays USDT in the same blocks.
    const gas = await anvil.sendTransaction({ to: usdt.payment_address, value: 10n ** 15n });
    await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", usdt.payment_address, dueUnits(usdt)) });
    await anvil.mine(2);
    await service.until(usdt.id, (t) => t.status === "SUCCESSFUL", "the USDT order paid (its blocks read)");
    const after = await service.until(eth.id, () => true, "the ETH order");
    expect(after).toMatchObject({ status: "PENDING", amount_paid: null });
    expect(after.receipts.map((r) => r.tx_hash)).not.toContain(gas);
  });
});
