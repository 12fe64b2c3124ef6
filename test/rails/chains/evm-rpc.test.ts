// The JSON-RPC client against a local node speaking Ethereum JSON-RPC 2.0.
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ObservedReceipt } from "../../../src/core/ports.ts";
import { ChainNodeError } from "../../../src/rails/chains/errors.ts";
import { EvmRpcClient, TRANSFER_TOPIC, type EvmRpcOptions } from "../../../src/rails/chains/evm-rpc.ts";
import { USDT_ETHEREUM_CONTRACT } from "../../../src/rails/wallets/networks.ts";
import { hash, startFakeEvmNode, type FakeEvmNode, type FakeTransfer } from "./fake-evm-node.ts";

const ME = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";
const OTHER = "0x00000000000000000000000000000000000000aa";
const SENDER = "0x00000000000000000000000000000000000000bb";
const USDT = { contract: USDT_ETHEREUM_CONTRACT, decimals: 6 };
const ETHER = 10n ** 18n;

let node: FakeEvmNode;
beforeAll(async () => {
  node = await startFakeEvmNode();
});
afterAll(() => node.close());
beforeEach(() => {
  node.head = 1000;
  node.blockSeconds = 12;
  node.logs = [];
  node.unfilteredLogs = [];
  node.maxLogsRange = null;
  node.calls.length = 0;
  node.failure = null;
  node.transfers = [];
  node.reorg(0);
  node.dropBalancesFrom(ME, 0);
});

/** The fake chain's clock: the head block was just mined. */
const blockTime = (n: number) => new Date((node.genesisTime + n * node.blockSeconds) * 1000);

function client(options: Partial<EvmRpcOptions> = {}) {
  return new EvmRpcClient({
    url: node.url,
    timeoutMs: 1000,
    blockTimeSeconds: 12,
    name: "Ethereum JSON-RPC",
    now: () => blockTime(node.head).getTime(),
    headMaxAgeMs: 0,
    ...options,
  });
}

const view = (receipts: ObservedReceipt[]) =>
  receipts.map((r) => ({ key: r.key, txHash: r.txHash, amount: r.amount.toFixed(), confirmations: r.confirmations, blockHeight: r.blockHeight }));

const transfer = (n: number, blockNumber: number, value: bigint, extra: Partial<Parameters<typeof node.logs.push>[0]> = {}) => ({
  contract: USDT_ETHEREUM_CONTRACT,
  from: SENDER,
  to: ME,
  value,
  blockNumber,
  txHash: hash(n),
  logIndex: n,
  ...extra,
});

