// USDT on BNB Smart Chain end to end (issue 25): a customer initiates with network "bsc", pays the
// 18-decimal BEP-20 token on a real node (anvil on BSC testnet's chain id, the token placed by
// anvil_setCode at the networks table's contract), and the payment watcher (the service's, over the
// BSC JSON-RPC) finds it, records the amount exact to its last unit and completes the transaction.
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { USDT_BSC_TESTNET_CONTRACT } from "../../src/core/networks.ts";
import { PaymentWatcher } from "../../src/jobs/payment-watcher.ts";
import { ChainWatchers } from "../../src/rails/chains/index.ts";
import { HdWalletRails } from "../../src/rails/wallets/index.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const UNIT = 10n ** 18n;
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken18", { deployedBytecode: string }>;
};

let t: TestGateway;
let anvil: Anvil;
let watcher: PaymentWatcher;
let keys: Awaited<ReturnType<TestGateway["merchant"]>>;
const required: { network: string | undefined }[] = [];

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 97 });
  await anvil.setCode(USDT_BSC_TESTNET_CONTRACT, compiled.contracts.TestToken18.deployedBytecode);
  await anvil.sendTransaction({ to: USDT_BSC_TESTNET_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10_000n * UNIT) });
  t = await startTestGateway();
  keys = await t.merchant({ name: "BSC Shop" });
  const key = new HdWalletRails().createTestWallet(USDT, "bsc");
  await t.gateway.operator.updateMerchant(keys.id, { wallets: [{ currency: USDT, network: "bsc", isLive: false, extendedPublicKey: key }] });
  const chains = new ChainWatchers({
    timeoutMs: 5000,
    esplora: { BTC: {}, LTC: {} },
    evm: { ethereum: {}, bsc: { test: anvil.url } },
    evmTuning: { headMaxAgeMs: 0 },
  });
  watcher = new PaymentWatcher(t.gateway.payments, chains, {
    intervalMs: 20,
    concurrency: 1,
    lateGraceMs: 3_600_000,
    requiredConfirmations: (_coin, network) => {
      required.push({ network });
      return 2;
    },
  });
});
afterAll(async () => {
  await watcher.stop();
  await t.close();
  await anvil.stop();
});

function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe("USDT on BNB Smart Chain, initiated and paid", () => {
  it("is detected through the BSC node, exact to the last of 18 decimals, and completes once confirmed", async () => {
    const init = await t.post(
      "/v1/transaction",
      { customer: { email: "ada@example.com" }, currency: "USD", amount: "25" },
      bearer(keys.testPublicKey),
    );
    const pay = await t.post(`/v1/transaction/${init.body.data.id}/pay`, { currency_id: "3", network: "bsc" }, bearer(keys.testSecretKey));
    expect(pay.status).toBe(200);
    const id = pay.body.data.id as string;
    const address = pay.body.data.payment_address as string;
    const due = new Decimal(String(pay.body.data.payment_amount));
    // One base unit (10^-18 USDT) more than asked: the record must show it.
    const sent = BigInt(due.times(new Decimal(10).pow(18)).toFixed(0)) + 1n;
    await anvil.sendTransaction({ to: USDT_BSC_TESTNET_CONTRACT, data: abiCall("transfer(address,uint256)", address, sent) });

    await watcher.tick();
    let row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("PENDING");
    expect(row.amountUnconfirmed?.toFixed(18)).toBe(due.plus("0.000000000000000001").toFixed(18));
    expect(required.at(-1)).toEqual({ network: "bsc" });

    await anvil.mine();
    await watcher.tick();
    row = await t.db.transaction.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe("SUCCESSFUL");
    expect(row.amountPaid?.toFixed(18)).toBe(due.plus("0.000000000000000001").toFixed(18));
    const events = await t.db.webhookEvent.findMany({ where: { transactionId: id }, orderBy: { seq: "asc" } });
    const last = JSON.parse(events.at(-1)?.body ?? "{}").data.transaction;
    expect(last).toMatchObject({ status: "SUCCESSFUL", payment_network: "bsc", payment_network_name: "BNB Smart Chain testnet" });
  });
});
