// The EVM chain watcher against a real node: anvil (Foundry), a local Ethereum node with dev accounts
// that sign real transactions. Native payments are found in the blocks (one receipt per transfer,
// with its hash and growing confirmations), a reorganisation takes them away, value moved inside a
// contract call is the balance fallback, a restarted watcher keeps the receipts recorded before
// (older than its scan reaches) while their blocks stand, tokens are read from their Transfer logs, a
// node on the wrong chain is refused, and the requests of a pass do not grow with the addresses watched.
// No database: this file runs once per CI run (vitest.config.ts).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cryptoBySlug, type CryptoCurrency, type CryptoSlug } from "../../../src/core/money/currencies.ts";
import type { ObservedReceipt } from "../../../src/core/ports.ts";
import { ChainNodeError } from "../../../src/rails/chains/errors.ts";
import { EvmRpcClient } from "../../../src/rails/chains/evm-rpc.ts";
import { ChainWatchers } from "../../../src/rails/chains/index.ts";
import type { ChainWatchersOptions } from "../../../src/rails/chains/options.ts";
import { USDT_SEPOLIA_CONTRACT } from "../../../src/rails/wallets/networks.ts";
import { DEV_ACCOUNT, startAnvil, type Anvil } from "../../support/anvil.ts";
import { useRecordingServers } from "../../support/recording-server.ts";

const SEPOLIA = 11_155_111;
const ETHER = 10n ** 18n;
const coin = (slug: CryptoSlug) => cryptoBySlug(slug) as CryptoCurrency;
const compiled = JSON.parse(readFileSync(new URL("token/TestToken.json", import.meta.url), "utf8")) as {
  contracts: Record<"TestToken6" | "TestToken18" | "Forwarder", { deployedBytecode: string }>;
};

let anvil: Anvil;
beforeAll(async () => {
  anvil = await startAnvil({ chainId: SEPOLIA });
});
afterAll(() => anvil.stop());

const serve = useRecordingServers();

/** A proxy to anvil that records the methods asked, and breaks connections while `broken`. */
async function proxy(target: string) {
  const state = { broken: false };
  const server = await serve((res, req) => {
    if (state.broken) {
      res.socket?.destroy();
      return;
    }
    void fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: req.body }).then(async (answer) => {
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(await answer.text());
    });
  });
  const calls = () => server.requests.map((r) => JSON.parse(r.body) as { method: string; params: unknown[] });
  const methods = () => calls().map((c) => c.method);
  return { url: server.url, state, calls, methods };
}

/** A fresh address: nothing was ever sent to it. */
const newAddress = () => `0x${randomBytes(20).toString("hex")}`;

/** ABI encoding of a call with address and uint256 arguments. */
function abiCall(signature: string, ...args: (string | bigint)[]): string {
  const selector = bytesToHex(keccak_256(utf8ToBytes(signature)).slice(0, 4));
  return `0x${selector}${args.map((a) => BigInt(a).toString(16).padStart(64, "0")).join("")}`;
}

/** Watchers of test mode (Sepolia) on the anvil node, reading a new head at every call. */
function watchers(overrides: Partial<ChainWatchersOptions> = {}) {
  return new ChainWatchers({
    timeoutMs: 5000,
    esplora: { BTC: {}, LTC: {} },
    evm: { ethereum: { test: anvil.url }, bsc: {} },
    evmTuning: { headMaxAgeMs: 0 },
    ...overrides,
  });
}

const view = (receipts: ObservedReceipt[]) =>
  receipts.map((r) => ({ key: r.key, txHash: r.txHash, amount: r.amount.toFixed(), confirmations: r.confirmations, blockHeight: r.blockHeight }));

const ethTo = (w: ChainWatchers, address: string, since: Date, requiredConfirmations = 3) =>
  w.receiptsTo(coin("ETH"), false, address, { since, requiredConfirmations });

