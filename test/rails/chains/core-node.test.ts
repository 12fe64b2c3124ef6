// The own-node backend (core-rpc.ts) against a real node: Litecoin Core on regtest, whose RPC is
// Bitcoin Core's. Payments signed by the node's own wallet to addresses the watcher takes as strings
// (regtest rltc1…, from a wallet of the node: test mode derives testnet tltc1… addresses). No
// database: this file runs once per CI run (vitest.config.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency } from "../../../src/core/money/currencies.ts";
import { ChainWatchers } from "../../../src/rails/chains/index.ts";
import { CoreRpcClient, type CoreRpcOptions, withChecksum } from "../../../src/rails/chains/core-rpc.ts";
import { ChainNodeError } from "../../../src/rails/chains/errors.ts";
import { CORE_NODE_VARIABLES, ChainEnvSchema, chainConfig } from "../../../src/rails/chains/config.ts";
import { useRecordingServers } from "../../support/recording-server.ts";
import { FUNDER, startLitecoind, type Litecoind } from "../../support/litecoind.ts";

const LTC = cryptoBySlug("LTC") as CryptoCurrency;
const SINCE = new Date(0);
const VARIABLES = CORE_NODE_VARIABLES.LTC.test;

let node: Litecoind;
beforeAll(async () => {
  node = await startLitecoind();
});
afterAll(() => node?.stop());

let wallets = 0;
/** A watcher of LTC test on the node, with a wallet of its own (created by the watcher). */
function watcher(url = node.url, wallet = `paygate${++wallets}`) {
  return new ChainWatchers({
    timeoutMs: 10_000,
    esplora: { BTC: {}, LTC: {} },
    evm: { ethereum: {}, bsc: {} },
    coreNodes: { LTC: { test: { url, chain: "regtest" } } },
    nodeWallet: wallet,
  });
}

/** A client of the node (regtest, its URL's credentials) with a wallet of its own. */
const client = (options: Partial<CoreRpcOptions> & { wallet: string }) =>
  new CoreRpcClient({ url: node.url, chain: "regtest", timeoutMs: 10_000, variables: VARIABLES, ...options });

/** What a pass gives a client: the addresses, each handed out at `since`. */
const handedOutAt = (since: Date, ...addresses: string[]) => addresses.map((address) => ({ address, since }));

/** One pass over `addresses`, as the payment watcher makes it: the receipts of each. */
async function pass(chains: ChainWatchers, addresses: string[]) {
  await node.walletsCaughtUp();
  chains.beginPass(addresses.map((address) => ({ currency: LTC, isLive: false, address, since: SINCE, receipts: [] })));
  const out = new Map<string, { key: string; amount: string; confirmations: number; txHash: string | null }[]>();
  for (const address of addresses) {
    const receipts = await chains.receiptsTo(LTC, false, address, { since: SINCE, requiredConfirmations: 6 });
    out.set(
      address,
      receipts.map((r) => ({ key: r.key, amount: r.amount.toString(), confirmations: r.confirmations, txHash: r.txHash })),
    );
  }
  return out;
}

async function voutTo(txid: string, address: string): Promise<number> {
  const tx = (await node.send("getrawtransaction", [txid, true])) as { vout: { n: number; scriptPubKey: { addresses?: string[] } }[] };
  const output = tx.vout.find((o) => o.scriptPubKey.addresses?.includes(address));
  if (!output) throw new Error(`${txid} pays nothing to ${address}`);
  return output.n;
}

async function pay(address: string, amount: number, replaceable = false): Promise<string> {
  const txid = String(await node.send("sendtoaddress", [address, amount, "", "", false, replaceable], FUNDER));
  await node.walletsCaughtUp();
  return txid;
}

