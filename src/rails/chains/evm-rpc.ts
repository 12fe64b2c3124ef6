// An Ethereum JSON-RPC 2.0 client (any EVM node or provider: geth, Erigon, Infura, Alchemy,
// PublicNode, a BSC node) for ETH and BNB (native coins) and USDT (an ERC-20 token).
//
// Native coin. A node lists no transfers by address, and every payment gets a fresh address, so the
// balance is the receipt:
//   eth_blockNumber → head;  c = max(1, requiredConfirmations)
//   eth_getBalance(address, head - c + 1) → confirmed part   (in a block with at least c confirmations)
//   eth_getBalance(address, "latest")     → everything
// give `balance:confirmed` (confirmations c) and, when the latest balance is larger,
// `balance:unconfirmed` (the difference, confirmations 0). A zero part is no receipt. Limitation:
// money moved out of the address lowers its balance, so a swept address looks unpaid.
//
// Token. Transfer(address indexed from, address indexed to, uint256 value) logs of the contract to
// the address, by eth_getLogs with topics [TRANSFER_TOPIC, null, address as 32 bytes]. The range
// starts at a block mined before `since` minus a margin: a first guess from the chain's nominal
// block time, checked against that block's timestamp and widened until it lies early enough (block
// times change: BSC went from 3 s to 0.75 s in 2025), and ends at the head read first (not
// "latest", so every chunk stays within the provider's range cap and confirmations agree). The range
// is split into chunks of at most `maxBlockRange` blocks, asked one after another. Logs flagged
// `removed: true` and transfers of zero are ignored; keys are `txHash:logIndex` (decimal index).
//
// A JSON-RPC `error` member, an HTTP error, a timeout or an answer of the wrong shape rejects with a
// ChainNodeError naming the node (by host), the method and the node's message.
import { Recent } from "./recent.ts";
import type { ObservedReceipt } from "../../core/ports.ts";
import { ChainNodeError } from "./errors.ts";
import { hostOf, quote } from "../http/outbound.ts";
import { requestText } from "./http.ts";
import { fromBaseUnits } from "./units.ts";

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** Wei per ETH or BNB: 10^18. */
const NATIVE_DECIMALS = 18;
/** Remembered starting blocks (one per distinct `since`), oldest dropped first. */
const FROM_BLOCK_CACHE_SIZE = 10_000;
/** How many times a too-short lookback is doubled before giving up. */
const MAX_WIDENINGS = 12;

const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface EvmRpcOptions {
  url: string;
  timeoutMs: number;
  /** Names the node in messages. Default: "JSON-RPC (host)". */
  name?: string;
  /** Nominal seconds between blocks: the first guess of how many blocks ago `since` was. */
  blockTimeSeconds: number;
  /** Most blocks asked of eth_getLogs at once (providers cap the range). Default 2000. */
  maxBlockRange?: number;
  /** How long before `since` the log search starts. Default 1800 s. */
  sinceMarginSeconds?: number;
  /** Milliseconds since the epoch. Default Date.now. */
  now?: () => number;
  /**
   * How long one head block number serves every address read (a watcher pass reads many). An older
   * head only understates confirmations. Default 1000 ms; 0 reads it for every address.
   */
  headMaxAgeMs?: number;
}

export interface TokenContract {
  contract: string;
  decimals: number;
}

interface RpcLog {
  key: string;
  txHash: string;
  blockNumber: number | null;
  value: bigint;
}

export class EvmRpcClient {
  readonly name: string;
  private readonly url: URL;
  private readonly timeoutMs: number;
  private readonly blockTimeSeconds: number;
  private readonly maxBlockRange: number;
  private readonly sinceMarginSeconds: number;
  private readonly now: () => number;
  private readonly fromBlocks = new Map<number, number>();
  private readonly head: Recent<number>;
  private nextId = 1;

  constructor(options: EvmRpcOptions) {
    this.url = new URL(options.url);
    this.timeoutMs = options.timeoutMs;
    this.name = options.name ?? `JSON-RPC (${hostOf(options.url)})`;
    if (!(options.blockTimeSeconds > 0)) throw new RangeError("blockTimeSeconds must be positive");
    this.blockTimeSeconds = options.blockTimeSeconds;
    this.maxBlockRange = options.maxBlockRange ?? 2000;
    if (!Number.isInteger(this.maxBlockRange) || this.maxBlockRange < 1) throw new RangeError("maxBlockRange must be a positive integer");
    this.sinceMarginSeconds = options.sinceMarginSeconds ?? 1800;
    this.now = options.now ?? Date.now;
    this.head = new Recent(options.headMaxAgeMs ?? 1000, () => this.blockNumber());
  }

