// Recording TRON sweeps (issue 40; docs/settlement.md, Recording sweeps): a merchant whose test TRON
// account is a known key is paid in USDT on TRON; the sweep tool sweeps the payment address with real
// signed transactions (a top-up from the fee wallet, the USDT transfer, the TRX left over) and prints
// with --report what paygate records; paygate reads each from the node's HTTP API (the TRX it burned,
// its Transfer log, its block) and records it once with a settlement.sweep.recorded event. No TRON node
// software runs here, so the node is test/support/fake-tron-node.ts, which answers as TRON's HTTP API is
// documented. Every refusal with its status and message; both databases.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { HDKey } from "@scure/bip32";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Decimal } from "../../src/core/money/amounts.ts";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import { USDT_TRON_NILE_CONTRACT } from "../../src/core/networks.ts";
import { unitsText } from "../../src/core/settlement/sweep-view.ts";
import { tronAddressOf } from "../../src/rails/wallets/tron.ts";
import { type FakeTronNode, startFakeTronNode } from "../support/fake-tron-node.ts";
import type { NewMerchant } from "../../src/core/merchants/merchants.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { serializeKey } from "../support/hd-keys.ts";
import { executeTronPlan, runSweepTool, tronAddressAt, tronSweepEntry, writeTronPlan } from "../support/tron-sweep-plan.ts";

const USDT = 1_000_000n;
const TRX = 1_000_000n;
const USDT_COIN = cryptoBySlug("USDT");

let node: FakeTronNode;
let t: TestGateway;
let merchant: NewMerchant;
let dir: string;
const account = HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/195'/0'");
const feeKey = randomBytes(32);
const feeWallet = tronAddressOf(secp256k1.getPublicKey(feeKey));
const destination = tronAddressOf(secp256k1.getPublicKey(randomBytes(32)));

type Report = { network: string; sweeps: { tx_hash: string; top_up_tx_hash: string | null }[] };

const bearer = () => ({ authorization: `Bearer ${merchant.testSecretKey}` });
const record = (body: unknown, g: TestGateway = t) => g.post("/v1/settlements/sweeps", body, bearer());