describe("own node (Litecoin Core regtest)", () => {
  it("computes descriptor checksums as the node does", async () => {
    const address = await node.newAddress();
    const info = (await node.send("getdescriptorinfo", [`addr(${address})`])) as { checksum: string };
    expect(withChecksum(`addr(${address})`)).toBe(`addr(${address})#${info.checksum}`);
  });

  it("sees a payment at 0 confirmations, then 1 and 2 as blocks are mined; two payments are two receipts", async () => {
    const chains = watcher();
    const address = await node.newAddress();
    expect((await pass(chains, [address])).get(address)).toEqual([]);
    const txid = await pay(address, 1.25);
    const key = `${txid}:${await voutTo(txid, address)}`;
    expect((await pass(chains, [address])).get(address)).toEqual([{ key, txHash: txid, amount: "1.25", confirmations: 0 }]);
    await node.mine(1);
    expect((await pass(chains, [address])).get(address)).toEqual([{ key, txHash: txid, amount: "1.25", confirmations: 1 }]);
    await node.mine(1);
    expect((await pass(chains, [address])).get(address)).toEqual([{ key, txHash: txid, amount: "1.25", confirmations: 2 }]);

    const second = await pay(address, 0.5);
    const receipts = (await pass(chains, [address])).get(address);
    expect(receipts).toEqual([
      { key, txHash: txid, amount: "1.25", confirmations: 2 },
      { key: `${second}:${await voutTo(second, address)}`, txHash: second, amount: "0.5", confirmations: 0 },
    ]);
    await node.mine(1);
  });

  it("gives each output of one transaction to watched addresses its own receipt", async () => {
    const chains = watcher();
    const [a, b] = [await node.newAddress(), await node.newAddress()];
    await pass(chains, [a, b]);
    const txid = String(await node.send("sendmany", ["", { [a]: 0.1, [b]: 0.2 }], FUNDER));
    const seen = await pass(chains, [a, b]);
    expect(seen.get(a)).toEqual([{ key: `${txid}:${await voutTo(txid, a)}`, txHash: txid, amount: "0.1", confirmations: 0 }]);
    expect(seen.get(b)).toEqual([{ key: `${txid}:${await voutTo(txid, b)}`, txHash: txid, amount: "0.2", confirmations: 0 }]);
    await node.mine(1);
  });

  it("drops a payment that a reorganisation takes away before it is confirmed enough", async () => {
    const chains = watcher();
    const address = await node.newAddress();
    await pass(chains, [address]);
    // A payment spending a coinbase that has just matured: once the block that matured it is
    // invalidated, the payment is invalid and leaves the mempool for good.
    const [coinbaseBlock] = await node.mine(1);
    const blocks = await node.mine(99);
    const block = (await node.send("getblock", [coinbaseBlock, 2])) as { tx: { txid: string; vout: { value: number }[] }[] };
    const coinbase = block.tx[0] as { txid: string; vout: { value: number }[] };
    const change = ((coinbase.vout[0] as { value: number }).value - 1.001).toFixed(8);
    const raw = await node.send("createrawtransaction", [[{ txid: coinbase.txid, vout: 0 }], { [address]: 1, [await node.newAddress()]: change }]);
    const signed = (await node.send("signrawtransactionwithwallet", [raw], FUNDER)) as { hex: string };
    const txid = String(await node.send("sendrawtransaction", [signed.hex]));
    const key = `${txid}:${await voutTo(txid, address)}`;
    await node.mine(1);
    expect((await pass(chains, [address])).get(address)).toEqual([{ key, txHash: txid, amount: "1", confirmations: 1 }]);

    await node.send("invalidateblock", [blocks.at(-1)]);
    expect(await node.send("getrawmempool")).not.toContain(txid);
    expect((await pass(chains, [address])).get(address)).toEqual([]);
    await node.mine(3);
    expect((await pass(chains, [address])).get(address)).toEqual([]);
  });

  it("counts a payment whose block is reorganised away as unconfirmed again while the mempool holds it", async () => {
    const chains = watcher();
    const address = await node.newAddress();
    await pass(chains, [address]);
    const txid = await pay(address, 0.4);
    const key = `${txid}:${await voutTo(txid, address)}`;
    const [block] = await node.mine(1);
    expect((await pass(chains, [address])).get(address)).toEqual([{ key, txHash: txid, amount: "0.4", confirmations: 1 }]);
    await node.send("invalidateblock", [block]);
    expect((await pass(chains, [address])).get(address)).toEqual([{ key, txHash: txid, amount: "0.4", confirmations: 0 }]);
    await node.send("reconsiderblock", [block]);
    expect((await pass(chains, [address])).get(address)).toEqual([{ key, txHash: txid, amount: "0.4", confirmations: 1 }]);
  });

  it("keeps only the replacement of a payment bumped by fee (RBF) and ends the replaced one", async () => {
    const chains = watcher();
    const address = await node.newAddress();
    await pass(chains, [address]);
    const original = await pay(address, 0.75, true);
    const originalKey = `${original}:${await voutTo(original, address)}`;
    expect((await pass(chains, [address])).get(address)?.map((r) => r.key)).toEqual([originalKey]);

    const bumped = (await node.send("bumpfee", [original], FUNDER)) as { txid: string };
    const replacement = { key: `${bumped.txid}:${await voutTo(bumped.txid, address)}`, txHash: bumped.txid, amount: "0.75" };
    expect((await pass(chains, [address])).get(address)).toEqual([{ ...replacement, confirmations: 0 }]);
    await node.mine(1);
    expect((await pass(chains, [address])).get(address)).toEqual([{ ...replacement, confirmations: 1 }]);
  });

  it("finds in the mempool, at 0 confirmations, payments sent before their address was imported (the wallet never saw them)", async () => {
    const chains = watcher(node.url, "early");
    const [a, b] = [await node.newAddress(), await node.newAddress()];
    const final = await pay(a, 0.3);
    const replaceable = await pay(b, 0.2, true);
    // Neither address is in the watcher's wallet yet: the first pass imports them, then reads the mempool.
    const first = await pass(chains, [a, b]);
    expect(first.get(a)).toEqual([{ key: `${final}:${await voutTo(final, a)}`, txHash: final, amount: "0.3", confirmations: 0 }]);
    expect(first.get(b)).toEqual([{ key: `${replaceable}:${await voutTo(replaceable, b)}`, txHash: replaceable, amount: "0.2", confirmations: 0 }]);
    // The wallet itself does not know them (Litecoin Core 0.21 does not look at its mempool on import).
    await expect(node.send("gettransaction", [final, true], "early")).rejects.toThrow(/Invalid or non-wallet transaction id/);
    const signals = await chains.receiptsTo(LTC, false, b, { since: SINCE, requiredConfirmations: 0 });
    expect(signals.map((r) => r.replaceable)).toEqual([true]);
    expect((await chains.receiptsTo(LTC, false, a, { since: SINCE, requiredConfirmations: 0 })).map((r) => r.replaceable)).toEqual([undefined]);
    // Kept across passes while in the mempool, then the wallet lists them from their block.
    expect((await pass(chains, [a, b])).get(a)?.map((r) => r.confirmations)).toEqual([0]);
    await node.mine(1);
    const mined = await pass(chains, [a, b]);
    expect(mined.get(a)?.map((r) => [r.txHash, r.confirmations])).toEqual([[final, 1]]);
    expect(mined.get(b)?.map((r) => [r.txHash, r.confirmations])).toEqual([[replaceable, 1]]);
    expect(((await node.send("gettransaction", [final, true], "early")) as { confirmations: number }).confirmations).toBe(1);
  });

  it("imports an address when it is handed out, before any pass, so a payment right after it is in the wallet", async () => {
    const chains = watcher(node.url, "handout");
    await pass(chains, []); // the wallet exists, nothing is watched
    const address = await node.newAddress();
    await chains.handedOut(LTC, false, address, "litecoin", new Date());
    expect(((await node.send("getaddressinfo", [address], "handout")) as { iswatchonly: boolean }).iswatchonly).toBe(true);
    const txid = await pay(address, 0.15);
    // The wallet saw it arrive (no mempool read needed), and the pass finds it at 0 confirmations.
    await expect(node.send("gettransaction", [txid, true], "handout")).resolves.toMatchObject({ txid, confirmations: 0 });
    expect((await pass(chains, [address])).get(address)).toEqual([
      { key: `${txid}:${await voutTo(txid, address)}`, txHash: txid, amount: "0.15", confirmations: 0 },
    ]);
    await node.mine(1);
  });

  it("makes as many node requests per pass for 30 pending addresses as for 1", async () => {
    const measure = async (count: number) => {
      const rpc = client({ wallet: `flat${count}` });
      const addresses: string[] = [];
      for (let i = 0; i < count; i++) addresses.push(await node.newAddress());
      const perPass: number[] = [];
      for (let i = 0; i < 3; i++) {
        const before = rpc.requests;
        rpc.beginPass(handedOutAt(SINCE, ...addresses));
        for (const address of addresses) await rpc.receiptsTo(address, { since: SINCE });
        perPass.push(rpc.requests - before);
        if (i === 0) await pay(addresses[0] as string, 0.01);
        if (i === 1) await node.mine(1);
      }
      return perPass;
    };
    const one = await measure(1);
    const thirty = await measure(30);
    // First pass: chain check, the wallet (getwalletinfo, loadwallet, createwallet as a descriptor
    // wallet, refused without SQLite, then as a legacy one, getwalletinfo), one batch of getaddressinfo
    // (does the wallet watch them already, as after a restart?), one import for every new address, the
    // mempool read after it (getrawmempool: empty here), listsinceblock. Then getblockchaininfo and
    // listsinceblock, and while a payment is unconfirmed one batch of getmempoolentry.
    expect(one).toEqual([10, 3, 2]);
    expect(thirty).toEqual(one);
  });

  it("refuses a node on another chain than configured, naming the variable", async () => {
    const rpc = client({ wallet: "wrongchain", chain: "test" });
    const address = await node.newAddress();
    const error = await rpc.receiptsTo(address, { since: SINCE }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as Error).message).toBe(
      `Core RPC (${new URL(node.url).host}): the node is on chain "regtest", not "test": nothing is read from it (fix PAYGATE_LTC_TEST_NODE_URL or PAYGATE_LTC_TEST_CHAIN)`,
    );
    // An address handed out is not imported either (nothing is written to such a node).
    await rpc.handedOut(address, new Date());
    const wallets = (await node.send("listwallets")) as string[];
    expect(wallets).not.toContain("wrongchain");
  });

  it("says the credentials were refused, without the password", async () => {
    const url = new URL(node.url);
    url.password = "not-the-password";
    const chains = watcher(url.toString());
    const error = await chains.receiptsTo(LTC, false, await node.newAddress(), { since: SINCE, requiredConfirmations: 6 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as Error).message).toBe(
      `LTC test node (${url.host}): getblockchaininfo: the node refused the credentials (HTTP 401); check PAYGATE_LTC_TEST_NODE_URL`,
    );
    expect((error as Error).message).not.toContain("not-the-password");
    expect((error as Error).message).not.toContain(node.rpcPassword);
  });

  it("refuses a wallet that holds private keys, naming the variable", async () => {
    const chains = watcher(node.url, FUNDER);
    const error = await chains.receiptsTo(LTC, false, await node.newAddress(), { since: SINCE, requiredConfirmations: 6 }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `LTC test node (${new URL(node.url).host}): the wallet "funder" holds private keys, not only watched addresses: set PAYGATE_NODE_WALLET to a new name (it is created) or to a watch-only wallet`,
    );
  });

  it("loads a watch-only wallet that exists on disk but is not loaded, and reads with the cookie file", async () => {
    await node.send("createwallet", ["ondisk", true, true, "", false, false, true]);
    await node.send("unloadwallet", ["ondisk"]);
    const rpc = client({ wallet: "ondisk", url: `http://${new URL(node.url).host}`, cookieFile: `${node.datadir}/regtest/.cookie` });
    const address = await node.newAddress();
    const txid = await pay(address, 0.3);
    // Imported after the payment was sent (the import's rescan reads blocks only): the mempool read after the import finds it.
    expect((await rpc.receiptsTo(address, { since: SINCE })).map((r) => [r.txHash, r.amount.toString(), r.confirmations])).toEqual([
      [txid, "0.3", 0],
    ]);
    await node.mine(1);
    rpc.beginPass(handedOutAt(SINCE, address));
    const receipts = await rpc.receiptsTo(address, { since: SINCE });
    expect(receipts.map((r) => [r.txHash, r.amount.toString(), r.confirmations])).toEqual([[txid, "0.3", 1]]);
    expect((await node.send("listwallets")) as string[]).toContain("ondisk");
  });

  it("names an unreadable cookie file and its variable", async () => {
    const rpc = client({ wallet: "nocookie", url: `http://${new URL(node.url).host}`, cookieFile: `${node.datadir}/missing/.cookie` });
    await expect(rpc.receiptsTo(await node.newAddress(), { since: SINCE })).rejects.toThrow(
      `Core RPC (${new URL(node.url).host}): the cookie file ${node.datadir}/missing/.cookie cannot be read (ENOENT); check PAYGATE_LTC_TEST_NODE_COOKIE_FILE`,
    );
  });
});

