// The own node replaced while the service runs (issue 42): Litecoin Core regtest stopped and a fresh
// one (a new datadir, so a new wallet and a new chain) started at the same URL. The addresses handed
// out are in the old node's wallet only, and the last block read is unknown to the new node. The
// watcher notices (the node away, the wallet missing, or listsinceblock's "Block not found"), asks the
// new wallet which addresses it holds, imports the others with their hand-out time and a rescan, and
// reads the new chain whole: a payment made on the new node is seen, with no restart of the service.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUNDER, startLitecoind, type Litecoind } from "../support/litecoind.ts";
import { amountOf, watchedBy } from "./ltc.ts";
import { progress, startE2eService, type E2eService, type Transaction } from "./service.ts";

const REQUIRED = 2;
let first: Litecoind;
let second: Litecoind | undefined;
/** Its watcher reads every 150 ms, so it sees the node go away (wallet "auto"). */
let auto: E2eService;
/** Read only by the passes the test makes, so it never sees the node away (wallets "created", made on the new node by hand, and "missing"). */
let created: E2eService;
let missing: E2eService;

const env = (wallet: string, intervalMs?: number) => ({
  PAYGATE_LTC_TEST_NODE_URL: first.url,
  PAYGATE_LTC_TEST_CHAIN: "regtest",
  PAYGATE_CONFIRMATIONS_LTC: String(REQUIRED),
  PAYGATE_NODE_WALLET: wallet,
  ...(intervalMs === undefined ? {} : { PAYGATE_WATCH_INTERVAL_MS: String(intervalMs) }),
});

beforeAll(async () => {
  first = await startLitecoind();
  [auto, created, missing] = await Promise.all([
    startE2eService(env("auto"), ["LTC"]),
    startE2eService(env("created", 600_000), ["LTC"]),
    startE2eService(env("missing", 600_000), ["LTC"]),
  ]);
  await Promise.all([auto, created, missing].map((s) => s.logged(/LTC test node .* answers/)));
}, 180_000);
afterAll(async () => {
  await Promise.all([auto, created, missing].map((s) => s?.close()));
  await first?.stop();
  await second?.stop();
});

const succeeded = (t: Transaction, txid: string) => ({
  status: "SUCCESSFUL",
  state: "paid",
  confirmations: null,
  required: REQUIRED,
  receipts: [[txid, amountOf(t).toFixed(), REQUIRED, "CONFIRMED"]],
});

describe("LTC on the own node: the node replaced by a fresh one at the same URL while the service runs", () => {
  it("a payment made on the new node to an address handed out on the old one is seen, whether the watcher saw the node away or not", async () => {
    const [a, c, m] = await Promise.all([auto.initiate("LTC", "40"), created.initiate("LTC", "40"), missing.initiate("LTC", "40")]);
    await Promise.all([watchedBy(first, "auto", a), watchedBy(first, "created", c), watchedBy(first, "missing", m)]);
    // Each watcher has read the old chain: its last block is one the new node will not know.
    await Promise.all([created.runtime.watcher.tick(), missing.runtime.watcher.tick(), auto.runtime.watcher.tick()]);

    await first.stop();
    // The node's shutdown answers 503 first (said once a minute), then connections are refused: passes see it away.
    await auto.logged(/payment watcher: LTC test: LTC test node \([^)]*\): \w+: /);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    second = await startLitecoind({ replacing: first });
    // The operator made the wallet "created" on the new node by hand (blank, watch-only): it holds no address.
    await second.send("createwallet", ["created", true, true, "", false, false, true]);
    const node = second;
    const pay = async (t: Transaction) => String(await node.send("sendtoaddress", [t.payment_address, amountOf(t).toFixed(8)], FUNDER));
    const [paidA, paidC, paidM] = [await pay(a), await pay(c), await pay(m)];
    await node.mine(REQUIRED);
    await node.send("syncwithvalidationinterfacequeue", []);

    expect(progress(await auto.until(a.id, (t) => t.status === "SUCCESSFUL", "paid on the new node"))).toEqual(succeeded(a, paidA));
    // listsinceblock from the old node's block: "Block not found", so the wallet is asked again and the address imported.
    await created.runtime.watcher.tick();
    expect(progress(await created.get(c.id))).toEqual(succeeded(c, paidC));
    // No wallet "missing" on the new node: the first pass is told so and fails, the next creates it and imports.
    await missing.runtime.watcher.tick();
    await missing.runtime.watcher.tick();
    expect(progress(await missing.get(m.id))).toEqual(succeeded(m, paidM));
    for (const [wallet, t] of [
      ["auto", a],
      ["created", c],
      ["missing", m],
    ] as const) {
      expect(await watchedBy(node, wallet, t)).toBe(t);
    }
  }, 120_000);
});
