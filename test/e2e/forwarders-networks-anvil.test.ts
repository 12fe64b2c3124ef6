// Deposit forwarders on the EVM networks added after Ethereum and BSC (issue 40, goal 1: "every EVM
// row to come"): Base, Polygon (whose fee coin, POL, is no coin paygate takes) and Arbitrum, one anvil
// each with the network's own test chain id. Per network the operator sets the factory and fee payer
// variables named after the row (PAYGATE_BASE_TEST_FORWARDER_FACTORY, …), the merchant chooses
// forwarders, a USDC payment goes to its forwarder's CREATE2 address before the forwarder exists, and
// one flush paid by the fee payer moves it to the settlement address: the chain's balances, the
// recorded flush, the ledger's fee coin and the fee payer's gauge read back. Both databases.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAINS, coinNetwork, EVM_CHAINS, type EvmNetworkSlug } from "../../src/core/networks.ts";
import { evmVariables } from "../../src/rails/chains/config.ts";
import { ForwarderFlusher } from "../../src/jobs/forwarder-flusher.ts";
import { PaygateMetrics } from "../../src/observability/metrics.ts";
import { FORWARDER_VARIABLES } from "../../src/rails/evm/config.ts";
import { forwarderAddress, paymentSalt } from "../../src/rails/evm/forwarders.ts";
import { addressOfPrivateKey } from "../../src/rails/evm/signing.ts";
import { toChecksumAddress } from "../../src/rails/wallets/addresses.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { initializeBody } from "../support/builders.ts";
import { balanceOf, codeAt, coinBalance, deployFactory } from "../support/forwarders.ts";
import { abiCall, decimalOf, dueUnits } from "./evm.ts";
import { startE2eService, type E2eService, type Transaction } from "./service.ts";

const NETWORKS = ["base", "polygon", "arbitrum"] as const satisfies readonly EvmNetworkSlug[];
const REQUIRED = 2;
const FINALITY = 3;
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

interface Scene {
  anvil: Anvil;
  factory: string;
  feePayer: string;
  usdc: string;
  destination: string;
}
const scenes = new Map<EvmNetworkSlug, Scene>();
let service: E2eService;

const sceneOf = (network: EvmNetworkSlug) => scenes.get(network) as Scene;

