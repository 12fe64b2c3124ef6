// When an own node learns a handed-out address, and what a payment sent before that does (issue 24):
// Litecoin Core regtest behind the service, the watcher's interval long (10 minutes) so that only the
// passes a test makes read the node. Initiate has the address imported at once; without that (a
// service whose initiate tells no node), the pass that imports it reads the node's mempool after the
// import, so a payment sent before it is still seen at 0 confirmations, without a block.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUNDER, startLitecoind, type Litecoind } from "../support/litecoind.ts";
import { amountOf, watchedBy } from "./ltc.ts";
import { progress, startE2eService, type E2eService } from "./service.ts";

const REQUIRED = 3;
let node: Litecoind;
/** Initiate imports the address into the wallet "handout" at once. */
let told: E2eService;
/** Initiate tells no node (addressWatch: null): the watcher's pass imports into the wallet "untold". */
let untold: E2eService;

const env = (wallet: string) => ({
  PAYGATE_LTC_TEST_NODE_URL: node.url,
  PAYGATE_LTC_TEST_CHAIN: "regtest",
  PAYGATE_CONFIRMATIONS_LTC: String(REQUIRED),
  PAYGATE_NODE_WALLET: wallet,
  PAYGATE_WATCH_INTERVAL_MS: "600000",
});

// Two services (a database each) start side by side; on a loaded machine that takes longer than one.
beforeAll(async () => {
  node = await startLitecoind();
  [told, untold] = await Promise.all([
    startE2eService(env("handout"), ["LTC"]),
    startE2eService(env("untold"), ["LTC"], { runtime: { addressWatch: null } }),
  ]);
}, 180_000);
afterAll(async () => {
  await told?.close();
  await untold?.close();
  await node?.stop();
});

/**
 * Sends from the funder and waits until every wallet has been told of it: Core tells wallets of a new
 * mempool transaction on its validation queue, after sendtoaddress answers (seen on a loaded machine).
 */
const pay = async (address: string, amount: string) => {
  const txid = String(await node.send("sendtoaddress", [address, amount], FUNDER));
  await node.send("syncwithvalidationinterfacequeue", []);
  return txid;
};
const watches = async (wallet: string, address: string) =>
  ((await node.send("getaddressinfo", [address], wallet)) as { iswatchonly: boolean }).iswatchonly;

describe("LTC on the own node: an address is imported when it is handed out", () => {
  it("imports the address at initiate, before any pass, so a payment sent at once is seen at 0 confirmations", async () => {
    const t0 = await watchedBy(node, "handout", await told.initiate("LTC", "40"));
    const txid = await pay(t0.payment_address, amountOf(t0).toFixed(8));
    // The wallet saw the payment arrive: it was watching before it was sent.
    await expect(node.send("gettransaction", [txid, true], "handout")).resolves.toMatchObject({ txid, confirmations: 0 });
    await told.runtime.watcher.tick();
    const t = await told.get(t0.id);
    expect(progress(t)).toEqual({
      status: "PENDING",
      state: "confirming",
      confirmations: 0,
      required: REQUIRED,
      receipts: [[txid, amountOf(t0).toFixed(), 0, "SEEN"]],
    });
  });

  it("without the import at initiate, the pass that imports the address finds in the mempool a payment sent before it", async () => {
    const t0 = await untold.initiate("LTC", "40");
    expect(await watches("untold", t0.payment_address)).toBe(false);
    const txid = await pay(t0.payment_address, amountOf(t0).toFixed(8));
    await untold.runtime.watcher.tick();
    expect(await watches("untold", t0.payment_address)).toBe(true);
    // The wallet never saw it (imported after it arrived; the import's rescan reads blocks only): the mempool read found it.
    await expect(node.send("gettransaction", [txid, true], "untold")).rejects.toThrow(/Invalid or non-wallet transaction id/);
    let t = await untold.get(t0.id);
    expect(progress(t)).toEqual({
      status: "PENDING",
      state: "confirming",
      confirmations: 0,
      required: REQUIRED,
      receipts: [[txid, amountOf(t0).toFixed(), 0, "SEEN"]],
    });
    // Once mined, the wallet has it from its block, and counts on.
    await node.mine(1);
    await untold.runtime.watcher.tick();
    t = await untold.get(t0.id);
    expect(progress(t)).toMatchObject({ status: "PENDING", confirmations: 1, receipts: [[txid, amountOf(t0).toFixed(), 1, "SEEN"]] });
  });
});
