// Failover end to end (node-pool.ts): the service's ETH test node variable lists four anvil nodes,
// PAYGATE_ETH_TEST_RPC_URL="C,A,B,D". C runs another chain id (set aside from the start, never read); A,
// B and D are one chain: started with one genesis time, without automine, every transaction sent to
// each and every block mined on each with one timestamp, so their blocks and hashes are the same. A
// is killed mid-watch, then B lags (blocks mined on D only), then B and D stop answering (initiate on
// Ethereum answers 503, BNB on its own anvil does not) and come back. Each payment reaches SUCCESSFUL
// exactly once with its events once each.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug } from "../../src/core/money/currencies.ts";
import { initializeBody } from "../support/builders.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../support/anvil.ts";
import { decimalOf, dueUnits } from "./evm.ts";
import { eventArrives, onChain, progress, startE2eService, type E2eService } from "./service.ts";

const CHAIN_ID = 31_337;
const BSC_CHAIN_ID = 31_338;
const REQUIRED = 3;
const GENESIS = Math.floor(Date.now() / 1000) - 10;

let a: Anvil;
let b: Anvil;
let d: Anvil;
let wrong: Anvil;
let bsc: Anvil;
let service: E2eService;
/** Block timestamps by height, shared by the twin nodes: a node catching up mines the same blocks. */
const timestamps: number[] = [GENESIS];

const twin = () => startAnvil({ chainId: CHAIN_ID, args: ["--timestamp", String(GENESIS), "--no-mining"] });

beforeAll(async () => {
  [a, b, d, wrong, bsc] = await Promise.all([twin(), twin(), twin(), startAnvil({ chainId: 1_338 }), startAnvil({ chainId: BSC_CHAIN_ID })]);
  service = await startE2eService(
    {
      PAYGATE_ETH_TEST_RPC_URL: [wrong.url, a.url, b.url, d.url].join(","),
      PAYGATE_ETH_TEST_CHAIN_ID: String(CHAIN_ID),
      PAYGATE_BSC_TEST_RPC_URL: bsc.url,
      PAYGATE_BSC_TEST_CHAIN_ID: String(BSC_CHAIN_ID),
      PAYGATE_CONFIRMATIONS_ETH: String(REQUIRED),
      PAYGATE_NODE_MAX_LAG_BLOCKS: "2",
      PAYGATE_NODE_CHECK_INTERVAL_MS: "200",
      PAYGATE_CHAIN_TIMEOUT_MS: "3000",
    },
    ["ETH", "BNB"],
  );
});
afterAll(async () => {
  await service?.close();
  await Promise.all([a, b, d, wrong, bsc].map((node) => node?.stop()));
});

/** Mines `n` blocks on each node given, each at the height's shared timestamp (a new one: the clock, later than the last). */
async function mine(nodes: Anvil[], n: number): Promise<void> {
  for (const node of nodes) {
    const from = await node.blockNumber();
    for (let height = from + 1; height <= from + n; height++) {
      timestamps[height] ??= Math.max((timestamps[height - 1] ?? GENESIS) + 1, Math.floor(Date.now() / 1000));
      await node.send("evm_mine", [timestamps[height]]);
    }
  }
}

/** The dev account pays `to` on each node (the same signed transaction), mined in one block on each. */
async function pay(nodes: Anvil[], to: string, value: bigint): Promise<string> {
  const hashes = await Promise.all(
    nodes.map((node) =>
      node.send("eth_sendTransaction", [
        { from: DEV_ACCOUNT, to, value: `0x${value.toString(16)}`, gas: "0x5208", maxFeePerGas: "0x2540be400", maxPriorityFeePerGas: "0x3b9aca00" },
      ]),
    ),
  );
  expect(new Set(hashes).size).toBe(1);
  await mine(nodes, 1);
  return String(hashes[0]);
}

const health = () =>
  service.runtime
    .nodeHealth()
    .find((p) => p.network === "ethereum" && p.mode === "test")
    ?.nodes.map((n) => n.state);

