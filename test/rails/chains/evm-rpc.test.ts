// The JSON-RPC client against a local node speaking Ethereum JSON-RPC 2.0.
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ObservedReceipt } from "../../../src/core/ports.ts";
import { ChainNodeError } from "../../../src/rails/chains/errors.ts";
import { EvmRpcClient, TRANSFER_TOPIC, type EvmRpcOptions } from "../../../src/rails/chains/evm-rpc.ts";
import { USDT_ETHEREUM_CONTRACT } from "../../../src/rails/wallets/networks.ts";
import { hash, startFakeEvmNode, type FakeEvmNode } from "./fake-evm-node.ts";

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

describe("JSON-RPC: native coin by balance", () => {
  it("splits the balance into the part with enough confirmations and the rest", async () => {
    node.setBalance(ME, 995, ETHER);
    const c = client();
    expect(view(await c.nativeReceipts(ME, { requiredConfirmations: 12 }))).toEqual([
      { key: "balance:unconfirmed", txHash: null, amount: "1", confirmations: 0, blockHeight: null },
    ]);
    expect(node.calls.map((call) => [call.method, ...call.params])).toEqual([
      ["eth_blockNumber"],
      ["eth_getBalance", ME, "0x3dd"], // 1000 - 12 + 1 = 989
      ["eth_getBalance", ME, "latest"],
    ]);

    node.head = 1006; // block 995 now has 12 confirmations
    expect(view(await c.nativeReceipts(ME, { requiredConfirmations: 12 }))).toEqual([
      { key: "balance:confirmed", txHash: null, amount: "1", confirmations: 12, blockHeight: null },
    ]);

    node.setBalance(ME, 1005, (ETHER * 3n) / 2n); // a second payment of 0.5
    expect(view(await c.nativeReceipts(ME, { requiredConfirmations: 12 }))).toEqual([
      { key: "balance:confirmed", txHash: null, amount: "1", confirmations: 12, blockHeight: null },
      { key: "balance:unconfirmed", txHash: null, amount: "0.5", confirmations: 0, blockHeight: null },
    ]);
  });

  it("keeps wei exact: 1 wei, and more digits than a double holds", async () => {
    node.setBalance(ME, 100, 1n);
    expect(view(await client().nativeReceipts(ME, { requiredConfirmations: 12 }))[0]?.amount).toBe("0.000000000000000001");
    node.setBalance(ME, 100, 123_456_789_012_345_678_901_234_567_891n);
    expect(view(await client().nativeReceipts(ME, { requiredConfirmations: 12 }))[0]?.amount).toBe("123456789012.345678901234567891");
  });

  it("with 0 or 1 required confirmations counts the head block's balance as confirmed (1 confirmation)", async () => {
    node.setBalance(ME, 1000, 5n * ETHER);
    for (const required of [0, 1]) {
      node.calls.length = 0;
      expect(view(await client().nativeReceipts(ME, { requiredConfirmations: required }))).toEqual([
        { key: "balance:confirmed", txHash: null, amount: "5", confirmations: 1, blockHeight: null },
      ]);
      expect(node.calls[1]?.params).toEqual([ME, "0x3e8"]);
    }
  });

  it("counts everything unconfirmed on a chain shorter than the confirmations asked", async () => {
    node.head = 5;
    node.setBalance(ME, 3, 2n * ETHER);
    expect(view(await client().nativeReceipts(ME, { requiredConfirmations: 12 }))).toEqual([
      { key: "balance:unconfirmed", txHash: null, amount: "2", confirmations: 0, blockHeight: null },
    ]);
  });

  it("reports nothing for an empty address, and drops a balance reorganised away", async () => {
    const c = client();
    expect(await c.nativeReceipts(ME, { requiredConfirmations: 12 })).toEqual([]);
    node.setBalance(ME, 980, ETHER);
    expect((await c.nativeReceipts(ME, { requiredConfirmations: 12 })).map((r) => r.key)).toEqual(["balance:confirmed"]);
    node.dropBalancesFrom(ME, 980);
    expect(await c.nativeReceipts(ME, { requiredConfirmations: 12 })).toEqual([]);
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
    await expect(client({ timeoutMs: 300 }).nativeReceipts(ME, { requiredConfirmations: 12 })).rejects.toThrow(
      "Ethereum JSON-RPC eth_blockNumber: no complete answer within 300 ms",
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
  });

  it("rejects on HTTP 500 and on HTTP 429", async () => {
    node.failure = { status: 500, body: "upstream connect error" };
    const error = await client()
      .nativeReceipts(ME, { requiredConfirmations: 12 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainNodeError);
    expect((error as Error).message).toBe("Ethereum JSON-RPC eth_blockNumber: HTTP 500 Internal Server Error: upstream connect error");
    node.failure = { status: 429, body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"rate limit"}}' };
    await expect(client().nativeReceipts(ME, { requiredConfirmations: 12 })).rejects.toThrow(
      /rate limited \(HTTP 429 Too Many Requests\).*rate limit/,
    );
  });

  it("rejects with the node's message on a JSON-RPC error member", async () => {
    node.failure = (call) => (call.method === "eth_getBalance" ? { rpcError: { code: -32000, message: "missing trie node" } } : null);
    await expect(client().nativeReceipts(ME, { requiredConfirmations: 12 })).rejects.toThrow(
      "Ethereum JSON-RPC: eth_getBalance failed: JSON-RPC error -32000: missing trie node",
    );
  });

  it("rejects a malformed body", async () => {
    node.failure = { raw: '{"jsonrpc":"2.0","id":1,"result":"0x3e8"' };
    await expect(client().nativeReceipts(ME, { requiredConfirmations: 12 })).rejects.toThrow(
      /eth_blockNumber answered nonsense: the answer is not JSON/,
    );
    node.failure = { raw: "[1,2,3]" };
    await expect(client().nativeReceipts(ME, { requiredConfirmations: 12 })).rejects.toThrow(/not a JSON-RPC object/);
  });

  it("rejects an answer to another request, one without a result, and a result that is not a hex quantity", async () => {
    node.failure = { raw: '{"jsonrpc":"2.0","id":999999,"result":"0x1"}' };
    await expect(client().nativeReceipts(ME, { requiredConfirmations: 12 })).rejects.toThrow(/id 999999 is not the request's 1/);
    node.failure = { raw: '{"jsonrpc":"2.0","id":1}' };
    await expect(client().nativeReceipts(ME, { requiredConfirmations: 12 })).rejects.toThrow(/neither result nor error/);
    node.failure = { raw: '{"jsonrpc":"2.0","id":1,"result":1000}' };
    await expect(client().nativeReceipts(ME, { requiredConfirmations: 12 })).rejects.toThrow(/1000 is not a hex quantity/);
  });

  it("rejects when eth_getLogs answers something other than a list", async () => {
    node.failure = (call) => (call.method === "eth_getLogs" ? { raw: '{"jsonrpc":"2.0","id":3,"result":{"logs":[]}}' } : null);
    await expect(client().tokenReceipts(USDT, ME, { since: blockTime(990) })).rejects.toThrow(
      /eth_getLogs answered nonsense: the result is not a list/,
    );
  });

  it("refuses an address that is not an EVM address", async () => {
    await expect(client().nativeReceipts("bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", { requiredConfirmations: 12 })).rejects.toThrow(RangeError);
    expect(node.calls).toHaveLength(0);
  });
});

describe("the head block number", () => {
  it("serves the reads of one pass from one eth_blockNumber, then asks again once it is older than headMaxAgeMs", async () => {
    const c = client({ headMaxAgeMs: 200 });
    const asked = () => node.calls.filter((call) => call.method === "eth_blockNumber").length;
    const before = asked();
    const address = "0x2222222222222222222222222222222222222222";
    await Promise.all([1, 2, 3].map(() => c.nativeReceipts(address, { requiredConfirmations: 3 })));
    expect(asked() - before).toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    await c.nativeReceipts(address, { requiredConfirmations: 3 });
    expect(asked() - before).toBe(2);
  });
});