describe("native ETH on anvil: one receipt per transfer", () => {
  it("shows a payment with its hash and block, 1 confirmation in its block, then 2 and 3 as blocks are mined", async () => {
    const w = watchers();
    const me = newAddress();
    const since = new Date();
    expect(await ethTo(w, me, since)).toEqual([]);

    const tx = await anvil.sendTransaction({ to: me, value: ETHER / 4n });
    const block = await anvil.blockOf(tx);
    const seen = { key: tx, txHash: tx, amount: "0.25", blockHeight: block };
    expect(view(await ethTo(w, me, since))).toEqual([{ ...seen, confirmations: 1 }]);
    await anvil.mine();
    expect(view(await ethTo(w, me, since))).toEqual([{ ...seen, confirmations: 2 }]);
    await anvil.mine();
    expect(view(await ethTo(w, me, since))).toEqual([{ ...seen, confirmations: 3 }]);
  });

  it("gives two payments to one address as two receipts, and nothing of a payment to another address", async () => {
    const w = watchers();
    const [me, other] = [newAddress(), newAddress()];
    const since = new Date();
    const first = await anvil.sendTransaction({ to: me, value: ETHER });
    await anvil.sendTransaction({ to: other, value: 5n * ETHER });
    const second = await anvil.sendTransaction({ to: me, value: 1n }); // 1 wei: exact
    const receipts = view(await ethTo(w, me, since));
    expect(receipts).toEqual([
      { key: first, txHash: first, amount: "1", confirmations: 3, blockHeight: await anvil.blockOf(first) },
      { key: second, txHash: second, amount: "0.000000000000000001", confirmations: 1, blockHeight: await anvil.blockOf(second) },
    ]);
  });

  it("drops a payment whose block a reorganisation replaced (anvil_reorg), at the next read", async () => {
    const w = watchers();
    const me = newAddress();
    const since = new Date();
    const tx = await anvil.sendTransaction({ to: me, value: ETHER });
    await anvil.mine(2);
    expect((await ethTo(w, me, since)).map((r) => [r.key, r.confirmations])).toEqual([[tx, 3]]);
    await anvil.reorg(3); // the payment's block and the two after it, replaced by empty blocks
    expect(await ethTo(w, me, since)).toEqual([]);
  });

  it("reads again at the new head, not as a node failure, when a reorganisation took the block its view was of (anvil: -32001 for a balance at that hash)", async () => {
    const node = await proxy(anvil.url);
    // One view of the chain serves the reads of a minute (as within a watcher pass): the reorganisation comes between its sync and the balance.
    const w = watchers({ evm: { ethereum: { test: node.url }, bsc: {} }, evmTuning: { headMaxAgeMs: 60_000 } });
    const me = newAddress();
    const since = new Date();
    const tx = await anvil.sendTransaction({ to: me, value: ETHER });
    await anvil.mine(1);
    const head = (await anvil.send("eth_getBlockByNumber", ["latest", false])) as { hash: string };
    expect((await ethTo(w, me, since)).map((r) => [r.key, r.confirmations])).toEqual([[tx, 2]]);
    await anvil.reorg(2); // the payment's block and the head, replaced by empty blocks
    await expect(anvil.send("eth_getBalance", [me, { blockHash: head.hash }])).rejects.toThrow(/Resource not found/);
    expect(await ethTo(w, me, since)).toEqual([]);
    const balances = node.calls().filter((c) => c.method === "eth_getBalance");
    expect(balances.map((c) => (c.params[1] as { blockHash: string }).blockHash)).toEqual([
      head.hash,
      head.hash,
      expect.not.stringMatching(head.hash),
    ]);
  });

  it("drops a payment that a revert to an earlier snapshot took away, once the chain grows past it again", async () => {
    const w = watchers();
    const me = newAddress();
    const since = new Date();
    const snapshot = await anvil.snapshot();
    const tx = await anvil.sendTransaction({ to: me, value: ETHER });
    expect((await ethTo(w, me, since)).map((r) => r.key)).toEqual([tx]);
    await anvil.revert(snapshot);
    expect(await ethTo(w, me, since)).toEqual([]); // a shorter chain
    await anvil.mine(3); // longer than before, without the payment
    expect(await ethTo(w, me, since)).toEqual([]);
  });

  it("counts value moved inside a contract call as the balance beyond the transfers found, never twice", async () => {
    const w = watchers();
    const me = newAddress();
    const forwarder = newAddress();
    await anvil.setCode(forwarder, compiled.contracts.Forwarder.deployedBytecode);
    const since = new Date();
    const direct = await anvil.sendTransaction({ to: me, value: ETHER });
    // A call to the forwarder: the block's transaction goes to the contract, which pays `me`.
    await anvil.sendTransaction({ to: forwarder, value: ETHER / 2n, data: abiCall("forward(address)", me) });
    expect(view(await ethTo(w, me, since))).toEqual([
      { key: direct, txHash: direct, amount: "1", confirmations: 2, blockHeight: await anvil.blockOf(direct) },
      { key: "balance:internal:unconfirmed", txHash: null, amount: "0.5", confirmations: 0, blockHeight: null },
    ]);
    await anvil.mine(); // the internal transfer has 2 confirmations, the direct one 3
    expect(view(await ethTo(w, me, since, 2)).map((r) => [r.key, r.amount, r.confirmations])).toEqual([
      [direct, "1", 3],
      ["balance:internal:confirmed", "0.5", 2],
    ]);
  });

  it("leaves out a transaction to the address that reverted (the address has code that refuses coins)", async () => {
    const w = watchers();
    const me = newAddress();
    await anvil.setCode(me, "0x5f5ffd"); // PUSH0 PUSH0 REVERT
    const since = new Date();
    const tx = await anvil.sendTransaction({ to: me, value: ETHER, gas: 100_000n });
    expect(((await anvil.send("eth_getTransactionReceipt", [tx])) as { status: string }).status).toBe("0x0");
    expect(await ethTo(w, me, since)).toEqual([]);
  });

  it("finds, for an address first asked about long after its payment, the transfer older than the window", async () => {
    const me = newAddress();
    const since = new Date();
    const tx = await anvil.sendTransaction({ to: me, value: ETHER });
    await anvil.mine(100); // the scanner keeps at least 64 blocks whole
    const w = watchers(); // a restarted service
    expect(view(await ethTo(w, me, since))).toEqual([{ key: tx, txHash: tx, amount: "1", confirmations: 101, blockHeight: await anvil.blockOf(tx) }]);
  });
});