describe("JSON-RPC: native coin, transfer by transfer", () => {
  const native = (c: EvmRpcClient, requiredConfirmations = 12, address = ME) =>
    c.nativeReceipts(address, { since: blockTime(990), requiredConfirmations });
  const pay = (n: number, blockNumber: number, value: bigint, extra: Partial<FakeTransfer> = {}) =>
    node.transfers.push({ to: ME, value, txHash: hash(n), blockNumber, ...extra });

  it("gives each transfer found in the blocks, and what the balance holds beyond them (moved inside a contract call)", async () => {
    pay(1, 995, ETHER);
    pay(2, 996, 3n * ETHER, { to: OTHER });
    node.setBalance(ME, 999, ETHER / 2n); // no transaction to ME shows it
    const c = client();
    expect(view(await native(c))).toEqual([
      { key: hash(1), txHash: hash(1), amount: "1", confirmations: 6, blockHeight: 995 },
      { key: "balance:internal:unconfirmed", txHash: null, amount: "0.5", confirmations: 0, blockHeight: null },
    ]);
    const methods = node.calls.map((call) => call.method);
    // The head; the blocks from `since` less the 120 s margin (block 980) to the head, with their
    // transactions; the one transfer's outcome; the balance at the head block (by its hash) and,
    // as it holds more than the transfers, at the first block with 12 confirmations.
    expect(methods.filter((m) => m === "eth_getBlockByNumber")).toHaveLength(1 + 21); // 1: finding block 980 by its timestamp
    expect(node.calls.filter((call) => call.params[1] === true).map((call) => Number(call.params[0]))).toEqual(
      Array.from({ length: 21 }, (_, i) => 980 + i),
    );
    expect(node.calls.filter((call) => call.method === "eth_getBalance").map((call) => call.params)).toEqual([
      [ME, { blockHash: node.blockHash(1000) }],
      [ME, { blockHash: node.blockHash(989) }],
    ]);
    expect(methods.filter((m) => m === "eth_getTransactionReceipt")).toHaveLength(1);

    node.head = 1010; // the internal part has 12 confirmations; the blocks already read are not read again
    node.calls.length = 0;
    expect(view(await native(c)).map((r) => [r.key, r.amount, r.confirmations])).toEqual([
      [hash(1), "1", 16],
      ["balance:internal:confirmed", "0.5", 12],
    ]);
    expect(node.calls.filter((call) => call.params[1] === true).map((call) => Number(call.params[0]))).toEqual(
      Array.from({ length: 10 }, (_, i) => 1001 + i),
    );
    expect(node.calls.some((call) => call.method === "eth_getTransactionReceipt")).toBe(false); // its outcome is known
  });

  it("reads again at the new head a balance beyond the transfers that the node answered from the block it was importing", async () => {
    const c = client();
    expect(await native(c)).toEqual([]); // the view: block 1000, nothing to ME
    // As anvil does: asked for block 1000's state while it imports block 1001, which pays ME, it
    // answers from its live state, which already holds the payment.
    let imported = false;
    node.failure = (call) => {
      if (call.method !== "eth_getBalance" || imported) return null;
      imported = true;
      pay(1, 1001, ETHER);
      node.head = 1001;
      return { rpcResult: `0x${ETHER.toString(16)}` };
    };
    expect(view(await native(c))).toEqual([{ key: hash(1), txHash: hash(1), amount: "1", confirmations: 1, blockHeight: 1001 }]);
    expect(imported).toBe(true);
  });

  it("tells a real internal transfer after one reread, even when the head moves on during every read (a fast chain)", async () => {
    node.setBalance(ME, 999, ETHER / 2n); // no transaction to ME shows it
    const c = client();
    node.failure = (call) => {
      if (call.method === "eth_getBalance") node.head++; // a block is mined during each read
      return null;
    };
    expect(view(await native(c)).map((r) => [r.key, r.amount])).toEqual([["balance:internal:unconfirmed", "0.5"]]);
    expect(node.calls.filter((call) => call.method === "eth_blockNumber").length).toBeGreaterThanOrEqual(2);
  });

  it("asks the balance once when the transfers found hold all of it", async () => {
    pay(1, 999, 2n * ETHER);
    expect(view(await native(client()))).toEqual([{ key: hash(1), txHash: hash(1), amount: "2", confirmations: 2, blockHeight: 999 }]);
    expect(node.calls.filter((call) => call.method === "eth_getBalance")).toHaveLength(1);
  });

  it("keeps wei exact: 1 wei, and more digits than a double holds", async () => {
    pay(1, 995, 1n);
    pay(2, 996, 123_456_789_012_345_678_901_234_567_891n);
    expect(view(await native(client())).map((r) => r.amount)).toEqual(["0.000000000000000001", "123456789012.345678901234567891"]);
  });

  it("counts a transfer in the head block as 1 confirmation", async () => {
    pay(1, 1000, 5n * ETHER);
    for (const required of [0, 1]) expect(view(await native(client(), required))[0]?.confirmations).toBe(1);
  });

  it("leaves out a transaction that reverted, and ignores transfers before `since` less the margin", async () => {
    pay(1, 995, ETHER, { status: 0 });
    pay(2, 900, ETHER); // long before since: a previous use of the address, left to the balance
    expect(view(await native(client()))).toEqual([
      { key: "balance:internal:confirmed", txHash: null, amount: "1", confirmations: 12, blockHeight: null },
    ]);
  });

  it("drops a transfer whose block a reorganisation replaced, on a chain of the same height or a shorter one", async () => {
    pay(1, 995, ETHER);
    const c = client();
    expect((await native(c)).map((r) => r.key)).toEqual([hash(1)]);
    node.reorg(994); // same height, other blocks from 994 on
    node.transfers = [];
    expect(await native(c)).toEqual([]);
    node.head = 1005;
    pay(2, 1003, ETHER);
    expect((await native(c)).map((r) => [r.key, r.confirmations])).toEqual([[hash(2), 3]]);
    node.head = 1002; // the chain went back below the transfer's block
    expect(await native(c)).toEqual([]);
  });

  it("rejects a block without its transactions as objects, a block of another number, and a missing block", async () => {
    const fullBlocks = (result: (number: string) => unknown) => (call: { method: string; params: unknown[] }) =>
      call.method === "eth_getBlockByNumber" && call.params[1] === true ? { rpcResult: result(String(call.params[0])) } : null;
    const block = { hash: hash(1), parentHash: hash(2), timestamp: "0x1" };
    node.failure = fullBlocks((number) => ({ ...block, number, transactions: [hash(3)] })); // hashes only
    await expect(native(client())).rejects.toThrow(
      "Ethereum JSON-RPC: eth_getBlockByNumber answered nonsense: a transaction is not an object (asked with full transactions)",
    );
    node.failure = fullBlocks(() => ({ ...block, number: "0x1", transactions: [] }));
    await expect(native(client())).rejects.toThrow("Ethereum JSON-RPC: eth_getBlockByNumber answered nonsense: block 1 came for block 980");
    node.failure = fullBlocks(() => null);
    await expect(native(client())).rejects.toThrow("Ethereum JSON-RPC: block 980 not found");
  });

  it("rejects when a transfer's receipt is not in the block it was found in (a reorganisation under way)", async () => {
    pay(1, 995, ETHER);
    node.failure = (call) => (call.method === "eth_getTransactionReceipt" ? { rpcResult: null } : null);
    await expect(native(client())).rejects.toThrow(
      `Ethereum JSON-RPC: the receipt of ${hash(1)} is not in block 995 (${node.blockHash(995)}) any more`,
    );
  });
});

