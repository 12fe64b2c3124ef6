// End to end for the stablecoin networks of issue 43: one anvil per network, each with that network's
// own test chain id (Base Sepolia 84532, Polygon Amoy 80002, Arbitrum Sepolia 421614), the 6-decimal
// test token's code at the table's test USDC and USDT contracts. The service runs as src/main.ts
// wires it, its node variables named after the table's rows (PAYGATE_BASE_TEST_RPC_URL, …), and the
// merchant is a new one with only its built-in test wallets (no key given). Per network, USDC is paid
// over REST (one unit short first: exact to the last unit) and USDT over GraphQL (USDC again on Base,
// where Tether has no deployment), by real transfers.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EvmNetworkSlug, EVM_CHAINS, coinNetwork } from "../../src/core/networks.ts";
import { evmVariables } from "../../src/rails/chains/config.ts";
import { initializeBody } from "../support/builders.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { abiCall, decimalOf, dueUnits } from "./evm.ts";
import { eventArrives, progress, startE2eService, type E2eService, type Transaction } from "./service.ts";

const NETWORKS = ["base", "polygon", "arbitrum"] as const satisfies readonly EvmNetworkSlug[];
const REQUIRED = 2;
const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6", { deployedBytecode: string }>;
};

const anvils = new Map<EvmNetworkSlug, Anvil>();
let service: E2eService;

/** The stablecoins the table pays on a network (Tether has no Base deployment: USDC only there). */
const tokensOn = (network: EvmNetworkSlug) => (["USDC", "USDT"] as const).filter((coin) => coinNetwork(coin, network) !== undefined);
/** The coin the GraphQL case pays: USDT where the table has it, else USDC again. */
const graphqlCoin = (network: EvmNetworkSlug) => (coinNetwork("USDT", network) ? "USDT" : "USDC");

/** The table's test contract of a coin on a network. */
function testContract(coin: "USDC" | "USDT", network: EvmNetworkSlug): string {
  const contract = coinNetwork(coin, network)?.contract?.test;
  if (!contract) throw new Error(`${coin} is not a token on ${network}`);
  return contract;
}

