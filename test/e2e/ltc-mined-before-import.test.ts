// A payment mined before its address reached the own node's wallet (issue 42, item 4): Litecoin Core
// regtest behind the service, the watcher's interval long (10 minutes) so that only the passes a test
// makes read the node. The address is imported with the time it was handed out, and the node rescans
// the blocks since: the pass that imports it late finds the payment in its block, whether initiate's
// import never came (a service whose initiate tells no node), failed (the node away at initiate), or
// the service restarted before any pass (a new watcher on the same database); and with no pause at all
// between initiate (whose import is not waited for), the payment and its blocks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PaymentWatcher } from "../../src/jobs/payment-watcher.ts";
import { ChainWatchers } from "../../src/rails/chains/index.ts";
import { FUNDER, startLitecoind, type Litecoind } from "../support/litecoind.ts";
import { amountOf } from "./ltc.ts";
import { progress, startE2eService, type E2eService, type Transaction } from "./service.ts";

const REQUIRED = 2;
let node: Litecoind;
/** Initiate imports the address at once (wallet "told"). */
let told: E2eService;
/** Initiate tells no node (addressWatch: null): only a pass imports (wallet "untold"). */
let untold: E2eService;

const env = (wallet: string) => ({
  PAYGATE_LTC_TEST_NODE_URL: node.url,
  PAYGATE_LTC_TEST_CHAIN: "regtest",
  PAYGATE_CONFIRMATIONS_LTC: String(REQUIRED),
  PAYGATE_NODE_WALLET: wallet,
  PAYGATE_WATCH_INTERVAL_MS: "600000",
});

beforeAll(async () => {
  node = await startLitecoind();
  [told, untold] = await Promise.all([
    startE2eService(env("told"), ["LTC"]),
    startE2eService(env("untold"), ["LTC"], { runtime: { addressWatch: null } }),
  ]);
  // The start-up pass is made (the wallets exist): what follows is read only by the passes the tests make.
  await Promise.all([told.logged(/LTC test node .* answers/), untold.logged(/LTC test node .* answers/)]);
}, 180_000);
afterAll(async () => {
  await told?.close();
  await untold?.close();
  await node?.stop();
});

/** Pays the amount due from the funder and mines two blocks at once: the payment is in no mempool any more. */
const payAndMine = async (t: Transaction) => {
  const txid = String(await node.send("sendtoaddress", [t.payment_address, amountOf(t).toFixed(8)], FUNDER));
  await node.mine(2);
  await node.send("syncwithvalidationinterfacequeue", []);
  return txid;
};
const watches = async (wallet: string, address: string) =>
  ((await node.send("getaddressinfo", [address], wallet)) as { iswatchonly: boolean }).iswatchonly;
const succeeded = (t: Transaction, txid: string) => ({
  status: "SUCCESSFUL",
  state: "paid",
  confirmations: null,
  required: REQUIRED,
  receipts: [[txid, amountOf(t).toFixed(), 2, "CONFIRMED"]],
});

describe("LTC on the own node: a payment mined before its address reached the wallet is seen", () => {
  it("initiate, pay and mine two blocks with no pause: initiate's own import (not waited for) races the payment, and the next pass finds it", async () => {
    const t0 = await told.initiate("LTC", "40");
    const txid = await payAndMine(t0);
    await told.runtime.watcher.tick();
    expect(await watches("told", t0.payment_address)).toBe(true);
    expect(progress(await told.get(t0.id))).toEqual(succeeded(t0, txid));
  });

  it("the pass imports the address after the payment was mined (two blocks at once), and finds it: the transaction succeeds", async () => {
    const t0 = await untold.initiate("LTC", "40");
    const txid = await payAndMine(t0);
    expect(await watches("untold", t0.payment_address)).toBe(false);
    await untold.runtime.watcher.tick();
    expect(await watches("untold", t0.payment_address)).toBe(true);
    expect(progress(await untold.get(t0.id))).toEqual(succeeded(t0, txid));
  });

  it("the node was away at initiate (no import), the payment was mined before the next pass: that pass finds it", async () => {
    await node.halt();
    let t0: Transaction;
    try {
      t0 = await told.initiate("LTC", "40");
      // Initiate's import, not waited for, fails at once (connection refused): let it, before the node is back.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await node.startAgain();
    }
    const txid = await payAndMine(t0);
    await told.runtime.watcher.tick();
    expect(progress(await told.get(t0.id))).toEqual(succeeded(t0, txid));
  });

  it("the service stopped before importing the address; a new watcher on the same database, after the payment was mined, finds it", async () => {
    const t0 = await untold.initiate("LTC", "40");
    await untold.runtime.watcher.stop();
    const txid = await payAndMine(t0);
    // What a restart starts with: new node clients (nothing imported in memory), the same database and wallet.
    const chains = new ChainWatchers({
      timeoutMs: 10_000,
      esplora: { BTC: {}, LTC: {} },
      evm: { ethereum: {}, bsc: {} },
      coreNodes: { LTC: { test: { url: node.url, chain: "regtest" } } },
      nodeWallet: "untold",
    });
    const restarted = new PaymentWatcher(untold.runtime.gateway.payments, chains, {
      intervalMs: 600_000,
      concurrency: 2,
      lateGraceMs: 3_600_000,
      requiredConfirmations: () => REQUIRED,
    });
    await restarted.tick();
    expect(progress(await untold.get(t0.id))).toEqual(succeeded(t0, txid));
  });
});