describe("JSON-RPC: native transfers recorded before, older than a restarted scan reaches", () => {
  // Addresses handed out 500 blocks ago; the payments 400 and 390 blocks deep, past the scan's 300 blocks (3600 s).
  const since = () => blockTime(500);
  const restarted = (known: string[]) => {
    const c = client();
    c.beginPass([{ address: ME, since: since(), receipts: known.map((key) => ({ key })) }]);
    return c.nativeReceipts(ME, { since: since(), requiredConfirmations: 12 });
  };
  const pay = (n: number, blockNumber: number, value: bigint) => node.transfers.push({ to: ME, value, txHash: hash(n), blockNumber });

  it("looks them up by hash, with one header per block however many it holds, and keeps their keys and confirmations", async () => {
    pay(1, 600, ETHER);
    pay(2, 600, 2n * ETHER);
    pay(3, 610, 3n);
    expect(view(await restarted([hash(1), hash(2), hash(3), "balance:internal:confirmed"]))).toEqual([
      { key: hash(1), txHash: hash(1), amount: "1", confirmations: 401, blockHeight: 600 },
      { key: hash(2), txHash: hash(2), amount: "2", confirmations: 401, blockHeight: 600 },
      { key: hash(3), txHash: hash(3), amount: "0.000000000000000003", confirmations: 391, blockHeight: 610 },
    ]);
    const asked = (method: string, filter: (params: unknown[]) => boolean = () => true) =>
      node.calls.filter((c) => c.method === method && filter(c.params)).length;
    expect(asked("eth_getTransactionByHash")).toBe(3);
    const header = (n: number) => (params: unknown[]) => Number(params[0]) === n && params[1] === false;
    expect([asked("eth_getBlockByNumber", header(600)), asked("eth_getBlockByNumber", header(610))]).toEqual([1, 1]);
  });

  it("gives up those the node has in no block any more: unknown, back in the mempool, or in a block replaced since", async () => {
    const replaced = node.blockHash(600);
    node.reorg(600); // the payments' blocks replaced: the chain holds none of them
    const tx = (n: number, blockNumber: string | null, blockHash: string | null) => ({
      hash: hash(n),
      from: SENDER,
      to: ME.toLowerCase(),
      value: "0xde0b6b3a7640000",
      input: "0x",
      blockNumber,
      blockHash,
    });
    // As a node whose transaction index lags behind its chain might answer.
    const answers = new Map([
      [hash(1), tx(1, "0x258", replaced)],
      [hash(3), tx(3, null, null)],
    ]);
    node.failure = (call) => (call.method === "eth_getTransactionByHash" ? { rpcResult: answers.get(String(call.params[0])) ?? null } : null);
    expect(await restarted([hash(1), hash(2), hash(3)])).toEqual([]);
  });

  it("rejects a lookup that answers another transaction", async () => {
    pay(1, 600, ETHER);
    node.failure = (call) =>
      call.method === "eth_getTransactionByHash"
        ? { rpcResult: { hash: hash(2), to: ME, value: "0x1", blockNumber: "0x258", blockHash: hash(7) } }
        : null;
    await expect(restarted([hash(1)])).rejects.toThrow(
      `Ethereum JSON-RPC: eth_getTransactionByHash answered nonsense: another transaction came for ${hash(1)}`,
    );
  });
});

