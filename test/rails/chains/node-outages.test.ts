// Real nodes that fail mid-run: Litecoin Core (the own-node backend) answering garbage, not answering
// in time, and going away and coming back (stopped and started again on its datadir); anvil stopped
// where it is (SIGSTOP) and resumed. A read fails with a ChainNodeError that says why (the metric's
// reason), and the next read after the node answers again goes on from where the last good one
// ended: listsinceblock from the same block, the blocks after the last one scanned. The garbage and
// the silence come from a proxy in front of the real node: a node produces neither on demand.
// No database: this file runs once per CI run (vitest.config.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { ChainNodeError } from "../../../src/rails/chains/errors.ts";
import { ChainWatchers } from "../../../src/rails/chains/index.ts";
import { FUNDER, startLitecoind, type Litecoind } from "../../support/litecoind.ts";
import { startAnvil, type Anvil } from "../../support/anvil.ts";
import { useRecordingServers } from "../../support/recording-server.ts";

const LTC = cryptoBySlug("LTC") as CryptoCurrency;
const ETH = cryptoBySlug("ETH") as CryptoCurrency;
const SINCE = new Date(0);
const serve = useRecordingServers();

let node: Litecoind;
let anvil: Anvil;
beforeAll(async () => {
  [node, anvil] = await Promise.all([startLitecoind(), startAnvil({ chainId: 31_337 })]);
});
afterAll(async () => {
  await Promise.all([node?.stop(), anvil?.stop()]);
});

type Fault = null | "garbage" | "hang";

