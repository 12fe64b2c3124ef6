// Deposit forwarders end to end on anvil (issue 40; docs/settlement.md): the merchant chooses
// forwarders for Ethereum's test mode, initiate hands out the forwarders' CREATE2 addresses, a
// USDT-like token whose `transfer` returns nothing and the coin pay them before any forwarder exists,
// the payments succeed and become final, and one flush signed by the operator's fee payer (a fresh
// key holding only ETH) moves both to the merchant's settlement address: the chain's balances, the
// recorded flush and its refusals read back. One node for the file; both databases.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forwarderAddress, paymentSalt } from "../../src/rails/evm/forwarders.ts";
import { ForwarderFlusher } from "../../src/jobs/forwarder-flusher.ts";
import { PaygateMetrics } from "../../src/observability/metrics.ts";
import { ChainWatchers } from "../../src/rails/chains/index.ts";
import { EvmForwarderRails } from "../../src/rails/evm/flusher.ts";
import { addressOfPrivateKey } from "../../src/rails/evm/signing.ts";
import { toChecksumAddress } from "../../src/rails/wallets/addresses.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { abiCall, balanceOf, coinBalance, codeAt, deployFactory, deployTest, mint, TEST_TOKENS } from "../support/forwarders.ts";
import { decimalOf, dueUnits } from "./evm.ts";
import { startE2eService, type E2eService } from "./service.ts";

const CHAIN_ID = 31_337;
const REQUIRED = 2;
const FINALITY = 3;

let anvil: Anvil;
let service: E2eService;
let factory: string;
let feePayer: string;
const destination = toChecksumAddress(`0x${randomBytes(20).toString("hex")}`);

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  await anvil.setCode(USDT_SEPOLIA_CONTRACT, (TEST_TOKENS.contracts.UsdtLike as { deployedBytecode: string }).deployedBytecode);
  await mint(anvil, USDT_SEPOLIA_CONTRACT, DEV_ACCOUNT, 10n ** 15n);
  factory = await deployFactory(anvil);
  const key = randomBytes(32);
  feePayer = addressOfPrivateKey(key);
  await anvil.sendTransaction({ to: feePayer, value: 10n ** 18n });
  service = await startE2eService(
    {
      PAYGATE_ETH_TEST_RPC_URL: anvil.url,
      PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID),
      PAYGATE_CONFIRMATIONS_ETH: String(REQUIRED),
      PAYGATE_FINALITY_ETH: String(FINALITY),
      PAYGATE_ETH_TEST_FORWARDER_FACTORY: factory,
      PAYGATE_ETH_TEST_FEE_PAYER_KEY: key.toString("hex"),
      // The job reads sending flushes back quickly, and flushes by itself only when a test asks.
      PAYGATE_FLUSH_INTERVAL_MS: "200",
      PAYGATE_FLUSH_MIN_PAYMENTS: "100",
      PAYGATE_FLUSH_MAX_AGE_HOURS: "1000",
    },
    ["ETH", "USDT"],
  );
});
afterAll(async () => {
  await service?.close();
  await anvil?.stop();
});

interface Reply {
  status: number;
  body: any;
}

