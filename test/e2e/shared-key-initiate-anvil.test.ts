// Issue 42 on real EVM nodes: wallets that already share a key, set before setting refused it (the
// rows written here as an old version wrote them). Initiate answered 500 on every try for USDT on bsc
// beside USDT on ethereum (the unique index on the address, the same index leased again each time);
// it now answers 409 with a hint naming the wallet to change, and nothing changes. What reaches an
// address that an old version handed out to two orders is counted once, for the order of its coin.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../src/core/money/currencies.ts";
import { CHAINS, USDT_BSC_TESTNET_CONTRACT } from "../../src/core/networks.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { initializeBody } from "../support/builders.ts";
import { abiCall, decimalOf, dueUnits } from "./evm.ts";
import { merchantTestKeys, startE2eService, type E2eService, type Transaction } from "./service.ts";

const compiled = JSON.parse(readFileSync(new URL("../rails/chains/token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6" | "TestToken18", { deployedBytecode: string }>;
};
const USDT = cryptoBySlug("USDT") as CryptoCurrency;
const ETH = cryptoBySlug("ETH") as CryptoCurrency;

let eth: Anvil;
let bsc: Anvil;
let service: E2eService;

beforeAll(async () => {
  eth = await startAnvil({ chainId: CHAINS.ethereum.test.chainId ?? 0 });
  bsc = await startAnvil({ chainId: CHAINS.bsc.test.chainId ?? 0 });
  await eth.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
  await eth.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n ** 15n) });
  await bsc.setCode(USDT_BSC_TESTNET_CONTRACT, compiled.contracts.TestToken18.deployedBytecode);
  service = await startE2eService({ PAYGATE_ETH_TEST_RPC_URL: eth.url, PAYGATE_BSC_TEST_RPC_URL: bsc.url, PAYGATE_CONFIRMATIONS_ETH: "1" }, [
    "ETH",
    "USDT",
  ]);
});
afterAll(async () => {
  await service?.close();
  await eth?.stop();
  await bsc?.stop();
});

const db = () => service.runtime.database.db;

/** The merchant's wallet of a coin and network in test mode, as stored: its processor's (a replaced one stays as a row). */
const walletOf = async (merchantId: number, currency: CryptoCurrency, network: string) =>
  (
    await db().paymentProcessor.findFirstOrThrow({
      where: { merchantId, currencyId: currency.id, network, isLive: false },
      include: { wallet: true },
    })
  ).wallet;

/** A wallet row with its processor, written as a version before the refusal wrote it (no check of the key). */
async function oldWallet(merchantId: number, currency: CryptoCurrency, network: string, extendedPublicKey: string): Promise<void> {
  // A new merchant has a test wallet on every network (issue 43): the old version's row takes its place.
  const where = { merchantId, currencyId: currency.id, network, isLive: false };
  await db().paymentProcessor.deleteMany({ where });
  await db().wallet.deleteMany({ where });
  const wallet = await db().wallet.create({ data: { merchantId, currencyId: currency.id, network, isLive: false, extendedPublicKey } });
  await db().paymentProcessor.create({ data: { merchantId, currencyId: currency.id, network, isLive: false, walletId: wallet.id } });
}