describe("JSON-RPC: the node's chain", () => {
  it("asks eth_chainId first and refuses a node on another chain, without reading from it", async () => {
    const chain = { id: 11_155_111, network: "Sepolia", variable: "PAYGATE_ETH_TEST_RPC_URL" };
    const error = await client({ chain })
      .nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as Error).message).toBe(
      "Ethereum JSON-RPC: the node is on chain id 1 (Ethereum), not 11155111 (Sepolia): set PAYGATE_ETH_TEST_RPC_URL to a node of Sepolia",
    );
    expect(node.calls.map((call) => call.method)).toEqual(["eth_chainId"]);
  });

  it("asks again after an answer that is not a chain id", async () => {
    const c = client({ chain: { id: 1, network: "Ethereum", variable: "PAYGATE_ETH_RPC_URL" } });
    node.failure = (call) => (call.method === "eth_chainId" ? { raw: `{"jsonrpc":"2.0","id":1,"result":"mainnet"}` } : null);
    await expect(c.blockNumber()).rejects.toThrow('Ethereum JSON-RPC: eth_chainId answered nonsense: "mainnet" is not a hex quantity');
    node.failure = null;
    expect(await c.blockNumber()).toBe(1000);
    expect(await c.blockNumber()).toBe(1000);
    expect(node.calls.map((call) => call.method)).toEqual(["eth_chainId", "eth_chainId", "eth_blockNumber", "eth_blockNumber"]);
  });
});