describe("native ETH after a restart: the receipts recorded before, older than the scan reaches", () => {
  /** A restarted service: a new client (empty scan cache) whose scan reaches 64 blocks back. */
  const restarted = (url = anvil.url) =>
    watchers({ evm: { ethereum: { test: url }, bsc: {} }, evmTuning: { headMaxAgeMs: 0, scanLookbackSeconds: 0 } });

  /** One watcher pass over `address`, given the keys of its receipts recorded so far, as PaymentWatcher makes it. */
  const pass = (w: ChainWatchers, address: string, since: Date, recorded: string[]) => {
    w.beginPass([{ currency: coin("ETH"), isLive: false, address, since, receipts: recorded.map((key) => ({ key })) }]);
    return ethTo(w, address, since);
  };

  it("gives back the payment's own receipt with its confirmations, no balance:internal one, looked up once", async () => {
    const me = newAddress();
    const since = new Date();
    const tx = await anvil.sendTransaction({ to: me, value: ETHER });
    const block = await anvil.blockOf(tx);
    await anvil.mine(100); // past the 64 blocks the restarted scan reads
    // Without the receipts recorded, the scan misses it and only the balance tells of it.
    expect(view(await pass(restarted(), me, since, []))).toEqual([
      { key: "balance:internal:confirmed", txHash: null, amount: "1", confirmations: 3, blockHeight: null },
    ]);

    const p = await proxy(anvil.url);
    const w = restarted(p.url);
    const own = { key: tx, txHash: tx, amount: "1", blockHeight: block };
    expect(view(await pass(w, me, since, [tx]))).toEqual([{ ...own, confirmations: 101 }]);
    expect(p.methods().filter((m) => m === "eth_getTransactionByHash")).toHaveLength(1);
    // The next pass has it: neither the transaction nor its block is asked again.
    await anvil.mine();
    const before = p.calls().length;
    expect(view(await pass(w, me, since, [tx]))).toEqual([{ ...own, confirmations: 102 }]);
    const asked = p.calls().slice(before);
    expect(asked.filter((c) => c.method === "eth_getTransactionByHash")).toEqual([]);
    expect(asked.filter((c) => c.method === "eth_getBlockByNumber" && Number(c.params[0]) === block)).toEqual([]);
  });

  it("drops a recorded payment whose block a reorganisation replaced, however old", async () => {
    const me = newAddress();
    const since = new Date();
    const tx = await anvil.sendTransaction({ to: me, value: ETHER });
    await anvil.mine(100);
    expect((await pass(restarted(), me, since, [tx])).map((r) => [r.key, r.confirmations])).toEqual([[tx, 101]]);
    await anvil.reorg(101); // its block and the 100 after it, replaced by empty blocks
    expect(await pass(restarted(), me, since, [tx])).toEqual([]);
  });
});