describe("ETH on four nodes: one on another chain, one killed, one lagging, all away", () => {
  it("never reads the node on another chain; the first killed mid-watch: the payment succeeds once on the next", async () => {
    const t0 = await service.initiate("ETH", "30");
    const due = dueUnits(t0);
    const tx = await pay([a, b, d], t0.payment_address, due);
    // A read may first see the payment through the address's balance only (`balance:internal:…`, no
    // hash): the transfer found by its hash takes that receipt over (DROPPED, left out by onChain).
    let t = await service.until(t0.id, (t) => onChain(t).length === 1 && onChain(t)[0]?.tx_hash === tx, "its payment seen by its hash");
    expect(progress(t).receipts).toEqual([[tx, decimalOf(due, 18), 1, "SEEN"]]);
    expect(health()?.[0]).toBe("wrong_chain");
    const [aside] = service.runtime.nodeHealth().find((p) => p.network === "ethereum")?.nodes ?? [];
    expect(aside).toMatchObject({ index: 1, host: new URL(wrong.url).host, state: "wrong_chain" });

    await a.stop(); // mid-watch
    await mine([b, d], REQUIRED - 1);
    t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL on the next node");
    expect(progress(t)).toEqual({
      status: "SUCCESSFUL",
      state: "paid",
      confirmations: null,
      required: REQUIRED,
      receipts: [[tx, decimalOf(due, 18), REQUIRED, "CONFIRMED"]],
    });
    expect(health()?.slice(0, 2)).toEqual(["wrong_chain", "failing"]);
    await eventArrives(service, t0.reference, "payment.received");
    expect(service.events(t0.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });

  it("sets aside a node that lags (blocks mined on the other only) and reads the one ahead", async () => {
    const t0 = await service.initiate("ETH", "20");
    const due = dueUnits(t0);
    const tx = await pay([b, d], t0.payment_address, due);
    await service.until(t0.id, (t) => onChain(t).length === 1 && onChain(t)[0]?.tx_hash === tx, "its payment seen");
    await mine([d], REQUIRED + 1); // B stays behind by more than 2 blocks
    const t = await service.until(t0.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL read from the node ahead");
    const [receipt] = onChain(t);
    expect([receipt?.tx_hash, receipt?.amount, receipt?.state]).toEqual([tx, decimalOf(due, 18), "CONFIRMED"]);
    expect(receipt?.confirmations).toBeGreaterThanOrEqual(REQUIRED); // D's head: up to 4 blocks past the payment's
    expect(health()).toEqual(["wrong_chain", "failing", "lagging", "healthy"]);
    await eventArrives(service, t0.reference, "payment.received");
    expect(service.events(t0.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
    await mine([b], REQUIRED + 1); // B catches up with D's very blocks
    await expect.poll(() => health()?.[2], { timeout: 20_000 }).toBe("healthy");
  });

  it("with no node answering: initiate on Ethereum answers 503 naming it, BNB is untouched, the open payment waits and then succeeds once", async () => {
    const open = await service.initiate("ETH", "10");
    const due = dueUnits(open);
    const tx = await pay([b, d], open.payment_address, due);
    await service.until(open.id, (t) => onChain(t).length === 1 && onChain(t)[0]?.tx_hash === tx, "its payment seen");
    b.pause();
    d.pause();
    await expect.poll(() => health()?.slice(2), { timeout: 20_000 }).toEqual(["failing", "failing"]);

    const created = await fetch(`${service.url}/v1/transaction`, {
      method: "POST",
      headers: { authorization: `Bearer ${service.merchant.testPublicKey}`, "content-type": "application/json" },
      body: JSON.stringify(initializeBody({ amount: "5" })),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    const refused = await service.pay(id, { currency_id: String(cryptoBySlug("ETH")?.id) });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({
      status: "error",
      message: "No node of Ethereum Sepolia testnet answers right now; retry shortly, or pay on another network",
    });
    const bnb = await service.initiate("BNB", "5"); // another network: untouched
    expect(bnb.status).toBe("PENDING");
    expect((await service.get(id)).status).toBe("INITIATED"); // the refused initiate changed nothing
    expect(onChain(await service.get(open.id)).map((r) => [r.tx_hash, r.confirmations, r.state])).toEqual([[tx, 1, "SEEN"]]);

    b.resume();
    d.resume();
    await mine([b, d], REQUIRED - 1);
    const t = await service.until(open.id, (t) => t.status === "SUCCESSFUL", "SUCCESSFUL once a node answers again", 60_000);
    expect(progress(t).receipts).toEqual([[tx, decimalOf(due, 18), REQUIRED, "CONFIRMED"]]);
    await eventArrives(service, open.reference, "payment.received");
    expect(service.events(open.reference)).toEqual(["payment.initiated", "payment.pending", "payment.received"]);
  });
});