/** A merchant of its own, with REST calls on its test keys. */
async function merchant(name: string) {
  const created = await service.runtime.gateway.operator.createMerchant({ name });
  const call = async (route: string, key: string, body?: unknown) => {
    const res = await fetch(`${service.url}${route}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { status: string; message?: string; reason?: string; hint?: string; data?: Transaction },
    };
  };
  return {
    id: created.id,
    async initialize(): Promise<string> {
      const res = await call("/v1/transaction", created.testPublicKey, initializeBody({ amount: "10" }));
      expect(res.status).toBe(201);
      return (res.body.data as Transaction).id;
    },
    pay: (id: string, body: unknown) => call(`/v1/transaction/${id}/pay`, created.testSecretKey, body),
    /** Polls GET until `done` holds (the watcher reads every 150 ms). */
    async until(id: string, done: (t: Transaction) => boolean, what: string): Promise<Transaction> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const t = (await call(`/v1/transaction/${id}`, created.testSecretKey)).body.data as Transaction;
        if (done(t)) return t;
        if (Date.now() > deadline) throw new Error(`${id} did not reach ${what}: ${JSON.stringify(t.receipts)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}

/** What an initiate refused must leave: the transaction INITIATED with no address, no event past initialize's. */
async function unchanged(id: string): Promise<void> {
  const row = await db().transaction.findUniqueOrThrow({ where: { id }, select: { status: true, paymentAddress: true, walletId: true } });
  expect(row).toEqual({ status: "INITIATED", paymentAddress: null, walletId: null });
  expect(await db().webhookEvent.count({ where: { transactionId: id, type: "payment.pending" } })).toBe(0);
}

/** An initiate answered 409 with this body, the transaction left as it was. */
async function refused(
  answer: Promise<{ status: number; body: object }>,
  id: string,
  expected: { reason: string; message: string; hint: string },
): Promise<void> {
  const res = await answer;
  expect(res.status).toBe(409);
  expect(res.body).toMatchObject({ status: "error", ...expected });
  await unchanged(id);
}

const sharedMessage = (wallet: string, other: string) =>
  `The merchant's ${wallet} has the key of its ${other}: both would hand out the same addresses, so neither hands out one until one of them has an account key of its own; nothing was changed`;
const changeHint = (wallet: string, cli: string) =>
  `Give the ${wallet} an account of its own (m/44'/60'/N' with an N no other EVM wallet of the merchant uses): paygate merchant update ID --mode test --wallet ${cli}=EXTENDED_PUBLIC_KEY, or the dashboard's Wallets page`;

describe("initiate on wallets that share a key (set before issue 42 refused it)", () => {
  it("USDT on bsc on USDT on ethereum's key: 409 naming the bsc wallet, every try, nothing changed; with its own key it hands out", async () => {
    const m = await merchant("Old Keys Bsc Ltd");
    const keys = merchantTestKeys(randomBytes(32));
    await service.runtime.gateway.operator.updateMerchant(m.id, { wallets: [{ currency: USDT, isLive: false, extendedPublicKey: keys.USDT }] });
    const first = await m.pay(await m.initialize(), { currency_id: String(USDT.id) });
    expect(first.status).toBe(200);
    await oldWallet(m.id, USDT, "bsc", keys.USDT);

    const id = await m.initialize();
    for (let attempt = 0; attempt < 3; attempt++) {
      await refused(m.pay(id, { currency_id: String(USDT.id), network: "bsc" }), id, {
        reason: "wallet_key_shared",
        message: sharedMessage("USDT wallet on bsc (test mode)", "USDT wallet on ethereum (test mode)"),
        hint: changeHint("USDT wallet on bsc (test mode)", "USDT@bsc"),
      });
    }
    // The ethereum wallet, set first, is refused alike: its next addresses are the bsc wallet's too.
    const other = await m.initialize();
    await refused(m.pay(other, { currency_id: String(USDT.id) }), other, {
      reason: "wallet_key_shared",
      message: sharedMessage("USDT wallet on ethereum (test mode)", "USDT wallet on bsc (test mode)"),
      hint: changeHint("USDT wallet on bsc (test mode)", "USDT@bsc"),
    });

    // As the hint says: the bsc wallet on an account of its own. Both hand out again, apart.
    await service.runtime.gateway.operator.updateMerchant(m.id, {
      wallets: [{ currency: USDT, network: "bsc", isLive: false, extendedPublicKey: merchantTestKeys(randomBytes(32)).USDT }],
    });
    const onBsc = await m.pay(id, { currency_id: String(USDT.id), network: "bsc" });
    expect(onBsc.status).toBe(200);
    const onEthereum = await m.pay(other, { currency_id: String(USDT.id) });
    expect(onEthereum.status).toBe(200);
    expect(onBsc.body.data?.payment_address).not.toBe(first.body.data?.payment_address);
    expect(onEthereum.body.data?.payment_address).not.toBe(first.body.data?.payment_address);
  });

  it("ETH and USDT on ethereum on one key: both refused with 409, the hint naming the wallet set later (ETH, after the USDT wallet a merchant starts with)", async () => {
    const m = await merchant("Old Keys Eth Ltd");
    const keys = merchantTestKeys(randomBytes(32));
    await service.runtime.gateway.operator.updateMerchant(m.id, { wallets: [{ currency: ETH, isLive: false, extendedPublicKey: keys.ETH }] });
    // The USDT wallet every merchant starts with in test mode, on the ETH wallet's key as an old version let it be.
    await db().wallet.update({ where: { id: (await walletOf(m.id, USDT, "ethereum")).id }, data: { extendedPublicKey: keys.ETH } });
    for (const [currency, wallet, other] of [
      [USDT, "USDT wallet on ethereum (test mode)", "ETH wallet on ethereum (test mode)"],
      [ETH, "ETH wallet on ethereum (test mode)", "USDT wallet on ethereum (test mode)"],
    ] as const) {
      const id = await m.initialize();
      await refused(m.pay(id, { currency_id: String(currency.id) }), id, {
        reason: "wallet_key_shared",
        message: sharedMessage(wallet, other),
        hint: changeHint("ETH wallet on ethereum (test mode)", "ETH"),
      });
    }
  });

  it("another merchant's USDT on bsc on this one's USDT on ethereum key: 409 payment_address_taken, not a 500, nothing changed", async () => {
    const a = await merchant("Key Owner Ltd");
    const b = await merchant("Key Borrower Ltd");
    const key = merchantTestKeys(randomBytes(32)).USDT;
    await service.runtime.gateway.operator.updateMerchant(a.id, { wallets: [{ currency: USDT, isLive: false, extendedPublicKey: key }] });
    await service.runtime.gateway.operator.updateMerchant(b.id, {
      wallets: [{ currency: USDT, network: "bsc", isLive: false, extendedPublicKey: key }],
    });
    expect((await a.pay(await a.initialize(), { currency_id: String(USDT.id) })).status).toBe(200);
    const id = await b.initialize();
    for (let attempt = 0; attempt < 2; attempt++) {
      await refused(b.pay(id, { currency_id: String(USDT.id), network: "bsc" }), id, {
        reason: "payment_address_taken",
        message:
          "The merchant's USDT wallet on bsc (test mode) hands out an address another USDT payment already has: its key is another wallet's too; nothing was changed",
        hint: "Give the USDT wallet on bsc (test mode) an account key no other wallet has: paygate merchant update ID --mode test --wallet USDT@bsc=EXTENDED_PUBLIC_KEY, or the dashboard's Wallets page",
      });
    }
    expect((await walletOf(b.id, USDT, "bsc")).nextIndex).toBe(1);
  });

  it("an address an old version handed out to an ETH order and a USDT order: each coin counted once, for its own order", async () => {
    const m = await merchant("Old Shared Address Ltd");
    const keys = merchantTestKeys(randomBytes(32));
    await service.runtime.gateway.operator.updateMerchant(m.id, {
      wallets: [
        { currency: ETH, isLive: false, extendedPublicKey: keys.ETH },
        { currency: USDT, isLive: false, extendedPublicKey: keys.USDT },
      ],
    });
    const ethOrder = (await m.pay(await m.initialize(), { currency_id: String(ETH.id) })).body.data as Transaction;
    const usdtOrder = (await m.pay(await m.initialize(), { currency_id: String(USDT.id) })).body.data as Transaction;
    // As an old version left them: both wallets on one key, order #0 of each at the same address.
    await db().wallet.update({ where: { id: (await walletOf(m.id, USDT, "ethereum")).id }, data: { extendedPublicKey: keys.ETH } });
    await db().transaction.update({ where: { id: usdtOrder.id }, data: { paymentAddress: ethOrder.payment_address } });
    const shared = ethOrder.payment_address;

    const usdtDue = dueUnits(usdtOrder);
    const ethDue = dueUnits(ethOrder);
    const ethTx = await eth.sendTransaction({ to: shared, value: ethDue });
    const usdtTx = await eth.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", shared, usdtDue) });
    await eth.mine(12);
    const paidInUsdt = await m.until(usdtOrder.id, (t) => t.status === "SUCCESSFUL", "the USDT order paid");
    const paidInEth = await m.until(ethOrder.id, (t) => t.status === "SUCCESSFUL", "the ETH order paid");
    expect(paidInUsdt.receipts.map((r) => [r.tx_hash, r.amount])).toEqual([[usdtTx, decimalOf(usdtDue, 6)]]);
    expect(paidInEth.receipts.map((r) => [r.tx_hash, r.amount])).toEqual([[ethTx, decimalOf(ethDue, 18)]]);
  });
});