describe("ERC-20 tokens on anvil: Transfer logs of a real transfer", () => {
  it("reads a 6-decimal token placed at the configured USDT address, with growing confirmations", async () => {
    await anvil.setCode(USDT_SEPOLIA_CONTRACT, compiled.contracts.TestToken6.deployedBytecode);
    const w = watchers();
    const me = newAddress();
    const since = new Date();
    await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 1_000_000_000n) });
    const tx = await anvil.sendTransaction({ to: USDT_SEPOLIA_CONTRACT, data: abiCall("transfer(address,uint256)", me, 12_500_001n) });
    const block = await anvil.blockOf(tx);
    const usdt = () => w.receiptsTo(coin("USDT"), false, me, { since, requiredConfirmations: 3 });
    expect(view(await usdt())).toEqual([{ key: `${tx}:0`, txHash: tx, amount: "12.500001", confirmations: 1, blockHeight: block }]);
    await anvil.mine(2);
    expect((await usdt()).map((r) => r.confirmations)).toEqual([3]);
    // Coins sent to the address are not tokens, and the other way round.
    expect(await ethTo(w, me, since)).toEqual([]);
  });

  it("reads an 18-decimal token exactly", async () => {
    const contract = newAddress();
    await anvil.setCode(contract, compiled.contracts.TestToken18.deployedBytecode);
    const me = newAddress();
    const since = new Date();
    await anvil.sendTransaction({ to: contract, data: abiCall("mint(address,uint256)", DEV_ACCOUNT, 10n * ETHER) });
    const tx = await anvil.sendTransaction({ to: contract, data: abiCall("transfer(address,uint256)", me, ETHER + 1n) });
    const client = new EvmRpcClient({ url: anvil.url, timeoutMs: 5000, blockTimeSeconds: 12, headMaxAgeMs: 0 });
    expect(view(await client.tokenReceipts({ contract, decimals: 18 }, me, { since }))).toEqual([
      { key: `${tx}:0`, txHash: tx, amount: "1.000000000000000001", confirmations: 1, blockHeight: await anvil.blockOf(tx) },
    ]);
  });
});