beforeAll(async () => {
  const env: Record<string, string> = { PAYGATE_UNDERPAYMENT_TOLERANCE_PERCENT: "0" };
  await Promise.all(
    NETWORKS.map(async (network) => {
      const chainId = EVM_CHAINS[network].test.chainId as number;
      const anvil = await startAnvil({ chainId });
      anvils.set(network, anvil);
      for (const coin of tokensOn(network)) {
        await anvil.setCode(testContract(coin, network), compiled.contracts.TestToken6.deployedBytecode);
        await anvil.sendTransaction({ to: testContract(coin, network), data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
      }
      const variables = evmVariables(network);
      // The network's own test chain id: no PAYGATE_<NET>_TEST_CHAIN_ID needed, the node is checked against the row's.
      env[variables.rpc.test] = anvil.url;
      env[variables.confirmations] = String(REQUIRED);
    }),
  );
  // No wallets given: the new merchant pays with the test wallets it was made with.
  service = await startE2eService(env, []);
}, 60_000);
afterAll(async () => {
  await service?.close();
  await Promise.all([...anvils.values()].map((anvil) => anvil.stop()));
});

const anvilOf = (network: EvmNetworkSlug) => anvils.get(network) as Anvil;
const transfer = (coin: "USDC" | "USDT", network: EvmNetworkSlug, to: string, units: bigint) =>
  anvilOf(network).sendTransaction({ to: testContract(coin, network), data: abiCall("transfer(address,uint256)", to, units) });

async function created(usd: string): Promise<string> {
  const res = await fetch(`${service.url}/v1/transaction`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.merchant.testPublicKey}`, "content-type": "application/json" },
    body: JSON.stringify(initializeBody({ amount: usd })),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

async function graphql<T>(query: string, variables: Record<string, unknown>): Promise<{ data: T | null; errors?: { message: string }[] }> {
  const res = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.merchant.testSecretKey}`, "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data: T | null; errors?: { message: string }[] };
}

describe.each(NETWORKS)("stablecoins on %s (anvil with its test chain id)", (network) => {
  const chainId = EVM_CHAINS[network].test.chainId as number;

  it("USDC over REST: a transfer URI of the table's contract on the chain; one unit short stays underpaid, the last unit makes it SUCCESSFUL", async () => {
    const id = await created("12.34");
    const paid = await service.pay(id, { currency_id: "8", network });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    const t0 = paid.body.data as Transaction & { payment_network: string };
    expect(t0.payment_network).toBe(network);
    const contract = testContract("USDC", network);
    expect(t0.payment_uri).toMatch(new RegExp(`^ethereum:${contract}@${chainId}/transfer\\?address=${t0.payment_address}&uint256=\\d+$`));
    const due = dueUnits(t0);
    // USD 12.34 at the test rate of 1: exactly 12.34 USDC, 6 decimals.
    expect(due).toBe(12_340_000n);
    const short = await transfer("USDC", network, t0.payment_address, due - 1n);
    await anvilOf(network).mine(REQUIRED);
    let t = await service.until(id, (t) => t.receipts[0]?.state === "CONFIRMED", "the short payment confirmed");
    expect(progress(t)).toMatchObject({ status: "PENDING", state: "underpaid", receipts: [[short, "12.339999", REQUIRED + 1, "CONFIRMED"]] });
    const last = await transfer("USDC", network, t0.payment_address, 1n);
    await anvilOf(network).mine(REQUIRED);
    t = await service.until(id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    expect(t.receipts.map((r) => [r.tx_hash, r.amount, r.state])).toEqual([
      [short, "12.339999", "CONFIRMED"],
      [last, "0.000001", "CONFIRMED"],
    ]);
    expect(t.meta.payment).toMatchObject({ state: "paid", amount_confirmed: decimalOf(due, 6) });
    await eventArrives(service, t.reference, "payment.received");
  });

  it(`${graphqlCoin(network)} over GraphQL: initiatePayment on the network, paid by a transfer, SUCCESSFUL with the exact amount`, async () => {
    const coin = graphqlCoin(network);
    const id = await created("7.5");
    const initiated = await graphql<{
      initiatePayment: { paymentAddress: string; paymentUri: string; paymentNetwork: { slug: string; chainId: number; tokenContract: string } };
    }>(
      `mutation($id: ID!, $currency: ID!, $network: String) { initiatePayment(transactionId: $id, input: { currencyId: $currency, network: $network }) {
        paymentAddress paymentUri paymentNetwork { slug chainId tokenContract } } }`,
      { id, currency: coin === "USDT" ? "3" : "8", network },
    );
    expect(initiated.errors).toBeUndefined();
    const payment = initiated.data?.initiatePayment;
    expect(payment?.paymentNetwork).toEqual({ slug: network, chainId, tokenContract: testContract(coin, network) });
    const due = BigInt(/uint256=(\d+)/.exec(payment?.paymentUri ?? "")?.[1] ?? "0");
    expect(due).toBe(7_500_000n);
    const tx = await transfer(coin, network, payment?.paymentAddress ?? "", due);
    await anvilOf(network).mine(REQUIRED);
    await service.until(id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    const read = await graphql<{ transaction: { status: string; amountPaid: string; receipts: { transactionHash: string; amount: string }[] } }>(
      `query($id: ID!) { transaction(id: $id) { status amountPaid receipts { transactionHash amount } } }`,
      { id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data?.transaction).toEqual({ status: "SUCCESSFUL", amountPaid: "7.5", receipts: [{ transactionHash: tx, amount: "7.5" }] });
  });
});

describe("refusals", () => {
  it("refuses USDC on a network that does not carry it, naming the ones that do, and the transaction stays INITIATED", async () => {
    const id = await created("5");
    const res = await service.pay(id, { currency_id: "8", network: "tron" });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("network must be one of ethereum, base, polygon, arbitrum, bsc for USDC (got 'tron')");
    expect((await service.get(id)).status).toBe("INITIATED");
  });

  it("pays USDC without a network on its default, ethereum, with the table's Sepolia contract", async () => {
    const id = await created("5");
    const res = await service.pay(id, { currency_id: "8" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const t = res.body.data as Transaction & { payment_network: string };
    expect(t.payment_network).toBe("ethereum");
    expect(t.payment_uri).toBe(`ethereum:${testContract("USDC", "ethereum")}@11155111/transfer?address=${t.payment_address}&uint256=5000000`);
  });
});