  async blockNumber(): Promise<number> {
    return this.blockNumberOf(await this.call("eth_blockNumber", []), "eth_blockNumber");
  }

  /** Balance in wei at a block number or "latest". */
  async balance(address: string, block: number | "latest"): Promise<bigint> {
    const result = await this.call("eth_getBalance", [checkAddress(address), block === "latest" ? block : hex(block)]);
    return this.quantity(result, "eth_getBalance");
  }

  /** Unix seconds of block `number`. */
  async blockTimestamp(number: number): Promise<number> {
    const block = await this.call("eth_getBlockByNumber", [hex(number), false]);
    if (block === null) throw new ChainNodeError(`${this.name}: block ${number} not found`);
    if (!isRecord(block)) throw this.malformed("eth_getBlockByNumber", "the block is not an object");
    return this.blockNumberOf(block.timestamp, "eth_getBlockByNumber (timestamp)");
  }

  /** The native coin at `address`, as its confirmed and unconfirmed balance. */
  async nativeReceipts(address: string, options: { requiredConfirmations: number }): Promise<ObservedReceipt[]> {
    checkAddress(address);
    const required = Math.max(1, Math.floor(options.requiredConfirmations));
    const head = await this.head.get();
    const confirmedAt = head - required + 1;
    const [confirmed, latest] = await Promise.all([
      confirmedAt < 0 ? Promise.resolve(0n) : this.balance(address, confirmedAt),
      this.balance(address, "latest"),
    ]);
    const receipts: ObservedReceipt[] = [];
    if (confirmed > 0n) {
      receipts.push({
        key: "balance:confirmed",
        txHash: null,
        amount: fromBaseUnits(confirmed, NATIVE_DECIMALS),
        confirmations: required,
        blockHeight: null,
      });
    }
    if (latest > confirmed) {
      receipts.push({
        key: "balance:unconfirmed",
        txHash: null,
        amount: fromBaseUnits(latest - confirmed, NATIVE_DECIMALS),
        confirmations: 0,
        blockHeight: null,
      });
    }
    return receipts;
  }

  /** Transfers of `token` to `address` since about `since`. */
  async tokenReceipts(token: TokenContract, address: string, options: { since: Date }): Promise<ObservedReceipt[]> {
    const recipient = `0x${"0".repeat(24)}${checkAddress(address).slice(2).toLowerCase()}`;
    const contract = checkAddress(token.contract).toLowerCase();
    const head = await this.head.get();
    const from = await this.firstBlockSince(options.since, head);
    const found = new Map<string, RpcLog>();
    for (let start = from; start <= head; start += this.maxBlockRange) {
      const end = Math.min(head, start + this.maxBlockRange - 1);
      const result = await this.call("eth_getLogs", [
        { fromBlock: hex(start), toBlock: hex(end), address: contract, topics: [TRANSFER_TOPIC, null, recipient] },
      ]);
      if (!Array.isArray(result)) throw this.malformed("eth_getLogs", "the result is not a list");
      for (const entry of result) {
        const log = this.parseLog(entry, contract, recipient);
        if (log !== null && !found.has(log.key)) found.set(log.key, log);
      }
    }
    return [...found.values()]
      .map((log) => ({
        key: log.key,
        txHash: log.txHash,
        amount: fromBaseUnits(log.value, token.decimals),
        confirmations: log.blockNumber === null ? 0 : Math.max(1, head - log.blockNumber + 1),
        blockHeight: log.blockNumber,
      }))
      .sort((a, b) => (a.blockHeight ?? Number.MAX_SAFE_INTEGER) - (b.blockHeight ?? Number.MAX_SAFE_INTEGER) || (a.key < b.key ? -1 : 1));
  }

