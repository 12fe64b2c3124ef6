// Reversals and zero-confirmation acceptance on a real Litecoin Core node (regtest), through the
// service (issue 24, goal 3): 0 confirmations accepted (PAYGATE_CONFIRMATIONS_LTC=0), 3 blocks final
// (PAYGATE_FINALITY_LTC=3). A SUCCESSFUL payment stays watched until final; one that a reorganisation
// invalidates, or that a conflicting transaction double-spends, sends payment.reversed; a payment that
// signals replaceability (BIP 125) waits for its first confirmation, a final-sequence one does not.
import { Decimal } from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUNDER, startLitecoind, type Litecoind } from "../support/litecoind.ts";
import { amountOf, funderCoin, watchedBy } from "./ltc.ts";
import { eventArrives, startE2eService, type E2eService, type Transaction } from "./service.ts";

let node: Litecoind;
let service: E2eService;

beforeAll(async () => {
  node = await startLitecoind();
  service = await startE2eService(
    {
      PAYGATE_LTC_TEST_NODE_URL: node.url,
      PAYGATE_LTC_TEST_CHAIN: "regtest",
      PAYGATE_CONFIRMATIONS_LTC: "0",
      PAYGATE_FINALITY_LTC: "3",
      PAYGATE_NODE_WALLET: "reversals",
    },
    ["LTC"],
  );
});
afterAll(async () => {
  await service?.close();
  await node?.stop();
});

/** Waits until the service's watch-only wallet holds the address (imported at the watcher's next pass). */
const watched = (t: Transaction) => watchedBy(node, "reversals", t);

const onWatchList = async (id: string) => (await service.runtime.gateway.payments.watchList(0, 10_000)).some((w) => w.id === id);
type Receipt = Transaction["receipts"][number] & { replaceable: boolean };
const receipts = (t: Transaction) => (t.receipts as Receipt[]).map((r) => [r.tx_hash, r.confirmations, r.state, r.replaceable]);
const reversedAt = (t: Transaction) => (t as Transaction & { reversed_at: string | null }).reversed_at;

/** A coin of the funder's, signed into a transaction paying `outputs` (final nSequence: no BIP 125 signal). */
async function spend(input: { txid: string; vout: number }, outputs: Record<string, string>): Promise<string> {
  const raw = await node.send("createrawtransaction", [[input], outputs]);
  return ((await node.send("signrawtransactionwithwallet", [raw], FUNDER)) as { hex: string }).hex;
}