describe("own node failures", () => {
  const serve = useRecordingServers();

  it("names the node, the method and the time waited when the node does not answer", async () => {
    const silent = await serve(() => {});
    const rpc = client({ wallet: "w", url: `http://rpcuser:s3cret@127.0.0.1:${silent.port}`, timeoutMs: 200 });
    const error = await rpc.receiptsTo("rltc1qexample", { since: SINCE }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as Error).message).toBe(`Core RPC (127.0.0.1:${silent.port}): getblockchaininfo: no complete answer within 200 ms`);
    // The credentials go in the Authorization header only, never in the request line.
    expect(silent.requests[0]?.url).toBe("/");
    expect(silent.requests[0]?.headers.authorization).toBe(`Basic ${Buffer.from("rpcuser:s3cret").toString("base64")}`);
  });

  it("refuses an answer that is not JSON-RPC, quoting it", async () => {
    const html = await serve((res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>proxy login</html>"));
    const rpc = client({ wallet: "w", url: `http://127.0.0.1:${html.port}` });
    await expect(rpc.receiptsTo("rltc1qexample", { since: SINCE })).rejects.toThrow(
      `Core RPC (127.0.0.1:${html.port}): getblockchaininfo: HTTP 200, not a JSON-RPC answer: <html>proxy login</html>`,
    );
  });

  it("keeps a payment just mined while the wallet has not yet taken in its block (gone from the mempool, unconfirmed in the wallet)", async () => {
    // The wallet follows the node through its validation queue, a moment behind: a real node shows that
    // moment only by chance, so a proxy in front of it answers listsinceblock with the wallet's earlier view.
    let stale: string | null = null;
    let lastListing = "";
    const proxy = await serve((res, req) => {
      const request = JSON.parse(req.body) as { id?: number; method?: string };
      if (request.method === "listsinceblock" && stale !== null) {
        res.writeHead(200, { "content-type": "application/json" }).end(stale.replace(/"id":\s*\d+/, `"id":${request.id}`));
        return;
      }
      const target = new URL(node.url);
      fetch(`http://${target.host}${req.url}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: String(req.headers.authorization) },
        body: req.body,
      })
        .then(async (answer) => {
          const text = await answer.text();
          if (request.method === "listsinceblock") lastListing = text;
          res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
        })
        .catch(() => res.socket?.destroy());
    });
    const behind = new URL(node.url);
    const rpc = client({ wallet: "lagging", url: `http://${behind.username}:${behind.password}@127.0.0.1:${proxy.port}` });
    const address = await node.newAddress();
    await rpc.handedOut(address, new Date());
    const txid = await pay(address, 0.35);
    const key = `${txid}:${await voutTo(txid, address)}`;
    rpc.beginPass(handedOutAt(SINCE, address));
    expect((await rpc.receiptsTo(address, { since: SINCE })).map((r) => [r.key, r.confirmations])).toEqual([[key, 0]]);

    await node.mine(1);
    stale = lastListing; // the wallet still at the block before: the payment unconfirmed, while the mempool no longer holds it
    rpc.beginPass(handedOutAt(SINCE, address));
    expect((await rpc.receiptsTo(address, { since: SINCE })).map((r) => [r.key, r.confirmations])).toEqual([[key, 0]]);
    stale = null;
    rpc.beginPass(handedOutAt(SINCE, address));
    expect((await rpc.receiptsTo(address, { since: SINCE })).map((r) => [r.key, r.confirmations])).toEqual([[key, 1]]);
  });

  it("says which address the node refused to watch, and still reads the others", async () => {
    const rpc = client({ wallet: "refusing" });
    const good = await node.newAddress();
    const testnet = "tltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kwcyyyx";
    rpc.beginPass(handedOutAt(SINCE, good, testnet));
    expect(await rpc.receiptsTo(good, { since: SINCE })).toEqual([]);
    const error = await rpc.receiptsTo(testnet, { since: SINCE }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(new RegExp(`^Core RPC \\(${new URL(node.url).host}\\): the node refused to watch ${testnet}: .+`));
  });
});

describe("own node: an address that reaches the wallet after its payment was mined (issue 42)", () => {
  const serve = useRecordingServers();

  /** A proxy in front of the node that records every request (a JSON-RPC batch is one request). */
  async function recordingProxy() {
    const target = new URL(node.url);
    const proxy = await serve((res, req) => {
      fetch(`http://${target.host}${req.url}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: String(req.headers.authorization) },
        body: req.body,
      })
        .then(async (answer) => res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text()))
        .catch(() => res.socket?.destroy());
    });
    const calls = () => proxy.requests.flatMap((r) => [JSON.parse(r.body) as { method: string; params: unknown[] }].flat());
    return { url: `http://${target.username}:${target.password}@127.0.0.1:${proxy.port}`, calls };
  }

  it("finds a payment mined before its address was imported: the import rescans the blocks from the time it was handed out", async () => {
    const rpc = client({ wallet: "minedbefore" });
    const address = await node.newAddress();
    const handedOut = new Date();
    const txid = await pay(address, 0.45);
    await node.mine(2);
    // The first read imports the address: the payment is in no mempool any more, and in no block after the import.
    expect((await rpc.receiptsTo(address, { since: handedOut })).map((r) => [r.key, r.amount.toString(), r.confirmations])).toEqual([
      [`${txid}:${await voutTo(txid, address)}`, "0.45", 2],
    ]);
    await expect(node.send("gettransaction", [txid, true], "minedbefore")).resolves.toMatchObject({ txid, confirmations: 2 });
  });

  it("after a restart, imports again only the addresses the wallet does not watch from their hand-out time", async () => {
    const first = client({ wallet: "restarted" });
    const [kept, late] = [await node.newAddress(), await node.newAddress()];
    const handedOut = new Date();
    first.beginPass(handedOutAt(handedOut, kept));
    expect(await first.receiptsTo(kept, { since: handedOut })).toEqual([]);
    // `late` reached the wallet as of "now", without a rescan, after its payment was mined (as before issue 42).
    const txid = await pay(late, 0.05);
    await node.mine(1);
    await node.send("importmulti", [[{ scriptPubKey: { address: late }, timestamp: "now", watchonly: true }], { rescan: false }], "restarted");
    // A new client on the same wallet: the service restarted, with nothing imported in its memory.
    const proxy = await recordingProxy();
    const second = client({ wallet: "restarted", url: proxy.url });
    expect((await second.receiptsTo(late, { since: handedOut })).map((r) => [r.txHash, r.confirmations])).toEqual([[txid, 1]]);
    expect(await second.receiptsTo(kept, { since: handedOut })).toEqual([]);
    // One import, of `late` alone: `kept` is watched from its hand-out time already (no second rescan for it).
    const imports = proxy.calls().filter((c) => c.method === "importmulti");
    expect(imports.map((c) => (c.params[0] as { scriptPubKey: { address: string } }[]).map((r) => r.scriptPubKey.address))).toEqual([[late]]);
  });
});

describe("own node configuration", () => {
  it("uses the node instead of Esplora for its coin and mode when its URL is set", async () => {
    const env = ChainEnvSchema.parse({
      PAYGATE_LTC_TEST_NODE_URL: node.url,
      PAYGATE_LTC_TEST_CHAIN: "regtest",
      PAYGATE_NODE_WALLET: "fromenv",
      PAYGATE_BTC_NODE_URL: "http://127.0.0.1:8332",
      PAYGATE_BTC_NODE_COOKIE_FILE: "/var/lib/bitcoind/.cookie",
    });
    const config = chainConfig(env);
    expect(config.coreNodes).toEqual({
      BTC: { live: { url: "http://127.0.0.1:8332", cookieFile: "/var/lib/bitcoind/.cookie", chain: "main" }, test: undefined },
      LTC: { live: undefined, test: { url: node.url, cookieFile: undefined, chain: "regtest" } },
    });
    expect(config.nodeWallet).toBe("fromenv");
    const chains = new ChainWatchers(config);
    expect(chains.nodeVariable(LTC, false)).toBe("PAYGATE_LTC_TEST_NODE_URL");
    expect(chains.nodeVariable(LTC, true)).toBe("PAYGATE_LTC_ESPLORA_URL");
    expect(chains.nodeVariable(cryptoBySlug("BTC") as CryptoCurrency, true)).toBe("PAYGATE_BTC_NODE_URL");
    const address = await node.newAddress();
    await pass(chains, [address]);
    const txid = await pay(address, 0.2);
    expect((await pass(chains, [address])).get(address)?.map((r) => [r.txHash, r.amount, r.confirmations])).toEqual([[txid, "0.2", 0]]);
    expect((await node.send("listwallets")) as string[]).toContain("fromenv");
    await node.mine(1);
  });

  it("defaults to the wallet paygate on a test network node, and refuses bad values with the variable", () => {
    const config = chainConfig(ChainEnvSchema.parse({ PAYGATE_LTC_TEST_NODE_URL: "http://127.0.0.1:19332" }));
    expect(config.nodeWallet).toBe("paygate");
    expect(config.coreNodes?.LTC?.test?.chain).toBe("test");
    const issues = (input: Record<string, string>) => ChainEnvSchema.safeParse(input).error?.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    expect(issues({ PAYGATE_LTC_NODE_URL: "127.0.0.1:9332" })).toEqual(["PAYGATE_LTC_NODE_URL: must be an http:// or https:// URL"]);
    expect(issues({ PAYGATE_LTC_TEST_CHAIN: "signet" })?.[0]).toMatch(/^PAYGATE_LTC_TEST_CHAIN: /);
    expect(issues({ PAYGATE_NODE_WALLET: "../x" })).toEqual(["PAYGATE_NODE_WALLET: must be 1 to 64 letters, digits, dots, dashes or underscores"]);
  });
});