describe("JSON-RPC: ERC-20 Transfer logs", () => {
  it("finds transfers to the address with the exact filter, amounts exact to the token's 6 decimals", async () => {
    node.logs.push(transfer(1, 995, 1n));
    node.logs.push(transfer(2, 999, 25_000_000n));
    node.logs.push(transfer(3, 996, 7n, { to: OTHER })); // to someone else
    node.logs.push(transfer(4, 997, 9n, { contract: OTHER })); // another token
    node.logs.push(transfer(5, 998, 0n)); // a zero transfer (address poisoning)
    const since = blockTime(990);
    expect(view(await client().tokenReceipts(USDT, ME, { since }))).toEqual([
      { key: `${hash(1)}:1`, txHash: hash(1), amount: "0.000001", confirmations: 6, blockHeight: 995 },
      { key: `${hash(2)}:2`, txHash: hash(2), amount: "25", confirmations: 2, blockHeight: 999 },
    ]);
    const getLogs = node.calls.filter((c) => c.method === "eth_getLogs");
    expect(getLogs).toHaveLength(1);
    // since minus the default 30 min margin = 150 blocks of 12 s before block 990.
    expect(getLogs[0]?.params).toEqual([
      {
        fromBlock: "0x348", // 840
        toBlock: "0x3e8", // 1000
        address: USDT_ETHEREUM_CONTRACT.toLowerCase(),
        topics: [TRANSFER_TOPIC, null, `0x000000000000000000000000${ME.slice(2).toLowerCase()}`],
      },
    ]);
  });

  it("uses the keccak-256 topic of Transfer(address,address,uint256)", () => {
    expect(TRANSFER_TOPIC).toBe(`0x${bytesToHex(keccak_256(utf8ToBytes("Transfer(address,address,uint256)")))}`);
  });

  it("counts confirmations as the head moves", async () => {
    node.logs.push(transfer(1, 1000, 1_000_000n));
    const c = client();
    const since = blockTime(990);
    expect((await c.tokenReceipts(USDT, ME, { since }))[0]?.confirmations).toBe(1);
    node.head = 1011;
    expect((await c.tokenReceipts(USDT, ME, { since }))[0]?.confirmations).toBe(12);
  });

  it("follows reorganisations: a log flagged removed, moved to another block, or gone", async () => {
    node.logs.push(transfer(1, 995, 1_000_000n));
    node.logs.push(transfer(2, 996, 2_000_000n));
    const c = client();
    const since = blockTime(990);
    expect((await c.tokenReceipts(USDT, ME, { since })).map((r) => r.key)).toEqual([`${hash(1)}:1`, `${hash(2)}:2`]);
    node.logs[0]!.removed = true;
    node.logs[1]!.blockNumber = 999;
    expect(view(await c.tokenReceipts(USDT, ME, { since }))).toEqual([
      { key: `${hash(2)}:2`, txHash: hash(2), amount: "2", confirmations: 2, blockHeight: 999 },
    ]);
    node.logs = [];
    expect(await c.tokenReceipts(USDT, ME, { since })).toEqual([]);
  });

  it("splits a long range into chunks within the provider's cap, covering every block once", async () => {
    node.head = 5000;
    node.maxLogsRange = 1000; // the node refuses more
    node.logs.push(transfer(1, 1800, 1n)); // before since minus the margin: not asked for
    node.logs.push(transfer(2, 1900, 2n));
    node.logs.push(transfer(3, 3850, 3n));
    node.logs.push(transfer(4, 5000, 4n));
    const receipts = await client({ maxBlockRange: 1000 }).tokenReceipts(USDT, ME, { since: blockTime(2000) });
    expect(receipts.map((r) => r.amount.toFixed())).toEqual(["0.000002", "0.000003", "0.000004"]);
    expect(node.getLogsRanges()).toEqual([
      [1850, 2849],
      [2850, 3849],
      [3850, 4849],
      [4850, 5000],
    ]);
  });

  it("reaches back far enough when blocks come faster than the nominal block time", async () => {
    node.blockSeconds = 3; // the client assumes 12
    node.head = 10_000;
    node.logs.push(transfer(1, 8500, 1_000_000n));
    const c = client();
    const since = blockTime(9000); // since minus 30 min is block 8400
    expect((await c.tokenReceipts(USDT, ME, { since })).map((r) => r.key)).toEqual([`${hash(1)}:1`]);
    expect(node.getLogsRanges()[0]?.[0]).toBe(8400);
    expect(node.calls.filter((call) => call.method === "eth_getBlockByNumber").map((call) => Number(call.params[0]))).toEqual([9600, 9200, 8400]);
    // The starting block is remembered for this `since`.
    node.calls.length = 0;
    await c.tokenReceipts(USDT, ME, { since });
    expect(node.calls.map((call) => call.method)).toEqual(["eth_blockNumber", "eth_getLogs"]);
  });

  it("starts at block 0 when `since` is before the chain began", async () => {
    node.head = 100;
    node.logs.push(transfer(1, 0, 5n));
    expect(await client().tokenReceipts(USDT, ME, { since: new Date(0) })).toHaveLength(1);
    expect(node.getLogsRanges()).toEqual([[0, 100]]);
  });

  it("ignores logs a provider sends outside the filter", async () => {
    node.unfilteredLogs.push(transfer(7, 999, 70n, { to: OTHER }), transfer(8, 999, 80n, { contract: OTHER }));
    node.logs.push(transfer(1, 999, 10n));
    expect((await client().tokenReceipts(USDT, ME, { since: blockTime(990) })).map((r) => r.key)).toEqual([`${hash(1)}:1`]);
  });

  it("rejects a Transfer log whose value is not one 32-byte word", async () => {
    node.logs.push(transfer(1, 999, 1n, { data: "0x1234" }));
    await expect(client().tokenReceipts(USDT, ME, { since: blockTime(990) })).rejects.toThrow(/data is not one 32-byte word/);
  });

  it("passes on the provider's range error when the chunk size is above its cap", async () => {
    node.head = 5000;
    node.maxLogsRange = 500;
    await expect(client({ maxBlockRange: 2000 }).tokenReceipts(USDT, ME, { since: blockTime(2000) })).rejects.toThrow(
      "Ethereum JSON-RPC: eth_getLogs failed: JSON-RPC error -32005: query exceeds max block range 500",
    );
  });
});