describe("the node's chain (eth_chainId)", () => {
  it("refuses a node on another chain than the mode's, reading nothing from it, with the variable to fix", async () => {
    const p = await proxy(anvil.url);
    const w = watchers({ evm: { ethereum: { live: p.url }, bsc: {} } }); // live mode wants Ethereum mainnet
    const message = `Ethereum JSON-RPC (${new URL(p.url).host}): the node is on chain id 11155111 (Ethereum Sepolia testnet), not 1 (Ethereum): set PAYGATE_ETH_RPC_URL to a node of Ethereum`;
    for (const slug of ["ETH", "USDT", "ETH"] as const) {
      const error = await w.receiptsTo(coin(slug), true, newAddress(), { since: new Date(), requiredConfirmations: 3 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainNodeError);
      expect((error as Error).message).toBe(message);
    }
    expect(p.methods()).toEqual(["eth_chainId"]); // asked once, and nothing else
  });

  it("accepts a local chain id in test mode only where configured, and says how", async () => {
    const local = await startAnvil({ chainId: 31337 });
    try {
      const me = newAddress();
      const since = new Date();
      const refused = watchers({ evm: { ethereum: { test: local.url }, bsc: {} } });
      await expect(ethTo(refused, me, since)).rejects.toThrow(
        `Ethereum Sepolia testnet JSON-RPC (${new URL(local.url).host}): the node is on chain id 31337, not 11155111 (Ethereum Sepolia testnet): set PAYGATE_ETH_TEST_RPC_URL to a node of Ethereum Sepolia testnet (or PAYGATE_ETH_TEST_CHAIN_ID=31337 for a local development chain)`,
      );
      const accepted = watchers({ evm: { ethereum: { test: local.url }, bsc: {} }, testChainIds: { ethereum: 31337 } });
      const tx = await local.sendTransaction({ to: me, value: ETHER });
      expect((await ethTo(accepted, me, since)).map((r) => r.key)).toEqual([tx]);
      // The override names the chain expected; the Sepolia node is then the wrong one.
      const wrong = watchers({ testChainIds: { ethereum: 31337 } });
      await expect(ethTo(wrong, me, since)).rejects.toThrow(
        `Ethereum Sepolia testnet JSON-RPC (${new URL(anvil.url).host}): the node is on chain id 11155111 (Ethereum Sepolia testnet), not 31337 (PAYGATE_ETH_TEST_CHAIN_ID): set PAYGATE_ETH_TEST_RPC_URL to a node of chain 31337, or PAYGATE_ETH_TEST_CHAIN_ID to the node's`,
      );
    } finally {
      await local.stop();
    }
  });

  it("asks the chain id at the first call, and again after a connection failure", async () => {
    const p = await proxy(anvil.url);
    const w = watchers({ evm: { ethereum: { test: p.url }, bsc: {} } });
    const me = newAddress();
    const since = new Date();
    await ethTo(w, me, since);
    await ethTo(w, me, since);
    const asked = () => p.methods().filter((m) => m === "eth_chainId").length;
    expect(asked()).toBe(1);
    p.state.broken = true;
    await expect(ethTo(w, me, since)).rejects.toThrow(ChainNodeError);
    p.state.broken = false;
    await ethTo(w, me, since);
    expect(asked()).toBe(2);
    expect(p.methods().at(-1)).not.toBe("eth_chainId"); // then the reads
  });
});

describe("node requests per pass", () => {
  it("reads each block once per pass whatever the number of addresses: 1 and 50 pending addresses cost the same block reads", async () => {
    const since = new Date();
    const addresses = Array.from({ length: 50 }, newAddress);
    for (const to of addresses.slice(0, 5)) await anvil.sendTransaction({ to, value: ETHER });
    await anvil.mine(10);

    /** One watcher pass over `watched`, as PaymentWatcher makes it, through a counting proxy. */
    async function passes(watched: string[]) {
      const p = await proxy(anvil.url);
      // A pass reads one head, however long it lasts; the next pass reads a new one.
      const w = watchers({ evm: { ethereum: { test: p.url }, bsc: {} }, evmTuning: { headMaxAgeMs: 3_600_000 } });
      const pass = async () => {
        const before = p.methods().length;
        const payments = watched.map((address) => ({ currency: coin("ETH"), isLive: false, address, since, receipts: [] }));
        w.beginPass(payments);
        const receipts = await Promise.all(payments.map((x) => ethTo(w, x.address, since)));
        const asked = p.methods().slice(before);
        const count = (method: string) => asked.filter((m) => m === method).length;
        return {
          receipts: receipts.flat().length,
          blockReads: count("eth_getBlockByNumber"),
          heads: count("eth_blockNumber"),
          balances: count("eth_getBalance"),
          statuses: count("eth_getTransactionReceipt"),
          total: asked.length,
        };
      };
      const first = await pass();
      await anvil.mine(3);
      const second = await pass();
      return { first, second };
    }

    // Both on the same chain: the blocks the first mined are reverted before the second.
    const snapshot = await anvil.snapshot();
    const one = await passes(addresses.slice(0, 1));
    await anvil.revert(snapshot);
    const fifty = await passes(addresses);
    console.log(`requests per pass, 1 address: ${JSON.stringify(one)}; 50 addresses: ${JSON.stringify(fifty)}`);
    expect([one.first.receipts, fifty.first.receipts]).toEqual([1, 5]);
    expect(fifty.first.blockReads).toBe(one.first.blockReads);
    expect(fifty.first.heads).toBe(one.first.heads);
    expect(fifty.second.blockReads).toBe(one.second.blockReads);
    expect(fifty.second.blockReads).toBe(3); // the three new blocks, once each
    expect(fifty.second.heads).toBe(1);
    // What does grow: one balance read per address (the fallback), and one status per transfer found, once.
    expect([one.second.balances, fifty.second.balances]).toEqual([1, 50]);
    expect([one.second.statuses, fifty.second.statuses]).toEqual([0, 0]);
  });
});