describe("LTC reversals on a regtest node", () => {
  it("counts a final-sequence payment at 0 confirmations, watches it until 3 blocks deep, then lets it go", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    const txid = String(await node.send("sendtoaddress", [t0.payment_address, amountOf(t0).toFixed(8), "", "", false, false], FUNDER));
    let t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL at 0 confirmations");
    expect(receipts(t)).toEqual([[txid, 0, "CONFIRMED", false]]);
    expect(await onWatchList(t0.id)).toBe(true);
    await node.mine(2);
    t = await service.until(t0.id, (t) => t.receipts[0]?.confirmations === 2, "2 deep");
    expect(await onWatchList(t0.id)).toBe(true);
    await node.mine(1);
    const deadline = Date.now() + 20_000;
    while (await onWatchList(t0.id)) {
      if (Date.now() > deadline) throw new Error("still watched 3 blocks deep");
      await new Promise((r) => setTimeout(r, 50));
    }
    t = await service.get(t0.id);
    expect([t.status, reversedAt(t)]).toEqual(["SUCCESSFUL", null]);
    expect(service.events(t.reference)).not.toContain("payment.reversed");
  });

  it("never counts a payment that signals BIP 125 at 0 confirmations; counts it once mined", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    const txid = String(await node.send("sendtoaddress", [t0.payment_address, amountOf(t0).toFixed(8), "", "", false, true], FUNDER));
    let t = await service.until(t0.id, (t) => t.receipts.length === 1, "its payment seen");
    expect(receipts(t)).toEqual([[txid, 0, "SEEN", true]]);
    expect([t.status, t.meta.payment?.state]).toEqual(["PENDING", "confirming"]);
    // A replacement by fee signals too: still not counted, one receipt on the chain.
    const bumped = String(((await node.send("bumpfee", [txid], FUNDER)) as { txid: string }).txid);
    t = await service.until(t0.id, (t) => t.receipts.some((r) => r.tx_hash === bumped), "the replacement seen");
    expect(receipts(t)).toEqual([
      [txid, 0, "DROPPED", true],
      [bumped, 0, "SEEN", true],
    ]);
    expect(t.status).toBe("PENDING");
    await node.mine(1);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL at 1 confirmation");
    expect(receipts(t)).toEqual([
      [txid, 0, "DROPPED", true],
      [bumped, 1, "CONFIRMED", false],
    ]);
  });

  it("sends payment.reversed when a reorganisation invalidates a payment after it succeeded", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    // A payment spending a coinbase that has just matured: once the block that matured it is
    // invalidated, the payment is invalid and leaves the node for good.
    const [coinbaseBlock] = await node.mine(1);
    const blocks = await node.mine(99);
    const block = (await node.send("getblock", [coinbaseBlock, 2])) as { tx: { txid: string; vout: { value: number }[] }[] };
    const coinbase = block.tx[0] as { txid: string; vout: { value: number }[] };
    const due = amountOf(t0);
    const change = new Decimal((coinbase.vout[0] as { value: number }).value).minus(due).minus("0.001").toFixed(8);
    const hex = await spend({ txid: coinbase.txid, vout: 0 }, { [t0.payment_address]: due.toFixed(8), [await node.newAddress()]: change });
    const txid = String(await node.send("sendrawtransaction", [hex]));
    await node.mine(1);
    let t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL" && t.receipts[0]?.confirmations === 1, "SUCCESSFUL, 1 deep");
    await eventArrives(service, t.reference, "payment.received");

    await node.send("invalidateblock", [blocks.at(-1)]);
    t = await service.until(t0.id, (t) => reversedAt(t) !== null, "reversed");
    expect([t.status, t.meta.payment?.state, t.amount_paid]).toEqual(["SUCCESSFUL", "reversed", null]);
    expect(receipts(t)).toEqual([[txid, 1, "REVERSED", false]]);
    await eventArrives(service, t.reference, "payment.reversed");
    expect(service.events(t.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received", "payment.reversed"]);
    await service.logged(new RegExp(`transaction ${t0.id} left the chain after it succeeded \\(payment\\.reversed\\)`));
    // Nothing left on the chain to watch: it leaves the watch list.
    expect(await onWatchList(t0.id)).toBe(false);
    await node.mine(3);
  });

  it("sends payment.reversed when a conflicting transaction double-spends a payment counted at 0 confirmations", async () => {
    const t0 = await watched(await service.initiate("LTC", "10"));
    const due = amountOf(t0);
    const coin = await funderCoin(node);
    const input = { txid: coin.txid, vout: coin.vout };
    const left = new Decimal(coin.amount).minus("0.001");
    const payment = await spend(input, { [t0.payment_address]: due.toFixed(8), [await node.newAddress()]: left.minus(due).toFixed(8) });
    const txid = String(await node.send("sendrawtransaction", [payment]));
    let t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL at 0 confirmations");
    expect(receipts(t)).toEqual([[txid, 0, "CONFIRMED", false]]);
    // The same coin back to the payer, mined straight into a block (a miner's double spend).
    const conflict = await spend(input, { [await node.newAddress()]: left.toFixed(8) });
    await node.send("generateblock", [await node.newAddress(), [conflict]]);
    t = await service.until(t0.id, (t) => reversedAt(t) !== null, "reversed");
    expect(receipts(t)).toEqual([[txid, 0, "REVERSED", false]]);
    expect(t.meta.payment?.state).toBe("reversed");
    await eventArrives(service, t.reference, "payment.reversed");
  });
});