beforeAll(async () => {
  node = await startFakeTronNode(USDT_TRON_NILE_CONTRACT);
  dir = mkdtempSync(path.join(tmpdir(), "paygate-sweep-record-tron-"));
  t = await startTestGateway({ env: { PAYGATE_TRON_RPC_URL: "none", PAYGATE_TRON_TEST_RPC_URL: "none", PAYGATE_TRON_TEST_HTTP_URL: node.url } });
  if (USDT_COIN === undefined) throw new Error("no USDT");
  merchant = await t.merchant({
    name: "Tron Goods",
    wallets: [{ currency: USDT_COIN, network: "tron", isLive: false, extendedPublicKey: serializeKey(account, "tpub") }],
  });
  node.trx.set(feeWallet, 100n * TRX);
  node.tokens.set(destination, 1n * USDT); // the merchant's address holds USDT: a transfer into it burns the plan's energy
});
afterAll(async () => {
  await t?.close();
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A USDT payment on TRON: its id and address (the account's next, 0/i). */
async function tronPayment(): Promise<{ id: string; address: string }> {
  const created = await t.post(
    "/v1/transaction",
    { customer: { email: "ada@example.com" }, currency: "USD", amount: "20" },
    { authorization: `Bearer ${merchant.testPublicKey}` },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const paid = await t.post(`/v1/transaction/${created.body.data.id}/pay`, { currency_id: "3", network: "tron" }, bearer());
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return { id: created.body.data.id, address: paid.body.data.payment_address };
}

/** The sweep tool run as the merchant runs it on the payment at 0/index: --execute --report. */
async function sweep(index: number, transactionId: string, held: bigint, transferSun?: bigint): Promise<Report> {
  const plan = writeTronPlan(dir, destination, [tronSweepEntry(account, index, held, transferSun, transactionId)], `plan-${index}.json`);
  return JSON.parse(await runSweepTool(executeTronPlan(dir, plan, account, feeKey, node.url, "--report")));
}

/** What the node says: a transaction's info and its block's id. */
async function nodeSays(path: string, body: unknown): Promise<any> {
  const answer = await fetch(`${node.url}/wallet/${path}`, { method: "POST", body: JSON.stringify(body) });
  return answer.json();
}
const trx = (sun: bigint | number) => unitsText(BigInt(sun), 6);

describe("recording TRON sweeps", () => {
  let report: Report;
  let payment: { id: string; address: string };

  it("records the tool's report: the USDT transfer with its top-up and the TRX left over, each as the node tells it", async () => {
    payment = await tronPayment();
    expect(payment.address).toBe(tronAddressAt(account, 0));
    node.tokens.set(payment.address, 20n * USDT);
    report = await sweep(0, payment.id, 20n * USDT);
    expect(report.network).toBe("tron");
    expect(report.sweeps).toHaveLength(2);
    const [transfer, leftOver] = report.sweeps as [Report["sweeps"][number], Report["sweeps"][number]];
    expect(transfer.top_up_tx_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(leftOver.top_up_tx_hash).toBeNull();

    const got = await record(report);
    expect(got.status, JSON.stringify(got.body)).toBe(201);
    expect(got.body.meta).toEqual({ recorded: 2, already_recorded: 0 });
    const [first, second] = got.body.data;
    const info = await nodeSays("gettransactioninfobyid", { value: transfer.tx_hash });
    const block = await nodeSays("getblockbynum", { num: info.blockNumber });
    const topUpInfo = await nodeSays("gettransactioninfobyid", { value: transfer.top_up_tx_hash });
    const topUpTx = await nodeSays("gettransactionbyid", { value: transfer.top_up_tx_hash, visible: true });
    expect(first).toEqual({
      id: expect.stringMatching(/^sw_[0-9a-f-]{36}$/),
      object: "sweep",
      is_live: false,
      network: "tron",
      tx_hash: transfer.tx_hash,
      from_address: payment.address,
      transaction_id: payment.id,
      destination,
      coin: "USDT",
      amount: "20",
      fee: trx(info.fee),
      fee_coin: "TRX",
      block_number: String(info.blockNumber),
      block_hash: block.blockID,
      mined_at: new Date(info.blockTimeStamp).toISOString(),
      top_up: {
        tx_hash: transfer.top_up_tx_hash,
        from: feeWallet,
        amount: trx(topUpTx.raw_data.contract[0].parameter.value.amount),
        fee: trx(topUpInfo.fee),
      },
      created_at: expect.any(String),
    });
    // The energy burned (64,285 at 100 sun) is what the transfer cost, the TRX left over went on to the destination.
    expect(info.fee).toBe(6_428_500);
    const leftInfo = await nodeSays("gettransactioninfobyid", { value: leftOver.tx_hash });
    expect(second).toMatchObject({
      tx_hash: leftOver.tx_hash,
      from_address: payment.address,
      destination,
      coin: "TRX",
      amount: trx(node.trx.get(destination) ?? 0n),
      fee: trx(leftInfo.fee),
      top_up: null,
    });
    const events = await t.db.webhookEvent.findMany({ where: { merchantId: merchant.id, type: "settlement.sweep.recorded" } });
    expect(events.map((e) => JSON.parse(e.body).data.sweep.tx_hash).sort()).toEqual([transfer.tx_hash, leftOver.tx_hash].sort());
  });

  it("gives the same sweeps back (200) when posted again, with 0x or without, and writes nothing", async () => {
    const again = await record({ network: "TRON", sweeps: report.sweeps.map((s) => ({ ...s, tx_hash: `0x${s.tx_hash.toUpperCase()}` })) });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.meta).toEqual({ recorded: 0, already_recorded: 2 });
    expect(again.body.data.map((s: { tx_hash: string }) => s.tx_hash)).toEqual(report.sweeps.map((s) => s.tx_hash));
    expect(await t.db.sweep.count({ where: { merchantId: merchant.id } })).toBe(2);
    const listed = await fetch(`${t.url}/v1/settlements/sweeps?network=tron`, { headers: bearer() });
    expect([listed.status, ((await listed.json()) as { data: unknown[] }).data.length]).toEqual([200, 2]);
  });

  it("the ledger: a sweep entry each, on tron; the TRX line carries every sweep's fee and the top-up's", async () => {
    const get = async (route: string) => {
      const answer = await fetch(`${t.url}${route}`, { headers: bearer() });
      expect(answer.status, route).toBe(200);
      return ((await answer.json()) as { data: any }).data;
    };
    const sweeps = (await get("/v1/settlements/sweeps?network=tron")) as any[];
    const entries = (await get("/v1/ledger/entries?kind=sweep&limit=100")) as any[];
    expect(entries.map((e) => e.id).sort()).toEqual(sweeps.map((s) => `sweep:${s.id}`).sort());
    for (const s of sweeps) {
      expect(entries.find((e) => e.id === `sweep:${s.id}`)).toMatchObject({
        kind: "sweep",
        direction: "internal",
        network: "tron",
        coin: s.coin,
        amount: s.amount,
        fee: s.fee,
        fee_coin: "TRX",
        tx_hash: s.tx_hash,
        address: destination,
        transaction_id: payment.id,
        top_up_fee: s.top_up?.fee ?? null,
      });
    }
    const totals = (await get("/v1/ledger/totals")).totals as any[];
    const sum = (pick: (s: any) => string | null | undefined) => sweeps.reduce((acc, s) => acc.plus(pick(s) ?? 0), new Decimal(0)).toFixed();
    expect(totals.find((x) => x.coin === "USDT")).toMatchObject({ sweeps: 1, swept: "20", sweep_fees: "0", own_sweep_fees: "0" });
    expect(totals.find((x) => x.coin === "TRX")).toMatchObject({
      sweeps: 1,
      sweep_fees: sum((s) => s.fee),
      own_sweep_fees: sum((s) => s.top_up?.fee),
    });
  });

  it("refuses what is no sweep of the merchant's, naming why, and records nothing", async () => {
    const unknown = randomBytes(32).toString("hex");
    // A second payment whose sweep fails: its fee limit (a plan far below what the transfer burns) runs
    // out (OUT_OF_ENERGY) and the USDT stays; the fee wallet's top-up before it went through.
    const other = await tronPayment();
    node.tokens.set(other.address, 20n * USDT);
    const before = new Set(node.taken.keys());
    await expect(sweep(1, other.id, 20n * USDT, 500_000n)).rejects.toThrow(/failed: OUT_OF_ENERGY/);
    const sent = [...node.taken.entries()].filter(([id]) => !before.has(id));
    const topUp = sent.find(([, v]) => v.owner === feeWallet)?.[0] as string;
    const failed = sent.find(([, v]) => v.owner === other.address)?.[0] as string;
    const cases: [unknown, number, string, string][] = [
      [
        { network: "tron", tx_hash: unknown },
        404,
        "sweep_transaction_not_found",
        `The TRON Nile testnet node does not know the transaction ${unknown}`,
      ],
      [{ network: "tron", tx_hash: failed }, 409, "sweep_transaction_not_mined", `The transaction ${failed} reverted`],
      [{ network: "tron", tx_hash: topUp }, 400, "sweep_not_from_payment_address", feeWallet],
    ];
    for (const [body, status, reason, message] of cases) {
      const got = await record(body);
      expect([got.status, got.body.reason], JSON.stringify(got.body)).toEqual([status, reason]);
      expect(got.body.message).toContain(message);
    }
    expect(await t.db.sweep.count()).toBe(2);
  });

  it("answers 503 naming the HTTP API's variable when it is not configured or cannot be reached; a live key asks the live node", async () => {
    const down = await startTestGateway({
      sameDatabaseAs: t,
      env: { PAYGATE_TRON_TEST_RPC_URL: "none", PAYGATE_TRON_TEST_HTTP_URL: "http://127.0.0.1:1" },
    });
    const none = await startTestGateway({ sameDatabaseAs: t, env: { PAYGATE_TRON_TEST_HTTP_URL: "none" } });
    // A proxy's page where the API should answer, a node that refuses the question, and one whose
    // transaction has an owner that is no TRON address.
    const garbage = createServer((req, res) => {
      const url = req.url ?? "";
      const odd = { raw_data: { contract: [{ parameter: { value: { owner_address: "nonsense" } }, type: "TransferContract" }] } };
      const answer = url.startsWith("/refusing/")
        ? JSON.stringify({ Error: "class java.lang.IllegalArgumentException : hex is odd" })
        : url.startsWith("/odd/")
          ? JSON.stringify(url.endsWith("/gettransactionbyid") ? odd : {})
          : "<html>Bad gateway</html>";
      res.writeHead(200).end(answer);
    });
    await new Promise<void>((resolve) => garbage.listen(0, "127.0.0.1", resolve));
    const garbageUrl = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;
    const html = await startTestGateway({ sameDatabaseAs: t, env: { PAYGATE_TRON_TEST_HTTP_URL: garbageUrl } });
    const refusing = await startTestGateway({ sameDatabaseAs: t, env: { PAYGATE_TRON_TEST_HTTP_URL: `${garbageUrl}/refusing` } });
    const odd = await startTestGateway({ sameDatabaseAs: t, env: { PAYGATE_TRON_TEST_HTTP_URL: `${garbageUrl}/odd` } });
    try {
      const page = await record({ network: "tron", tx_hash: randomBytes(32).toString("hex") }, html);
      expect([page.status, page.body.reason]).toEqual([503, "chain_node_unavailable"]);
      expect(page.body.message).toContain(`HTTP API (PAYGATE_TRON_TEST_HTTP_URL) at ${new URL(garbageUrl).host} cannot be asked`);
      expect(page.body.message).toContain("(/wallet/gettransactionbyid answered <html>Bad gateway</html>, not JSON); nothing was recorded");
      const refused = await record({ network: "tron", tx_hash: randomBytes(32).toString("hex") }, refusing);
      expect([refused.status, refused.body.reason]).toEqual([503, "chain_node_unavailable"]);
      expect(refused.body.message).toContain("(/wallet/gettransactionbyid refused: class java.lang.IllegalArgumentException");
      const nonsense = await record({ network: "tron", tx_hash: randomBytes(32).toString("hex") }, odd);
      expect([nonsense.status, nonsense.body.reason]).toEqual([503, "chain_node_unavailable"]);
      expect(nonsense.body.message).toContain(`(the transaction's owner_address is "nonsense", not a TRON address); nothing was recorded`);
      const body = { network: "tron", tx_hash: randomBytes(32).toString("hex") };
      const unreachable = await record(body, down);
      expect([unreachable.status, unreachable.body.reason]).toEqual([503, "chain_node_unavailable"]);
      expect(unreachable.body.message).toMatch(
        /^The TRON Nile testnet node's HTTP API \(PAYGATE_TRON_TEST_HTTP_URL\) at 127\.0\.0\.1:1 cannot be asked about the sweep's transactions \(.+\); nothing was recorded/,
      );
      const missing = await record(body, none);
      expect([missing.status, missing.body.message]).toEqual([
        503,
        "The TRON Nile testnet node's HTTP API (PAYGATE_TRON_TEST_HTTP_URL) cannot be asked about the sweep's transactions (none is configured); nothing was recorded, retry once it answers",
      ]);
      const live = await t.post("/v1/settlements/sweeps", body, { authorization: `Bearer ${merchant.liveSecretKey}` });
      expect([live.status, live.body.message]).toEqual([
        503,
        "The TRON node's HTTP API (PAYGATE_TRON_HTTP_URL) cannot be asked about the sweep's transactions (none is configured); nothing was recorded, retry once it answers",
      ]);
    } finally {
      await Promise.all([down.close(), none.close(), html.close(), refusing.close(), odd.close()]);
      await new Promise<void>((resolve) => garbage.close(() => resolve()));
    }
  });
});