describe("JSON-RPC: failures", () => {
  it("rejects within about the timeout when the node stops answering", async () => {
    node.failure = "hang";
    const started = Date.now();
    await expect(client({ timeoutMs: 300 }).nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })).rejects.toThrow(
      "Ethereum JSON-RPC eth_blockNumber: no complete answer within 300 ms",
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
  });

  it("rejects on HTTP 500 and on HTTP 429", async () => {
    node.failure = { status: 500, body: "upstream connect error" };
    const error = await client()
      .nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as Error).message).toBe("Ethereum JSON-RPC eth_blockNumber: HTTP 500 Internal Server Error: upstream connect error");
    node.failure = { status: 429, body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate limit"}}' };
    await expect(client().nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })).rejects.toThrow(
      /rate limited \(HTTP 429 Too Many Requests\).*rate limit/,
    );
  });

  it("rejects with the node's message on a JSON-RPC error member", async () => {
    node.failure = (call) => (call.method === "eth_getBalance" ? { rpcError: { code: -32000, message: "missing trie node" } } : null);
    await expect(client().nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })).rejects.toThrow(
      "Ethereum JSON-RPC: eth_getBalance failed: JSON-RPC error -32000: missing trie node",
    );
  });

  it("rejects a malformed body", async () => {
    node.failure = { raw: '{"jsonrpc":"2.0","id":1,"result":"0x3e8"' };
    await expect(client().nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })).rejects.toThrow(
      /eth_blockNumber answered nonsense: the answer is not JSON/,
    );
    node.failure = { raw: "[1,2,3]" };
    await expect(client().nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })).rejects.toThrow(/not a JSON-RPC object/);
  });

  it("rejects an answer to another request, one without a result, and a result that is not a hex quantity", async () => {
    node.failure = { raw: '{"jsonrpc":"2.0","id":999999,"result":"0x1"}' };
    await expect(client().nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })).rejects.toThrow(
      /id 999999 is not the request's 1/,
    );
    node.failure = { raw: '{"jsonrpc":"2.0","id":1}' };
    await expect(client().nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })).rejects.toThrow(/neither result nor error/);
    node.failure = { raw: '{"jsonrpc":"2.0","id":1,"result":1000}' };
    await expect(client().nativeReceipts(ME, { since: blockTime(990), requiredConfirmations: 12 })).rejects.toThrow(/1000 is not a hex quantity/);
  });

  it("rejects when eth_getLogs answers something other than a list", async () => {
    node.failure = (call) => (call.method === "eth_getLogs" ? { raw: '{"jsonrpc":"2.0","id":3,"result":{"logs":[]}}' } : null);
    await expect(client().tokenReceipts(USDT, ME, { since: blockTime(990) })).rejects.toThrow(
      /eth_getLogs answered nonsense: the result is not a list/,
    );
  });

  it("refuses an address that is not an EVM address", async () => {
    await expect(
      client().nativeReceipts("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", { since: blockTime(990), requiredConfirmations: 12 }),
    ).rejects.toThrow(RangeError);
    expect(node.calls).toHaveLength(0);
  });
});

describe("the head block number", () => {
  it("serves the reads of one pass from one eth_blockNumber, then asks again once it is older than headMaxAgeMs", async () => {
    const c = client({ headMaxAgeMs: 200 });
    const asked = () => node.calls.filter((call) => call.method === "eth_blockNumber").length;
    const before = asked();
    const address = "0x2222222222222222222222222222222222222222";
    await Promise.all([1, 2, 3].map(() => c.nativeReceipts(address, { since: blockTime(990), requiredConfirmations: 3 })));
    expect(asked() - before).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    await c.nativeReceipts(address, { since: blockTime(990), requiredConfirmations: 3 });
    expect(asked() - before).toBe(2);
  });
});
