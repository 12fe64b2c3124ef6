// An Ethereum JSON-RPC node on 127.0.0.1 for the tests of what a real node (anvil,
// evm-anvil.test.ts) cannot produce on demand: timeouts, malformed answers, range caps. It answers as
// geth does: eth_chainId, eth_blockNumber, eth_getBlockByNumber (timestamps genesisTime + n *
// blockSeconds, hashes that change when `reorg` replaces blocks, full transactions when asked),
// eth_getBalance (a balance history per address plus the native transfers, at a number, a tag or
// a block hash as EIP-1898 has it), eth_getTransactionByHash and eth_getTransactionReceipt (of the
// mined transfers), and eth_getLogs over Transfer logs the test sets, with an optional range cap
// answered by the JSON-RPC error real providers give. Every call is recorded.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { actOut, type Failure } from "./fake-http.ts";

export const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

export interface FakeLog {
  contract: string;
  from: string;
  to: string;
  value: bigint;
  /** null: a pending log. */
  blockNumber: number | null;
  txHash: string;
  logIndex: number;
  removed?: boolean;
  /** Replaces the data field as written (to send a malformed value). */
  data?: string;
}

/** A native coin transfer: a transaction to `to` with a value, in block `blockNumber`. */
export interface FakeTransfer {
  to: string;
  value: bigint;
  txHash: string;
  blockNumber: number;
  /** 0: the transaction reverted (the value did not move). Default 1. */
  status?: 0 | 1;
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** Instead of the answer: a JSON-RPC error, or another result (both with the request's id). */
export type NodeFailure = Failure | { rpcError: { code: number; message: string } } | { rpcResult: unknown };

export interface FakeEvmNode {
  url: string;
  /** eth_chainId. Default 1 (Ethereum mainnet). */
  chainId: number;
  head: number;
  genesisTime: number;
  blockSeconds: number;
  logs: FakeLog[];
  transfers: FakeTransfer[];
  /** Sent in every eth_getLogs answer whatever the filter (a provider that ignores part of it). */
  unfilteredLogs: FakeLog[];
  /** eth_getLogs asked for more blocks than this answers the provider's range error. */
  maxLogsRange: number | null;
  calls: RpcCall[];
  failure: NodeFailure | ((call: RpcCall) => NodeFailure);
  /** From block `fromBlock` on, `address` holds `wei` (until a later entry). */
  setBalance(address: string, fromBlock: number, wei: bigint): void;
  /** Forgets the balance entries of blocks from `fromBlock` on (a reorganisation). */
  dropBalancesFrom(address: string, fromBlock: number): void;
  /** Replaces the blocks from `fromBlock` on by others (new hashes); the test moves or removes their transfers. */
  reorg(fromBlock: number): void;
  /** The hash block `n` has now. */
  blockHash(n: number): string;
  /** [fromBlock, toBlock] of every eth_getLogs call. */
  getLogsRanges(): [number, number][];
  close(): Promise<void>;
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const word = (hexDigits: string) => `0x${hexDigits.replace(/^0x/, "").toLowerCase().padStart(64, "0")}`;

export async function startFakeEvmNode(): Promise<FakeEvmNode> {
  const balances = new Map<string, [number, bigint][]>();
  /** Block number → how many times it was replaced (part of its hash). */
  const forks = new Map<number, number>();
  const node: Omit<FakeEvmNode, "url" | "close"> = {
    chainId: 1,
    head: 1000,
    genesisTime: 1_700_000_000,
    blockSeconds: 12,
    logs: [],
    transfers: [],
    unfilteredLogs: [],
    maxLogsRange: null,
    calls: [],
    failure: null,
    setBalance(address, fromBlock, wei) {
      const entries = balances.get(address.toLowerCase()) ?? [];
      entries.push([fromBlock, wei]);
      entries.sort((a, b) => a[0] - b[0]);
      balances.set(address.toLowerCase(), entries);
    },
    dropBalancesFrom(address, fromBlock) {
      const entries = balances.get(address.toLowerCase()) ?? [];
      balances.set(
        address.toLowerCase(),
        entries.filter(([b]) => b < fromBlock),
      );
    },
    reorg(fromBlock) {
      for (let n = fromBlock; n <= node.head; n++) forks.set(n, (forks.get(n) ?? 0) + 1);
    },
    blockHash: (n) => word(`${(forks.get(n) ?? 0).toString(16).padStart(8, "0")}${n.toString(16).padStart(16, "0")}`),
    getLogsRanges() {
      return node.calls
        .filter((c) => c.method === "eth_getLogs")
        .map((c) => {
          const filter = c.params[0] as { fromBlock: string; toBlock: string };
          return [Number(filter.fromBlock), Number(filter.toBlock)];
        });
    },
  };

  const blockOf = (tag: unknown): number | null => {
    if (tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized") return node.head;
    if (tag === "earliest") return 0;
    if (typeof tag === "string" && /^0x[0-9a-f]+$/i.test(tag)) return Number(tag);
    return null;
  };
  /** A block hash of the canonical chain: its number; another (a replaced block, an unknown hash): null. */
  const numberOfHash = (blockHash: unknown): number | null => {
    if (typeof blockHash !== "string" || !/^0x[0-9a-f]{64}$/i.test(blockHash)) return null;
    const n = Number.parseInt(blockHash.slice(-16), 16);
    return n <= node.head && node.blockHash(n) === blockHash.toLowerCase() ? n : null;
  };
  const mined = (t: FakeTransfer) => t.blockNumber <= node.head;
  const transaction = (t: FakeTransfer) => ({
    hash: t.txHash,
    from: "0x00000000000000000000000000000000000000bb",
    to: t.to.toLowerCase(),
    value: hex(t.value),
    input: "0x",
    blockNumber: hex(t.blockNumber),
    blockHash: node.blockHash(t.blockNumber),
  });

  type Answer = { result: unknown } | { error: { code: number; message: string } };
  const answer = (call: RpcCall): Answer => {
    const [a, b] = call.params;
    switch (call.method) {
      case "eth_blockNumber":
        return { result: hex(node.head) };
      case "eth_chainId":
        return { result: hex(node.chainId) };
      case "eth_getBalance": {
        const byHash = b !== null && typeof b === "object" && "blockHash" in b;
        const block = byHash ? numberOfHash(b.blockHash) : blockOf(b);
        if (byHash && block === null) return { error: { code: -32001, message: "Resource not found" } };
        if (typeof a !== "string" || block === null) return { error: { code: -32602, message: "invalid argument" } };
        if (block > node.head) return { error: { code: -32000, message: "header not found" } };
        let wei = 0n;
        for (const [from, value] of balances.get(a.toLowerCase()) ?? []) if (from <= block) wei = value;
        for (const t of node.transfers) {
          if (t.to.toLowerCase() === a.toLowerCase() && t.blockNumber <= block && (t.status ?? 1) === 1) wei += t.value;
        }
        return { result: hex(wei) };
      }
      case "eth_getBlockByNumber": {
        const block = blockOf(a);
        if (block === null) return { error: { code: -32602, message: "invalid argument" } };
        if (block > node.head) return { result: null };
        const txs = node.transfers.filter((t) => t.blockNumber === block);
        return {
          result: {
            number: hex(block),
            hash: node.blockHash(block),
            parentHash: node.blockHash(Math.max(0, block - 1)),
            timestamp: hex(node.genesisTime + block * node.blockSeconds),
            transactions: b === true ? txs.map(transaction) : txs.map((t) => t.txHash),
          },
        };
      }
      case "eth_getTransactionByHash": {
        const t = node.transfers.find((x) => x.txHash === a && mined(x));
        return { result: t === undefined ? null : transaction(t) };
      }
      case "eth_getTransactionReceipt": {
        const t = node.transfers.find((x) => x.txHash === a && mined(x));
        if (t === undefined) return { result: null };
        const { hash, blockNumber, blockHash } = transaction(t);
        return { result: { transactionHash: hash, blockNumber, blockHash, status: hex(t.status ?? 1), logs: [] } };
      }
      case "eth_getLogs": {
        const filter = a as { fromBlock?: string; toBlock?: string; address?: string | string[]; topics?: (string | string[] | null)[] };
        const from = blockOf(filter.fromBlock ?? "latest");
        const to = Math.min(blockOf(filter.toBlock ?? "latest") ?? -1, node.head);
        if (from === null || to < 0) return { error: { code: -32602, message: "invalid block range" } };
        if (node.maxLogsRange !== null && to - from + 1 > node.maxLogsRange) {
          return { error: { code: -32005, message: `query exceeds max block range ${node.maxLogsRange}` } };
        }
        const addresses = filter.address === undefined ? null : [filter.address].flat().map((x) => x.toLowerCase());
        const logs = node.logs
          .filter((l) => l.blockNumber !== null && l.blockNumber >= from && l.blockNumber <= to)
          .filter((l) => addresses === null || addresses.includes(l.contract.toLowerCase()))
          .map((l) => ({
            log: l,
            topics: [TRANSFER, word(l.from), word(l.to)],
          }))
          .filter(({ topics }) =>
            (filter.topics ?? []).every(
              (want, i) =>
                want === null ||
                [want]
                  .flat()
                  .map((t) => t.toLowerCase())
                  .includes(topics[i] ?? ""),
            ),
          )
          .concat(node.unfilteredLogs.map((l) => ({ log: l, topics: [TRANSFER, word(l.from), word(l.to)] })))
          .map(({ log, topics }) => ({
            address: log.contract.toLowerCase(),
            topics,
            data: log.data ?? word(log.value.toString(16)),
            blockNumber: log.blockNumber === null ? null : hex(log.blockNumber),
            blockHash: log.blockNumber === null ? null : node.blockHash(log.blockNumber),
            transactionHash: log.txHash,
            transactionIndex: "0x0",
            logIndex: hex(log.logIndex),
            removed: log.removed ?? false,
          }));
        return { result: logs };
      }
      default:
        return { error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } };
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      let request: { id?: unknown; method?: unknown; params?: unknown };
      try {
        request = JSON.parse(text) as typeof request;
      } catch {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }));
        return;
      }
      const call: RpcCall = { method: String(request.method), params: Array.isArray(request.params) ? request.params : [] };
      node.calls.push(call);
      const failure = typeof node.failure === "function" ? node.failure(call) : node.failure;
      if (failure !== null && typeof failure === "object" && ("rpcError" in failure || "rpcResult" in failure)) {
        res.writeHead(200, { "content-type": "application/json" });
        const answer = "rpcError" in failure ? { error: failure.rpcError } : { result: failure.rpcResult };
        res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id, ...answer }));
        return;
      }
      if (actOut(failure, res)) return;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id, ...answer(call) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const fake = node as FakeEvmNode;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}

/** A 32-byte hash made from a small number, for readable tests. */
export function hash(n: number): string {
  return `0x${n.toString(16).padStart(64, "0")}`;
}