/** A proxy to the node's JSON-RPC that records each call and acts out `fault` on the method named. */
async function coreProxy() {
  const state: { fault: Fault; method: string } = { fault: null, method: "listsinceblock" };
  const target = new URL(node.url);
  const authorization = `Basic ${Buffer.from(`${node.rpcUser}:${node.rpcPassword}`).toString("base64")}`;
  const server = await serve((res, req) => {
    const call = JSON.parse(req.body) as { method?: string };
    if (state.fault !== null && call.method === state.method) {
      if (state.fault === "hang") return; // never answered: the client's timeout ends it
      res.writeHead(200, { "content-type": "application/json" });
      res.end("<html><body>502 Bad Gateway</body></html>");
      return;
    }
    void fetch(`http://${target.host}${req.url ?? "/"}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization },
      body: req.body,
    }).then(
      async (answer) => {
        res.writeHead(answer.status, { "content-type": "application/json" });
        res.end(await answer.text());
      },
      () => res.socket?.destroy(), // the node is away: the connection is cut, as the node's own would be
    );
  });
  /** The `listsinceblock` block hashes asked, in order. */
  const sinceBlocks = () =>
    server.requests
      .map((r) => JSON.parse(r.body) as { method?: string; params?: unknown[] })
      .filter((c) => c.method === "listsinceblock")
      .map((c) => c.params?.[0] ?? null);
  return { url: server.url.replace("://", `://${node.rpcUser}:${node.rpcPassword}@`), state, sinceBlocks };
}

let wallets = 0;
function ltcWatcher(url: string) {
  return new ChainWatchers({
    timeoutMs: 500,
    esplora: { BTC: {}, LTC: {} },
    evm: { ethereum: {}, bsc: {} },
    coreNodes: { LTC: { test: { url, chain: "regtest" } } },
    nodeWallet: `outage${++wallets}`,
  });
}

/** One pass over one address, as the payment watcher makes it: its receipts as `key confirmations`. */
async function ltcPass(chains: ChainWatchers, address: string): Promise<string[]> {
  chains.beginPass([{ currency: LTC, isLive: false, address, since: SINCE, receipts: [] }]);
  const receipts = await chains.receiptsTo(LTC, false, address, { since: SINCE, requiredConfirmations: 6 });
  return receipts.map((r) => `${r.txHash} ${r.confirmations}`);
}

async function failedPass(pass: Promise<unknown>): Promise<ChainNodeError> {
  const error = await pass.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChainNodeError);
  return error as ChainNodeError;
}

describe("own node (Litecoin Core regtest) failing mid-run", () => {
  for (const [fault, reason] of [
    ["garbage", "malformed"],
    ["hang", "timeout"],
  ] as const) {
    it(`${fault === "garbage" ? "answers garbage" : "does not answer in time"}: the pass fails (${reason}), and the next goes on from the same block`, async () => {
      const proxy = await coreProxy();
      const chains = ltcWatcher(proxy.url);
      const address = await node.newAddress();
      expect(await ltcPass(chains, address)).toEqual([]);
      const cursor = proxy.sinceBlocks().at(-1);
      expect(cursor).toBeNull(); // the first read lists the whole wallet
      await ltcPass(chains, address);
      const last = proxy.sinceBlocks().at(-1);
      expect(last).toMatch(/^[0-9a-f]{64}$/);

      const txid = String(await node.send("sendtoaddress", [address, 0.5], FUNDER));
      await node.mine(2);
      proxy.state.fault = fault;
      const error = await failedPass(ltcPass(chains, address));
      expect(error.reason).toBe(reason);
      expect(error.message).toMatch(
        fault === "garbage" ? /listsinceblock: HTTP 200, not a JSON-RPC answer/ : /listsinceblock: no complete answer within 500 ms/,
      );
      await failedPass(ltcPass(chains, address)); // and again: nothing moved on

      proxy.state.fault = null;
      expect(await ltcPass(chains, address)).toEqual([`${txid} 2`]);
      // Every read since the last good one asked from its block: the failed ones did not move the cursor past the payment.
      expect(proxy.sinceBlocks().slice(-4)).toEqual([last, last, last, last]);
    });
  }

  it("goes away (stopped) and comes back (started again) without the wallet loaded: reads fail as unreachable, then the wallet is loaded and the payment mined meanwhile found", async () => {
    const proxy = await coreProxy();
    const chains = ltcWatcher(proxy.url);
    const wallet = `outage${wallets}`;
    const address = await node.newAddress();
    await ltcPass(chains, address);
    await ltcPass(chains, address);
    const last = proxy.sinceBlocks().at(-1);
    const txid = String(await node.send("sendtoaddress", [address, 0.25], FUNDER));
    await node.mine(1);
    // Unloaded, and not to be loaded at start-up: the restarted node comes back without it.
    await node.send("unloadwallet", [wallet, false]);

    await node.halt();
    const error = await failedPass(ltcPass(chains, address));
    expect(error.reason).toBe("unreachable");
    await failedPass(ltcPass(chains, address));
    await node.startAgain();
    await node.mine(2); // blocks found while the watcher was away
    expect(await node.send("listwallets")).not.toContain(wallet);
    expect(await ltcPass(chains, address)).toEqual([`${txid} 3`]);
    expect(await node.send("listwallets")).toContain(wallet);
    expect(proxy.sinceBlocks().at(-1)).toBe(last);
  });
});

describe("EVM node (anvil) stopped where it is, then resumed", () => {
  it("fails the pass with a timeout while stopped, then finds the transfer mined before, with the blocks since", async () => {
    const chains = new ChainWatchers({
      timeoutMs: 500,
      esplora: { BTC: {}, LTC: {} },
      evm: { ethereum: { test: anvil.url }, bsc: {} },
      testChainIds: { ethereum: anvil.chainId },
      evmTuning: { headMaxAgeMs: 0 },
    });
    const address = `0x${"ab".repeat(20)}`;
    const pass = async () => {
      const since = new Date(Date.now() - 60_000);
      chains.beginPass([{ currency: ETH, isLive: false, address, since, receipts: [] }]);
      const receipts = await chains.receiptsTo(ETH, false, address, { since, requiredConfirmations: 1 });
      return receipts.map((r) => `${r.txHash} ${r.confirmations}`);
    };
    expect(await pass()).toEqual([]);
    const txHash = await anvil.sendTransaction({ to: address, value: 10n ** 15n });
    await anvil.mine(2);

    anvil.pause();
    try {
      const error = await failedPass(pass());
      expect(error.reason).toBe("timeout");
      expect(error.message).toMatch(/no complete answer within 500 ms/);
    } finally {
      anvil.resume();
    }
    expect(await pass()).toEqual([`${txHash} 3`]);
  });
});