  /** A block mined no later than `since` minus the margin (or block 0). */
  async firstBlockSince(since: Date, head: number): Promise<number> {
    if (Number.isNaN(since.getTime())) throw new RangeError("since is not a valid date");
    const target = Math.floor(since.getTime() / 1000) - this.sinceMarginSeconds;
    const cached = this.fromBlocks.get(target);
    if (cached !== undefined && cached <= head) return cached;
    let lookback = Math.max(1, Math.ceil((this.now() / 1000 - target) / this.blockTimeSeconds));
    for (let widenings = 0; ; widenings++) {
      const from = Math.max(0, head - lookback);
      if (from === 0 || (await this.blockTimestamp(from)) <= target) {
        this.fromBlocks.set(target, from);
        if (this.fromBlocks.size > FROM_BLOCK_CACHE_SIZE) this.fromBlocks.delete(this.fromBlocks.keys().next().value as number);
        return from;
      }
      if (widenings >= MAX_WIDENINGS) {
        throw new ChainNodeError(
          `${this.name}: no block found mined before ${new Date(target * 1000).toISOString()} within ${lookback} blocks of the head`,
        );
      }
      lookback *= 2;
    }
  }

  /** One JSON-RPC call; its `result`, or a ChainNodeError. */
  async call(method: string, params: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    const text = await requestText(this.url, {
      node: `${this.name} ${method}`,
      timeoutMs: this.timeoutMs,
      json: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw this.malformed(method, `the answer is not JSON: ${quote(text) || "(empty)"}`);
    }
    if (!isRecord(body)) throw this.malformed(method, "the answer is not a JSON-RPC object");
    if (body.error !== undefined && body.error !== null) {
      const error = body.error;
      const code = isRecord(error) && typeof error.code === "number" ? ` ${error.code}` : "";
      const message = isRecord(error) && typeof error.message === "string" ? error.message : quote(JSON.stringify(error));
      throw new ChainNodeError(`${this.name}: ${method} failed: JSON-RPC error${code}: ${message}`);
    }
    if (body.id !== id) throw this.malformed(method, `the answer's id ${JSON.stringify(body.id)} is not the request's ${id}`);
    if (!("result" in body)) throw this.malformed(method, "the answer has neither result nor error");
    return body.result;
  }

  private parseLog(entry: unknown, contract: string, recipient: string): RpcLog | null {
    if (!isRecord(entry)) throw this.malformed("eth_getLogs", "a log is not an object");
    if (entry.removed === true) return null;
    const { address, topics, data, transactionHash, logIndex, blockNumber } = entry;
    if (typeof address !== "string" || !Array.isArray(topics)) throw this.malformed("eth_getLogs", "a log has no address or topics");
    // A provider that ignored part of the filter: not a transfer to us.
    if (address.toLowerCase() !== contract || topics.length !== 3) return null;
    if (String(topics[0]).toLowerCase() !== TRANSFER_TOPIC || String(topics[2]).toLowerCase() !== recipient) return null;
    if (typeof data !== "string" || !HASH.test(data)) throw this.malformed("eth_getLogs", "a Transfer log's data is not one 32-byte word");
    if (typeof transactionHash !== "string" || !HASH.test(transactionHash)) throw this.malformed("eth_getLogs", "a log has no transactionHash");
    const index = this.blockNumberOf(logIndex, "eth_getLogs (logIndex)");
    const height = blockNumber === null ? null : this.blockNumberOf(blockNumber, "eth_getLogs (blockNumber)");
    const value = BigInt(data);
    if (value === 0n) return null;
    return { key: `${transactionHash.toLowerCase()}:${index}`, txHash: transactionHash.toLowerCase(), blockNumber: height, value };
  }

  private quantity(value: unknown, method: string): bigint {
    if (typeof value !== "string" || !QUANTITY.test(value))
      throw this.malformed(method, `${quote(JSON.stringify(value) ?? "undefined")} is not a hex quantity`);
    return BigInt(value);
  }

  private blockNumberOf(value: unknown, method: string): number {
    const n = this.quantity(value, method);
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw this.malformed(method, `${n} is too large for a block number`);
    return Number(n);
  }

  private malformed(method: string, what: string): ChainNodeError {
    return new ChainNodeError(`${this.name}: ${method} answered nonsense: ${what}`);
  }
}

function hex(n: number): string {
  return `0x${n.toString(16)}`;
}

function checkAddress(address: string): string {
  if (!EVM_ADDRESS.test(address)) throw new RangeError(`${JSON.stringify(address)} is not an EVM address (0x and 40 hex digits)`);
  return address;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