async function call(method: string, route: string, body?: unknown, key = service.merchant.testSecretKey): Promise<Reply> {
  const response = await fetch(`${service.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const transferUsdt = (to: string, units: bigint) =>
  anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", to, units) });

/** Mines past the finality depth and waits until the watcher has marked every payment final. */
async function untilFinal(ids: string[]): Promise<void> {
  await anvil.mine(FINALITY + 1);
  const db = service.runtime.database.db;
  for (let waited = 0; ; waited += 100) {
    const rows = await db.transaction.findMany({ where: { id: { in: ids } }, select: { status: true, finalAt: true } });
    if (rows.length === ids.length && rows.every((r) => r.status === "SUCCESSFUL" && r.finalAt !== null)) return;
    if (waited > 20_000) throw new Error(`not final within 20 s: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("deposit forwarders on anvil", () => {
  it("hands out forwarders, which a USDT-like token and the coin pay before they exist; one flush moves both to the settlement address, recorded", async () => {
    const set = await call("PUT", "/v1/settlements/forwarders/ethereum", { destination: destination.toLowerCase() });
    expect([set.status, set.body.data]).toEqual([
      200,
      { object: "forwarder_setting", network: "ethereum", is_live: false, mode: "forwarder", destination, factory, updated_at: expect.any(String) },
    ]);

    const usdt = await service.initiate("USDT", "25");
    const eth = await service.initiate("ETH", "10");
    for (const t of [usdt, eth]) {
      expect(t.payment_address).toBe(forwarderAddress(factory, { destination, salt: paymentSalt(t.id) }));
      expect(await codeAt(anvil, t.payment_address)).toBe("0x");
    }
    // The spec's shape stays: the URI pays the forwarder's address.
    expect(usdt.payment_uri).toContain(`address=${usdt.payment_address}`);
    const usdtDue = dueUnits(usdt);
    const ethDue = dueUnits(eth);
    await transferUsdt(usdt.payment_address, usdtDue);
    await anvil.sendTransaction({ to: eth.payment_address, value: ethDue });
    await anvil.mine(REQUIRED);
    await service.until(usdt.id, (t) => t.status === "SUCCESSFUL", "USDT SUCCESSFUL");
    await service.until(eth.id, (t) => t.status === "SUCCESSFUL", "ETH SUCCESSFUL");
    await untilFinal([usdt.id, eth.id]);

    const payerBefore = await coinBalance(anvil, feePayer);
    const flushed = await call("POST", "/v1/settlements/flushes", { network: "ethereum" });
    expect(flushed.status, JSON.stringify(flushed.body)).toBe(201);
    const flush = flushed.body.data;
    expect(flush).toMatchObject({ object: "flush", is_live: false, network: "ethereum", state: "confirmed", fee_payer: feePayer });
    expect(flush.id).toMatch(/^fl_/);
    expect(Number(flush.gas_used)).toBeGreaterThan(100_000);
    expect([...flush.payments].sort((a, b) => a.transaction_id.localeCompare(b.transaction_id))).toEqual(
      [
        { transaction_id: usdt.id, forwarder: usdt.payment_address, moved: [{ coin: "USDT", amount: decimalOf(usdtDue, 6) }] },
        { transaction_id: eth.id, forwarder: eth.payment_address, moved: [{ coin: "ETH", amount: decimalOf(ethDue, 18) }] },
      ].sort((a, b) => a.transaction_id.localeCompare(b.transaction_id)),
    );

    // The chain: the merchant's settlement address holds the money, the forwarders exist and are empty.
    expect(await balanceOf(anvil, USDT_SEPOLIA_CONTRACT, destination)).toBe(usdtDue);
    expect(await coinBalance(anvil, destination)).toBe(ethDue);
    expect(await balanceOf(anvil, USDT_SEPOLIA_CONTRACT, usdt.payment_address)).toBe(0n);
    expect(await coinBalance(anvil, eth.payment_address)).toBe(0n);
    expect(await codeAt(anvil, usdt.payment_address)).not.toBe("0x");
    // The fee payer paid exactly the recorded fee.
    const receipt = (await anvil.send("eth_getTransactionReceipt", [flush.tx_hash])) as { gasUsed: string; effectiveGasPrice: string };
    const fee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice);
    expect(payerBefore - (await coinBalance(anvil, feePayer))).toBe(fee);
    expect(flush.fee).toBe(decimalOf(fee, 18));
    expect(flush.gas_used).toBe(BigInt(receipt.gasUsed).toString());

    // Recorded: listed and retrieved as answered.
    const listed = await call("GET", "/v1/settlements/flushes");
    expect([listed.status, listed.body.data, listed.body.has_more]).toEqual([200, [flush], false]);
    expect((await call("GET", `/v1/settlements/flushes/${flush.id}`)).body.data).toEqual(flush);
    const rows = await service.runtime.database.db.forwarderFlush.findMany({ include: { items: true } });
    expect(rows.map((r) => [r.state, r.txHash, r.items.length])).toEqual([["confirmed", flush.tx_hash, 2]]);

    // Told by one signed webhook about the flush (no transaction): the flush as REST shows it, with its payments.
    await expect.poll(() => service.flushEvents(flush.id).length, { timeout: 20_000 }).toBe(1);
    expect(service.flushEvents(flush.id)).toEqual([{ event: "settlement.flush.confirmed", data: { flush } }]);
    const told = await call("GET", "/v1/events?type=settlement.flush.confirmed");
    expect(told.status).toBe(200);
    expect(
      (told.body.data as { type: string; subject: string | null; transaction: string | null; data: unknown }[]).map((e) => [
        e.type,
        e.subject,
        e.transaction,
        e.data,
      ]),
    ).toEqual([["settlement.flush.confirmed", flush.id, null, { event: "settlement.flush.confirmed", data: { flush } }]]);

    // Nothing is flushed twice.
    const again = await call("POST", "/v1/settlements/flushes", { network: "ethereum" });
    expect([again.status, again.body.reason, again.body.message]).toEqual([
      422,
      "nothing_to_flush",
      "Nothing to flush: no successful Ethereum Sepolia testnet test mode payment past its finality depth has a forwarder that is not flushed yet",
    ]);
    expect(service.flushEvents(flush.id).map((p) => p.event)).toEqual(["settlement.flush.confirmed"]);
  });

  it("books the flush in the ledger: one internal entry per payment and coin moved, net unchanged, the fee on the flush", async () => {
    const [flush] = (await call("GET", "/v1/settlements/flushes")).body.data as [
      {
        id: string;
        tx_hash: string;
        payments: { transaction_id: string; forwarder: string; moved: { coin: string; amount: string }[] }[];
      },
    ];
    expect(flush).toBeDefined();
    const listed = await call("GET", "/v1/ledger/entries?kind=flush&limit=100");
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const entries = listed.body.data as Record<string, unknown>[];
    const expected = flush.payments.flatMap((p) =>
      p.moved.map((m) => ({
        kind: "flush",
        direction: "internal",
        coin: m.coin,
        network: "ethereum",
        amount: m.amount,
        fee: null,
        fee_coin: "ETH",
        tx_hash: flush.tx_hash,
        address: destination,
        transaction_id: p.transaction_id,
      })),
    );
    expect(entries).toHaveLength(2);
    expect(entries.map((e) => ({ ...e })).sort((a, b) => String(a.coin).localeCompare(String(b.coin)))).toEqual(
      expected.sort((a, b) => a.coin.localeCompare(b.coin)).map((e) => expect.objectContaining(e)),
    );
    // An entry's id is a cursor: the page after the first holds the other one.
    const [first, second] = entries;
    const after = await call("GET", `/v1/ledger/entries?kind=flush&starting_after=${encodeURIComponent(String(first?.id))}`);
    expect([after.status, (after.body.data as { id: string }[]).map((e) => e.id)]).toEqual([200, [second?.id]]);
    expect(String(first?.id)).toMatch(/^flush:\d+:(USDT|ETH)$/);
    // The USDT one is valued at its payment's locked rate.
    const usdtEntry = entries.find((e) => e.coin === "USDT");
    expect(usdtEntry?.locked_rate).not.toBeNull();
    expect(usdtEntry?.fiat_currency).toBe("USD");

    // Totals: what came in equals what the flush moved; net is what arrived (a flush is internal, its gas the fee payer's).
    const totals = await call("GET", "/v1/ledger/totals?network=ethereum");
    expect(totals.status).toBe(200);
    for (const line of totals.body.data.totals as { coin: string; received: string; flushes: number; flushed: string; net: string }[]) {
      const moved = expected.filter((e) => e.coin === line.coin);
      if (moved.length === 0) continue;
      expect([line.flushes, line.flushed]).toEqual([moved.length, moved[0]?.amount]);
      expect(line.net).toBe(line.received);
    }

    // A kind no entry has is refused, naming the kinds.
    const bad = await call("GET", "/v1/ledger/entries?kind=transfer");
    expect([bad.status, bad.body.message]).toEqual([
      400,
      "Invalid query parameter: kind must be one of receipt, refund, consolidation, flush, sweep",
    ]);
  });

  it("changes new payments only when the settlement address changes; the flush job flushes past its threshold", async () => {
    const before = await service.initiate("ETH", "5");
    const second = toChecksumAddress(`0x${randomBytes(20).toString("hex")}`);
    expect((await call("PUT", "/v1/settlements/forwarders/ethereum", { destination: second })).status).toBe(200);
    const after = await service.initiate("ETH", "5");
    expect(before.payment_address).toBe(forwarderAddress(factory, { destination, salt: paymentSalt(before.id) }));
    expect(after.payment_address).toBe(forwarderAddress(factory, { destination: second, salt: paymentSalt(after.id) }));
    await anvil.sendTransaction({ to: before.payment_address, value: dueUnits(before) });
    await anvil.sendTransaction({ to: after.payment_address, value: dueUnits(after) });
    await anvil.mine(REQUIRED);
    await service.until(after.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    await untilFinal([before.id, after.id]);
    const held = await coinBalance(anvil, destination);

    // The job's pass with a threshold of one payment: one flush, each forwarder to its own destination.
    const report = await service.runtime.gateway.settlement.flushPass({ minPayments: 1, maxAgeMs: 3_600_000 });
    expect([report.flushed, report.failures]).toEqual([1, []]);
    expect(report.feePayers).toEqual([{ network: "ethereum", isLive: false, address: feePayer, balance: expect.any(String), low: false }]);
    expect(await coinBalance(anvil, destination)).toBe(held + dueUnits(before));
    expect(await coinBalance(anvil, second)).toBe(dueUnits(after));

    // The job reports the fee payer's balance to /metrics; below PAYGATE_FEE_PAYER_LOW_BALANCE it is too low.
    const metrics = new PaygateMetrics({ defaultMetrics: false });
    const said: string[] = [];
    const job = new ForwarderFlusher(
      service.runtime.gateway.settlement,
      { minPayments: 100, maxAgeMs: 3_600_000 },
      1000,
      (line) => void said.push(line),
      metrics,
    );
    await job.tick();
    const balance = decimalOf(await coinBalance(anvil, feePayer), 18);
    const text = await metrics.registry.metrics();
    expect(text).toContain(`paygate_fee_payer_balance{network="ethereum",mode="test"} ${Number(balance)}`);
    expect(text).toContain('paygate_fee_payer_low{network="ethereum",mode="test"} 0');
    expect(said).toEqual([]);
    const rails = new EvmForwarderRails({
      config: { ...service.config.forwarders, lowBalance: "1000" },
      chains: new ChainWatchers(service.config.chains),
      testChainIds: service.config.chains.testChainIds,
    });
    expect(await rails.feePayerBalance("ethereum", false)).toEqual({ address: feePayer, balance, low: true });
    expect(await rails.feePayerBalance("bsc", false)).toBeNull();
  });

  it("records a flush the node has not mined yet as sending, and the job finishes it from the chain's receipt, sent once", async () => {
    const t0 = await service.initiate("ETH", "3");
    await anvil.sendTransaction({ to: t0.payment_address, value: dueUnits(t0) });
    await anvil.mine(REQUIRED);
    await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL");
    await untilFinal([t0.id]);
    const nonce = BigInt(String(await anvil.send("eth_getTransactionCount", [feePayer, "latest"])));
    await anvil.send("evm_setAutomine", [false]);
    let flushed: Reply;
    try {
      flushed = await call("POST", "/v1/settlements/flushes", { network: "ethereum" });
    } finally {
      await anvil.send("evm_setAutomine", [true]);
    }
    expect([flushed.status, flushed.body.data?.state, flushed.body.data?.gas_used], JSON.stringify(flushed.body)).toEqual([201, "sending", null]);
    await anvil.mine(1);
    const id: string = flushed.body.data.id;
    let state = "sending";
    for (let waited = 0; state === "sending" && waited < 10_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = (await call("GET", `/v1/settlements/flushes/${id}`)).body.data.state;
    }
    expect(state).toBe("confirmed");
    // One transaction of the fee payer: the job sent the same signed bytes again, never a second flush.
    expect(BigInt(String(await anvil.send("eth_getTransactionCount", [feePayer, "latest"])))).toBe(nonce + 1n);
    const moved = (await call("GET", `/v1/settlements/flushes/${id}`)).body.data.payments;
    expect(moved).toEqual([{ transaction_id: t0.id, forwarder: t0.payment_address, moved: [{ coin: "ETH", amount: decimalOf(dueUnits(t0), 18) }] }]);
  });

  it("uses up no index of the merchant's key: once forwarders are off, the next payment takes the key's first address", async () => {
    const db = service.runtime.database.db;
    const forwarded = await db.transaction.findMany({
      where: { merchantId: service.merchant.id, paymentAddress: { not: null } },
      select: { derivationIndex: true, walletId: true },
    });
    expect(forwarded.length).toBeGreaterThan(2);
    expect(forwarded.map((t) => t.derivationIndex)).toEqual(forwarded.map(() => null));
    expect((await call("DELETE", "/v1/settlements/forwarders/ethereum")).status).toBe(200);
    const usdt = await service.initiate("USDT", "5");
    const row = await db.transaction.findUniqueOrThrow({ where: { id: usdt.id }, select: { derivationIndex: true } });
    expect(row.derivationIndex).toBe(0);
    expect(usdt.payment_address).not.toBe(forwarderAddress(factory, { destination, salt: paymentSalt(usdt.id) }));
    expect((await call("PUT", "/v1/settlements/forwarders/ethereum", { destination })).status).toBe(200);
  });

  it("refuses a settlement address that is no address, the zero address, a contract refusing the coin, and a non-EVM network: 400, nothing changed", async () => {
    const refusing = await deployTest(anvil, "RefusingDestination");
    const cases: [string, unknown, string][] = [
      ["ethereum", { destination: "0x1234" }, "destination is not an address of Ethereum Sepolia testnet"],
      ["ethereum", { destination: "0x0000000000000000000000000000000000000000" }, "destination cannot be the zero address: money sent there is lost"],
      ["ethereum", {}, "destination is required: the merchant's settlement address"],
      ["litecoin", { destination }, "network must be one of ethereum, bsc, base, polygon, arbitrum (got 'litecoin')"],
    ];
    const current = (await call("GET", "/v1/settlements/forwarders")).body.data;
    for (const [network, body, message] of cases) {
      const refused = await call("PUT", `/v1/settlements/forwarders/${network}`, body);
      expect([refused.status, refused.body.reason, refused.body.errors?.[0]?.message]).toEqual([400, "invalid_forwarder_setting", message]);
    }
    const reverts = await call("PUT", "/v1/settlements/forwarders/ethereum", { destination: refusing });
    expect([reverts.status, reverts.body.reason]).toEqual([400, "invalid_forwarder_setting"]);
    expect(reverts.body.errors[0].message).toMatch(
      /^destination does not accept ETH: sending it 1 wei fails on the node \(.*revert.*\); forwarders could never pay it$/,
    );
    expect((await call("GET", "/v1/settlements/forwarders")).body.data).toEqual(current);
  });
});