beforeAll(async () => {
  const env: Record<string, string> = {
    // The job reads fee payers and sending flushes often, and flushes by itself only when a test asks.
    PAYGATE_FLUSH_INTERVAL_MS: "200",
    PAYGATE_FLUSH_MIN_PAYMENTS: "100",
    PAYGATE_FLUSH_MAX_AGE_HOURS: "1000",
  };
  await Promise.all(
    NETWORKS.map(async (network) => {
      const anvil = await startAnvil({ chainId: EVM_CHAINS[network].test.chainId as number });
      const usdc = coinNetwork("USDC", network)?.contract?.test as string;
      await anvil.setCode(usdc, compiled.contracts.TestToken6.deployedBytecode);
      await anvil.sendTransaction({ to: usdc, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
      const factory = await deployFactory(anvil);
      const key = randomBytes(32);
      const feePayer = addressOfPrivateKey(key);
      await anvil.sendTransaction({ to: feePayer, value: 10n ** 18n });
      scenes.set(network, { anvil, factory, feePayer, usdc, destination: toChecksumAddress(`0x${randomBytes(20).toString("hex")}`) });
      const variables = evmVariables(network);
      env[variables.rpc.test] = anvil.url;
      env[variables.confirmations] = String(REQUIRED);
      env[variables.finality] = String(FINALITY);
      env[FORWARDER_VARIABLES[network].factory.test] = factory;
      env[FORWARDER_VARIABLES[network].feePayer.test] = key.toString("hex");
    }),
  );
  service = await startE2eService(env, []);
}, 60_000);
afterAll(async () => {
  await service?.close();
  await Promise.all([...scenes.values()].map((s) => s.anvil.stop()));
});

async function call(method: string, route: string, body?: unknown, key = service.merchant.testSecretKey): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function usdcPayment(network: EvmNetworkSlug, usd: string): Promise<Transaction> {
  const made = await call("POST", "/v1/transaction", initializeBody({ amount: usd }), service.merchant.testPublicKey);
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const paid = await service.pay(made.body.data.id, { currency_id: "8", network });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return paid.body.data as Transaction;
}

/** Mines past the finality depth and waits until the watcher has marked the payment final. */
async function untilFinal(network: EvmNetworkSlug, id: string): Promise<void> {
  await sceneOf(network).anvil.mine(FINALITY + 1);
  const db = service.runtime.database.db;
  await expect
    .poll(async () => (await db.transaction.findUnique({ where: { id }, select: { finalAt: true } }))?.finalAt ?? null, { timeout: 20_000 })
    .not.toBeNull();
}

describe.each(NETWORKS)("deposit forwarders on %s (anvil with its test chain id)", (network) => {
  it("hands out a forwarder that USDC pays before it exists; one flush of the fee payer moves it to the settlement address, recorded", async () => {
    const { anvil, factory, feePayer, usdc, destination } = sceneOf(network);
    const set = await call("PUT", `/v1/settlements/forwarders/${network}`, { destination: destination.toLowerCase() });
    expect([set.status, set.body.data], JSON.stringify(set.body)).toEqual([
      200,
      { object: "forwarder_setting", network, is_live: false, mode: "forwarder", destination, factory, updated_at: expect.any(String) },
    ]);

    const t = await usdcPayment(network, "12.5");
    expect(t.payment_address).toBe(forwarderAddress(factory, { destination, salt: paymentSalt(t.id) }));
    expect(await codeAt(anvil, t.payment_address)).toBe("0x");
    const due = dueUnits(t);
    expect(due).toBe(12_500_000n);
    await anvil.sendTransaction({ to: usdc, data: abiCall("transfer(address,uint256)", t.payment_address, due) });
    await anvil.mine(REQUIRED);
    await service.until(t.id, (r) => r.status === "SUCCESSFUL", "SUCCESSFUL");
    await untilFinal(network, t.id);

    const payerBefore = await coinBalance(anvil, feePayer);
    const flushed = await call("POST", "/v1/settlements/flushes", { network });
    expect(flushed.status, JSON.stringify(flushed.body)).toBe(201);
    const flush = flushed.body.data;
    expect(flush).toMatchObject({
      object: "flush",
      is_live: false,
      network,
      state: "confirmed",
      fee_payer: feePayer,
      payments: [{ transaction_id: t.id, forwarder: t.payment_address, moved: [{ coin: "USDC", amount: "12.5" }] }],
    });
    // The chain: the settlement address holds the money; the forwarder exists and is empty.
    expect(await balanceOf(anvil, usdc, destination)).toBe(due);
    expect(await balanceOf(anvil, usdc, t.payment_address)).toBe(0n);
    expect(await codeAt(anvil, t.payment_address)).not.toBe("0x");
    // The fee payer paid exactly the recorded fee, in the network's coin.
    const receipt = (await anvil.send("eth_getTransactionReceipt", [flush.tx_hash])) as { gasUsed: string; effectiveGasPrice: string };
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    expect(payerBefore - (await coinBalance(anvil, feePayer))).toBe(fee);
    expect(flush.fee).toBe(decimalOf(fee, 18));

    // The ledger books the move with the network's fee coin (POL on Polygon, ETH on Base and Arbitrum).
    const ledger = await call("GET", `/v1/ledger/entries?kind=flush&network=${network}`);
    expect(ledger.status, JSON.stringify(ledger.body)).toBe(200);
    expect(
      (ledger.body.data as Record<string, unknown>[]).map((e) => [e.network, e.coin, e.amount, e.fee_coin, e.tx_hash, e.transaction_id]),
    ).toEqual([[network, "USDC", "12.5", CHAINS[network].feeCoin, flush.tx_hash, t.id]]);

    // The flush job reads the fee payer: its balance in /metrics, by network and mode.
    const metrics = new PaygateMetrics({ defaultMetrics: false });
    const said: string[] = [];
    await new ForwarderFlusher(
      service.runtime.gateway.settlement,
      { minPayments: 100, maxAgeMs: 3_600_000 },
      1000,
      (line) => void said.push(line),
      metrics,
    ).tick();
    const balance = decimalOf(await coinBalance(anvil, feePayer), 18);
    const text = await metrics.registry.metrics();
    expect(text).toContain(`paygate_fee_payer_balance{network="${network}",mode="test"} ${Number(balance)}`);
    expect(text).toContain(`paygate_fee_payer_low{network="${network}",mode="test"} 0`);
    expect(said).toEqual([]);
  });

  it("refuses a flush with nothing to flush, naming the network", async () => {
    const again = await call("POST", "/v1/settlements/flushes", { network });
    expect([again.status, again.body.reason, again.body.message]).toEqual([
      422,
      "nothing_to_flush",
      `Nothing to flush: no successful ${EVM_CHAINS[network].test.name} test mode payment past its finality depth has a forwarder that is not flushed yet`,
    ]);
  });
});
