// An Ethereum JSON-RPC 2.0 client (any EVM node or provider: geth, Erigon, Infura, Alchemy,
// PublicNode, a BSC node) for ETH and BNB (native coins) and USDT (an ERC-20 token).
//
// Nodes. `url` may name several nodes of one network (own node first, providers after): each request
// goes through a NodePool (node-pool.ts), read from the first healthy node, failing over to the next.
// The pool's probe of a node is its chain check and eth_blockNumber (the head it compares for lag).
//
// Chain check. With `chain` set, eth_chainId is asked of each node before its first call and again
// after a connection failure; a node on another chain (a BNB URL pointing at an Ethereum node, a mainnet
// node configured for Sepolia) is refused with a ChainNodeError naming the chain it is on, the one
// expected and the variable to fix, and nothing is read from it (asked again a minute later).
//
// Native coin. A node lists no transfers by address, so the blocks are read (evm-scan.ts: each new
// block once, eth_getBlockByNumber with full transactions, for every watched address at once;
// parent hashes are followed, so a block replaced by a reorganisation is read again). Each
// transaction to the address with a value, mined from `since` less `scanMarginSeconds` on, is one
// receipt: key and txHash its hash, its block, confirmations head - block + 1 (so 1 in the head
// block, growing block by block). Its outcome is asked once (eth_getTransactionReceipt): a call
// that reverted moved nothing. Then the balance at the scanned head (eth_getBalance at the head's
// hash, EIP-1898, so both views are of one chain) beyond the transfers found is value that arrived
// inside contract calls (or before the scan reaches back, `scanLookbackSeconds` after a restart):
// `balance:internal:confirmed` for the part already in the balance at head - c + 1 (confirmations
// c = max(1, requiredConfirmations); that balance is read only when there is such a part) and
// `balance:internal:unconfirmed` (confirmations 0) for the rest. Nothing is counted twice; a swept
// address keeps its transfers (only the internal part reads lower). Transfers recorded before, given
// with the pass (the watch list's receipts keyed by a transaction hash), are looked up by hash
// (eth_getTransactionByHash, and the header of their block) when the scan does not reach their
// block, as after a restart: a payment recorded long ago keeps its receipt instead of turning into
// `balance:internal:*` while its hash receipt looks reorganised away.
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
import { BlockScanner, type BlockSource, type MinedTransaction, type ScannedBlock, type ScannedTransfer } from "./evm-scan.ts";
import { hostOf, quote } from "../http/outbound.ts";
import { requestText } from "./http.ts";
import { NodePool, type NodePoolOptions, type PoolNode } from "./node-pool.ts";
import { fromBaseUnits } from "./units.ts";
import { CHAIN_IDS } from "../wallets/networks.ts";
import { CHAINS } from "../../core/networks.ts";

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
/** Wei per ETH or BNB: 10^18. */
const NATIVE_DECIMALS = 18;
/** Remembered starting blocks (one per distinct `since`), oldest dropped first. */
const FROM_BLOCK_CACHE_SIZE = 10_000;
/** How many times a too-short lookback is doubled before giving up. */
const MAX_WIDENINGS = 12;
/** Remembered outcomes of transactions (succeeded or reverted), oldest dropped first. */
const STATUS_CACHE_SIZE = 10_000;
/** The fewest blocks the scanner's window holds, whatever the block time: reorganisations deeper are not expected. */
const MIN_WINDOW_BLOCKS = 64;
/** How long a node found on the wrong chain is refused before its chain id is asked again. */
const WRONG_CHAIN_RETRY_MS = 60_000;
/** Reads of one address at a new head after a block read left the chain (a reorganisation under way), before the pass gives up on it. */
const REORG_REREADS = 3;
/** EIP-1474's "Resource not found": what EIP-1898 asks of a node for a block hash it does not have (anvil says it). */
const RESOURCE_NOT_FOUND = -32001;

/**
 * A block this client read is no longer the chain's (a reorganisation since the scan's last sync): a
 * balance asked at its hash is refused, a receipt found in it is elsewhere now. Not a failing node:
 * the address is read again at the new head.
 */
export class BlockLeftChainError extends ChainNodeError {
  constructor(message: string) {
    super(message, { reason: "rpc_error" });
    this.name = "BlockLeftChainError";
  }
}

/** The node's JSON-RPC error, with its code. */
class EvmRpcError extends ChainNodeError {
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message, { reason: "rpc_error" });
    this.name = "EvmRpcError";
  }
}

const CHAIN_NAMES = new Map<bigint, string>([
  // The display names of core/networks.ts.
  [BigInt(CHAIN_IDS.ethereum), CHAINS.ethereum.live.name],
  [BigInt(CHAIN_IDS.sepolia), CHAINS.ethereum.test.name],
  [BigInt(CHAIN_IDS.bsc), CHAINS.bsc.live.name],
  [BigInt(CHAIN_IDS.bscTestnet), CHAINS.bsc.test.name],
  // TRON's JSON-RPC (tron-rpc.ts): the last 4 bytes of each genesis block id.
  [0x2b6653dcn, "TRON"],
  [0xcd8690dcn, "TRON Nile testnet"],
  [0x94a9059en, "TRON Shasta testnet"],
]);

const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface EvmRpcOptions {
  /** The node, or several of one network in the order they are read (failover). */
  url: string | readonly string[];
  /** Several nodes: one further behind the highest head than this is set aside. Default: a minute of blocks, at least 2. */
  maxLagBlocks?: number;
  /** Several nodes: how often their heads are compared, and the back-off of one set aside (node-pool.ts). */
  pool?: Pick<NodePoolOptions, "probeIntervalMs" | "backoffMs" | "now">;
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
  /** The chain the node must be on (eth_chainId); unset: not checked. */
  chain?: ExpectedChain;
  /** Native transfers: how long before `since` the block scan starts. Default 120 s. */
  scanMarginSeconds?: number;
  /** Native transfers: how much recent chain the scanner keeps whole (reorganisations within it are seen). Default 600 s, at least 64 blocks. */
  scanWindowSeconds?: number;
  /** Native transfers: how far back blocks are read for an address first seen late (after a restart). Default 3600 s. */
  scanLookbackSeconds?: number;
  /** Headers sent with every request, such as a provider's API key; never shown in messages. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Mark each receipt whose block the node's `finalized` block covers (eth_getBlockByNumber("finalized"),
   * read like the head): a SUCCESSFUL payment is then final once finalized, whatever its depth. Default off.
   */
  finalizedTag?: boolean;
  /** Native transfers: the fewest blocks the scanner keeps whole, so that a reorganisation within the finality depth is seen. */
  minWindowBlocks?: number;
}

export interface ExpectedChain {
  id: number;
  /** The network's name, e.g. "Sepolia". */
  network: string;
  /** The variable that names the node. */
  variable: string;
  /** The variable that accepts another chain id (local development chains), if any. */
  overrideVariable?: string;
  /** `id` comes from overrideVariable, not from the network. */
  overridden?: boolean;
}

export interface TokenContract {
  contract: string;
  decimals: number;
}

interface RpcLog {
  key: string;
  txHash: string;
  blockNumber: number | null;
  /** The log's block, when the node names it (its time is remembered by block, not height: a reorganisation may change it). */
  blockHash: string | null;
  value: bigint;
}

/** Block times remembered (tokenReceipts with minedAt), oldest dropped first. */
const MINED_AT_CACHE_SIZE = 10_000;

export class EvmRpcClient implements BlockSource {
  readonly name: string;
  /** The nodes every request goes through. */
  readonly pool: NodePool;
  private readonly timeoutMs: number;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly blockTimeSeconds: number;
  private readonly maxBlockRange: number;
  private readonly sinceMarginSeconds: number;
  private readonly now: () => number;
  private readonly fromBlocks = new Map<number, number>();
  /** `height:blockHash` → the block's time (Unix seconds). */
  private readonly blockTimes = new Map<string, number>();
  private readonly head: Recent<number>;
  /** The node's finalized block number, when finalizedTag is on. */
  private readonly finalized: Recent<number> | null;
  private readonly chain: ExpectedChain | undefined;
  /** Per node: the chain check under way or done (absent: ask at its next call), and when it found another chain. */
  private readonly chainChecks = new Map<number, { check: Promise<bigint>; wrongAt: number }>();
  private readonly scanner: BlockScanner;
  private readonly scanMarginSeconds: number;
  /** `txHash:blockHash` → whether the transaction succeeded there. */
  private readonly statuses = new Map<string, boolean>();
  private nextId = 1;

  constructor(options: EvmRpcOptions) {
    const urls = typeof options.url === "string" ? [options.url] : options.url;
    this.timeoutMs = options.timeoutMs;
    this.headers = options.headers ?? {};
    this.name = options.name ?? `JSON-RPC (${urls.map(hostOf).join(", ")})`;
    if (!(options.blockTimeSeconds > 0)) throw new RangeError("blockTimeSeconds must be positive");
    this.pool = new NodePool({
      ...options.pool,
      name: this.name,
      urls,
      maxLagBlocks: options.maxLagBlocks ?? defaultMaxLagBlocks(options.blockTimeSeconds),
      probe: async (node) => {
        if (this.chain !== undefined) await this.checkChain(node, this.chain);
        return this.blockNumberOf(await this.request(node, "eth_blockNumber", []), "eth_blockNumber");
      },
    });
    this.blockTimeSeconds = options.blockTimeSeconds;
    this.maxBlockRange = options.maxBlockRange ?? 2000;
    if (!Number.isInteger(this.maxBlockRange) || this.maxBlockRange < 1) throw new RangeError("maxBlockRange must be a positive integer");
    this.sinceMarginSeconds = options.sinceMarginSeconds ?? 1800;
    this.now = options.now ?? Date.now;
    this.head = new Recent(options.headMaxAgeMs ?? 1000, () => this.blockNumber());
    this.finalized = options.finalizedTag ? new Recent(options.headMaxAgeMs ?? 1000, () => this.finalizedBlock()) : null;
    this.chain = options.chain;
    this.scanMarginSeconds = options.scanMarginSeconds ?? 120;
    const blocks = (seconds: number) => Math.ceil(seconds / this.blockTimeSeconds);
    const windowBlocks = Math.max(MIN_WINDOW_BLOCKS, blocks(options.scanWindowSeconds ?? 600), options.minWindowBlocks ?? 0);
    this.scanner = new BlockScanner(this, {
      windowBlocks,
      lookbackBlocks: Math.max(windowBlocks, blocks(options.scanLookbackSeconds ?? 3600)),
      maxAgeMs: options.headMaxAgeMs ?? 1000,
    });
  }

  async blockNumber(): Promise<number> {
    return this.blockNumberOf(await this.call("eth_blockNumber", []), "eth_blockNumber");
  }

  /** The number of the node's latest finalized block (the `finalized` block tag). */
  async finalizedBlock(): Promise<number> {
    const block = await this.call("eth_getBlockByNumber", ["finalized", false]);
    if (!isRecord(block))
      throw this.malformed("eth_getBlockByNumber (finalized)", "no finalized block (a node before the merge, or without finality)");
    return this.blockNumberOf(block.number, "eth_getBlockByNumber (finalized)");
  }

  /** With finalizedTag on, each receipt in a block says whether the node's finalized block covers it. */
  private async withFinality(receipts: ObservedReceipt[]): Promise<ObservedReceipt[]> {
    if (this.finalized === null || !receipts.some((r) => r.blockHeight !== null)) return receipts;
    const finalized = await this.finalized.get();
    return receipts.map((r) => (r.blockHeight === null ? r : { ...r, finalized: r.blockHeight <= finalized }));
  }

  /** Balance in wei at a block number, or at the block of that hash (EIP-1898). */
  async balance(address: string, block: number | string): Promise<bigint> {
    const at = typeof block === "number" ? hex(block) : { blockHash: block };
    let result: unknown;
    try {
      result = await this.call("eth_getBalance", [checkAddress(address), at]);
    } catch (error) {
      // A block named by hash that the node no longer has: -32001 (EIP-1474/1898, anvil), "header not found" (geth and its forks).
      if (typeof block === "string" && error instanceof EvmRpcError && (error.code === RESOURCE_NOT_FOUND || /not found/i.test(error.message))) {
        throw new BlockLeftChainError(`${this.name}: block ${block} is not the chain's any more (${error.message})`);
      }
      throw error;
    }
    return this.quantity(result, "eth_getBalance");
  }

  /**
   * What `address` holds at the head: its native coin in wei (eth_getBalance), and with `token` its
   * balance of that token in base units (balanceOf through eth_call). Moving a token off the address
   * takes the native coin for the fee.
   */
  async holdings(address: string, token?: TokenContract): Promise<{ native: bigint; token: bigint | null }> {
    const holder = checkAddress(address);
    const [native, units] = await Promise.all([
      this.call("eth_getBalance", [holder, "latest"]),
      token === undefined
        ? Promise.resolve(null)
        : this.call("eth_call", [{ to: token.contract, data: `0x70a08231${holder.slice(2).toLowerCase().padStart(64, "0")}` }, "latest"]),
    ]);
    return {
      native: this.quantity(native, "eth_getBalance"),
      token: units === null ? null : this.quantity(units, "eth_call (balanceOf)"),
    };
  }

  /** Unix seconds of block `number`. */
  async blockTimestamp(number: number): Promise<number> {
    return (await this.header(number)).timestamp;
  }

  /** Block `number` without its transactions. */
  async header(number: number): Promise<Omit<ScannedBlock, "transfers">> {
    const { transfers: _, ...header } = this.parseBlock(await this.call("eth_getBlockByNumber", [hex(number), false]), number, false);
    return header;
  }

  /** Block `number` with its transfers of the native coin (transactions with a recipient and a value). */
  async block(number: number): Promise<ScannedBlock> {
    return this.parseBlock(await this.call("eth_getBlockByNumber", [hex(number), true]), number, true);
  }

  /** The transaction of this hash with its block (eth_getTransactionByHash); null when not known or not mined. */
  async transaction(hash: string): Promise<MinedTransaction | null> {
    const method = "eth_getTransactionByHash";
    const tx = await this.call(method, [hash]);
    if (tx === null) return null;
    if (!isRecord(tx)) throw this.malformed(method, "the transaction is not an object");
    if (tx.blockNumber === null || tx.blockNumber === undefined) return null; // in the mempool
    if (this.hash(tx.hash, `${method} (hash)`) !== hash.toLowerCase()) throw this.malformed(method, `another transaction came for ${hash}`);
    if (tx.to !== null && (typeof tx.to !== "string" || !EVM_ADDRESS.test(tx.to))) throw this.malformed(method, "the recipient is not an address");
    return {
      txHash: hash.toLowerCase(),
      to: tx.to === null ? null : tx.to.toLowerCase(),
      value: this.quantity(tx.value, `${method} (value)`),
      blockNumber: this.blockNumberOf(tx.blockNumber, `${method} (blockNumber)`),
      blockHash: this.hash(tx.blockHash, `${method} (blockHash)`),
    };
  }

  /**
   * A watcher pass begins: the native payments it will ask about, so one scan of the new blocks
   * serves them all (and addresses no longer watched are forgotten), with the receipts recorded for
   * them: those keyed by a transaction hash that the scan does not find are looked up by hash.
   */
  beginPass(payments: readonly { address: string; since: Date; receipts: readonly { key: string }[] }[]): void {
    const addresses = new Map<string, number>();
    const known = new Map<string, string>();
    for (const { address, since, receipts } of payments) {
      if (!EVM_ADDRESS.test(address) || Number.isNaN(since.getTime())) continue; // refused when asked about
      const from = this.scanFrom(since);
      const to = address.toLowerCase();
      addresses.set(to, Math.min(from, addresses.get(to) ?? from));
      for (const { key } of receipts) if (HASH.test(key)) known.set(key.toLowerCase(), to);
    }
    this.scanner.beginPass(addresses, known);
  }

  /**
   * The native coin paid to `address` since about `since`: one receipt per transfer found in the
   * blocks (key and txHash the transaction's hash), and what the balance holds beyond them as
   * `balance:internal:confirmed` / `balance:internal:unconfirmed` (transfers made inside contract
   * calls, or older than the scan reaches).
   */
  async nativeReceipts(address: string, options: { since: Date; requiredConfirmations: number }): Promise<ObservedReceipt[]> {
    checkAddress(address);
    if (Number.isNaN(options.since.getTime())) throw new RangeError("since is not a valid date");
    let recheckHead = true;
    for (let read = 1; ; read++) {
      try {
        const receipts = await this.nativeRead(address, { ...options, recheckHead });
        if (receipts !== null) return receipts;
        // The head moved on while a balance beyond the transfers was read: read once more at the new head.
        recheckHead = false;
        this.scanner.resync();
      } catch (error) {
        // A reorganisation since the scan's sync: not a failing node; the blocks are read again at the new head.
        if (!(error instanceof BlockLeftChainError) || read >= REORG_REREADS) throw error;
        this.scanner.resync();
      }
    }
  }

  /**
   * nativeReceipts' one read, from the scan's current view. With `recheckHead`, null when the balance
   * holds more than the transfers found and the chain's head is past the view's: a node may answer
   * the state of its newest block from its live state while it imports the next one (anvil does, seen
   * as a hash-less receipt of a plain transfer for one pass), so such a balance is read again at the
   * new head before it is told as value moved inside contract calls. Once only: on a fast chain the
   * head moves on during most reads, and a real internal transfer must still be told.
   */
  private async nativeRead(
    address: string,
    options: { since: Date; requiredConfirmations: number; recheckHead: boolean },
  ): Promise<ObservedReceipt[] | null> {
    const required = Math.max(1, Math.floor(options.requiredConfirmations));
    const view = await this.scanner.transfersTo(address.toLowerCase(), this.scanFrom(options.since));
    const confirmedAt = view.head - required + 1;
    const confirmedBlock = view.hashAt(confirmedAt) ?? confirmedAt; // now: the window moves on
    const transfers = (await Promise.all(view.transfers.map(async (t) => ((await this.succeeded(t)) ? t : null)))).filter(
      (t): t is ScannedTransfer => t !== null,
    );
    const receipts: ObservedReceipt[] = await this.withFinality(
      transfers.map((t) => ({
        key: t.txHash,
        txHash: t.txHash,
        amount: fromBaseUnits(t.value, NATIVE_DECIMALS),
        confirmations: view.head - t.blockNumber + 1,
        blockHeight: t.blockNumber,
      })),
    );
    // The balance at the scanned head, beyond the transfers found: value moved inside contract calls.
    const sum = (list: ScannedTransfer[]) => list.reduce((total, t) => total + t.value, 0n);
    const beyond = (await this.balance(address, view.headHash)) - sum(transfers);
    if (beyond <= 0n) return receipts;
    if (options.recheckHead && (await this.blockNumber()) > view.head) return null;
    const confirmedBalance = confirmedAt < 0 ? 0n : await this.balance(address, confirmedBlock);
    const confirmedBeyond = confirmedBalance - sum(transfers.filter((t) => t.blockNumber <= confirmedAt));
    const confirmed = confirmedBeyond < 0n ? 0n : confirmedBeyond < beyond ? confirmedBeyond : beyond;
    const internal = (key: string, value: bigint, confirmations: number): ObservedReceipt => ({
      key,
      txHash: null,
      amount: fromBaseUnits(value, NATIVE_DECIMALS),
      confirmations,
      blockHeight: null,
    });
    if (confirmed > 0n) receipts.push(internal("balance:internal:confirmed", confirmed, required));
    if (beyond > confirmed) receipts.push(internal("balance:internal:unconfirmed", beyond - confirmed, 0));
    return receipts;
  }

  /** Transfers of `token` to `address` since about `since`; with `minedAt`, each mined one with its block's time. */
  async tokenReceipts(token: TokenContract, address: string, options: { since: Date; minedAt?: boolean }): Promise<ObservedReceipt[]> {
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
    const logs = [...found.values()];
    const times = options.minedAt === true ? await this.blockTimesOf(logs) : new Map<string, number>();
    return this.withFinality(
      logs
        .map((log) => {
          const time = times.get(blockKey(log));
          return {
            key: log.key,
            txHash: log.txHash,
            amount: fromBaseUnits(log.value, token.decimals),
            confirmations: log.blockNumber === null ? 0 : Math.max(1, head - log.blockNumber + 1),
            blockHeight: log.blockNumber,
            ...(time === undefined ? {} : { minedAt: new Date(time * 1000) }),
          };
        })
        .sort((a, b) => (a.blockHeight ?? Number.MAX_SAFE_INTEGER) - (b.blockHeight ?? Number.MAX_SAFE_INTEGER) || (a.key < b.key ? -1 : 1)),
    );
  }

  /** The times of the logs' blocks: one header per block not yet remembered. */
  private async blockTimesOf(logs: readonly RpcLog[]): Promise<Map<string, number>> {
    const times = new Map<string, number>();
    for (const log of logs) {
      if (log.blockNumber === null) continue;
      const key = blockKey(log);
      let time = this.blockTimes.get(key);
      if (time === undefined) {
        time = await this.blockTimestamp(log.blockNumber);
        this.blockTimes.set(key, time);
        if (this.blockTimes.size > MINED_AT_CACHE_SIZE) this.blockTimes.delete(this.blockTimes.keys().next().value as string);
      }
      times.set(key, time);
    }
    return times;
  }

  /** A block mined no later than `since` minus the margin (or block 0). */
  async firstBlockSince(since: Date, head: number): Promise<number> {
    if (Number.isNaN(since.getTime())) throw new RangeError("since is not a valid date");
    return this.firstBlockAt(Math.floor(since.getTime() / 1000) - this.sinceMarginSeconds, head);
  }

  /** A block mined no later than `target` (Unix seconds), or block 0. */
  async firstBlockAt(target: number, head: number): Promise<number> {
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

  /**
   * The start-up check (the watcher asks it when it starts, before any payment): the chain check the
   * first call makes, shared with it. What the node is on, for the log; else a ChainNodeError naming the variable.
   */
  async checkNode(): Promise<string> {
    const { chain } = this;
    return this.pool.use(async (node) => {
      const id = chain === undefined ? this.quantity(await this.request(node, "eth_chainId", []), "eth_chainId") : await this.checkChain(node, chain);
      const known = CHAIN_NAMES.get(id);
      return `chain id ${id}${known ? ` (${known})` : ""}${this.pool.size > 1 ? ` at ${node.name}` : ""}`;
    });
  }

  /** One JSON-RPC call on the first healthy node; its `result`, or a ChainNodeError. The node's chain is checked first. */
  async call(method: string, params: unknown[]): Promise<unknown> {
    const { chain } = this;
    return this.pool.use(async (node) => {
      if (chain !== undefined) await this.checkChain(node, chain);
      return this.request(node, method, params);
    });
  }

  /**
   * eth_chainId, at the first call and after a connection failure: a node on another chain than the
   * mode's is refused (no receipts are read from it), and asked again a minute later.
   */
  private checkChain(node: PoolNode, expected: ExpectedChain): Promise<bigint> {
    const done = this.chainChecks.get(node.index);
    if (done !== undefined && (done.wrongAt === 0 || Date.now() - done.wrongAt < WRONG_CHAIN_RETRY_MS)) return done.check;
    const entry = { check: Promise.resolve(0n), wrongAt: 0 };
    entry.check = (async () => {
      let id: bigint;
      try {
        id = this.quantity(await this.request(node, "eth_chainId", []), "eth_chainId");
      } catch (error) {
        this.chainChecks.delete(node.index);
        throw error;
      }
      if (id === BigInt(expected.id)) return id;
      entry.wrongAt = Date.now();
      const known = CHAIN_NAMES.get(id);
      const { overrideVariable: other } = expected;
      const [wanted, remedy] =
        expected.overridden && other !== undefined
          ? [other, `set ${expected.variable} to a node of chain ${expected.id}, or ${other} to the node's`]
          : [
              expected.network,
              `set ${expected.variable} to a node of ${expected.network}${other && !known ? ` (or ${other}=${id} for a local development chain)` : ""}`,
            ];
      throw new ChainNodeError(
        `${node.name}: the node is on chain id ${id}${known ? ` (${known})` : ""}, not ${expected.id} (${wanted}): ${remedy}`,
        {
          reason: "wrong_network",
        },
      );
    })();
    this.chainChecks.set(node.index, entry);
    return entry.check;
  }

  private async request(node: PoolNode, method: string, params: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    let text: string;
    try {
      text = await requestText(node.url, {
        node: `${node.name} ${method}`,
        timeoutMs: this.timeoutMs,
        headers: this.headers,
        json: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
      });
    } catch (error) {
      this.chainChecks.delete(node.index); // the node may come back as another one
      throw error;
    }
    const malformed = (what: string) => new ChainNodeError(`${node.name}: ${method} answered nonsense: ${what}`, { reason: "malformed" });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw malformed(`the answer is not JSON: ${quote(text) || "(empty)"}`);
    }
    if (!isRecord(body)) throw malformed("the answer is not a JSON-RPC object");
    if (body.error !== undefined && body.error !== null) {
      const error = body.error;
      const code = isRecord(error) && typeof error.code === "number" ? ` ${error.code}` : "";
      const message = isRecord(error) && typeof error.message === "string" ? error.message : quote(JSON.stringify(error));
      throw new EvmRpcError(
        `${node.name}: ${method} failed: JSON-RPC error${code}: ${message}`,
        isRecord(error) && typeof error.code === "number" ? error.code : null,
      );
    }
    if (body.id !== id) throw malformed(`the answer's id ${JSON.stringify(body.id)} is not the request's ${id}`);
    if (!("result" in body)) throw malformed("the answer has neither result nor error");
    return body.result;
  }

  /** The scan starts a little before the address was handed out (clocks differ). */
  private scanFrom(since: Date): number {
    return Math.floor(since.getTime() / 1000) - this.scanMarginSeconds;
  }

  /**
   * Whether a transaction found in a block succeeded there (eth_getTransactionReceipt, asked once):
   * a reverted call to an address with code moved nothing. A receipt missing or in another block
   * (a reorganisation under way) rejects; the address is read again at the next pass.
   */
  private async succeeded(t: ScannedTransfer): Promise<boolean> {
    const key = `${t.txHash}:${t.blockHash}`;
    const known = this.statuses.get(key);
    if (known !== undefined) return known;
    const receipt = await this.call("eth_getTransactionReceipt", [t.txHash]);
    if (receipt !== null && !isRecord(receipt)) throw this.malformed("eth_getTransactionReceipt", "the receipt is not an object");
    if (receipt === null || String(receipt.blockHash).toLowerCase() !== t.blockHash) {
      throw new BlockLeftChainError(`${this.name}: the receipt of ${t.txHash} is not in block ${t.blockNumber} (${t.blockHash}) any more`);
    }
    const status = this.quantity(receipt.status, "eth_getTransactionReceipt (status)");
    this.statuses.set(key, status === 1n);
    if (this.statuses.size > STATUS_CACHE_SIZE) this.statuses.delete(this.statuses.keys().next().value as string);
    return status === 1n;
  }

  private parseBlock(value: unknown, number: number, full: boolean): ScannedBlock {
    const method = "eth_getBlockByNumber";
    if (value === null) throw new ChainNodeError(`${this.name}: block ${number} not found`);
    if (!isRecord(value)) throw this.malformed(method, "the block is not an object");
    const got = this.blockNumberOf(value.number, `${method} (number)`);
    if (got !== number) throw this.malformed(method, `block ${got} came for block ${number}`);
    const hash = this.hash(value.hash, `${method} (hash)`);
    const block: ScannedBlock = {
      number,
      hash,
      parentHash: this.hash(value.parentHash, `${method} (parentHash)`),
      timestamp: this.blockNumberOf(value.timestamp, `${method} (timestamp)`),
      transfers: [],
    };
    if (!full) return block;
    if (!Array.isArray(value.transactions)) throw this.malformed(method, "the block has no transaction list");
    for (const tx of value.transactions) {
      if (!isRecord(tx)) throw this.malformed(method, "a transaction is not an object (asked with full transactions)");
      if (tx.to === null || tx.to === undefined) continue; // a contract creation
      if (typeof tx.to !== "string" || !EVM_ADDRESS.test(tx.to)) throw this.malformed(method, "a transaction's recipient is not an address");
      const amount = this.quantity(tx.value, `${method} (value)`);
      if (amount === 0n) continue;
      const txHash = this.hash(tx.hash, `${method} (transaction hash)`);
      block.transfers.push({ txHash, to: tx.to.toLowerCase(), value: amount, blockNumber: number, blockHash: hash, timestamp: block.timestamp });
    }
    return block;
  }

  private hash(value: unknown, method: string): string {
    if (typeof value !== "string" || !HASH.test(value))
      throw this.malformed(method, `${quote(JSON.stringify(value) ?? "undefined")} is not a 32-byte hash`);
    return value.toLowerCase();
  }

  private parseLog(entry: unknown, contract: string, recipient: string): RpcLog | null {
    if (!isRecord(entry)) throw this.malformed("eth_getLogs", "a log is not an object");
    if (entry.removed === true) return null;
    const { address, topics, data, transactionHash, logIndex, blockNumber, blockHash } = entry;
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
    return {
      key: `${transactionHash.toLowerCase()}:${index}`,
      txHash: transactionHash.toLowerCase(),
      blockNumber: height,
      blockHash: typeof blockHash === "string" ? blockHash.toLowerCase() : null,
      value,
    };
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
    return new ChainNodeError(`${this.name}: ${method} answered nonsense: ${what}`, { reason: "malformed" });
  }
}

/** A minute of blocks, at least 2: a node further behind is not following the chain. */
export function defaultMaxLagBlocks(blockTimeSeconds: number): number {
  return Math.max(2, Math.ceil(60 / blockTimeSeconds));
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

/** A log's block as the block times are remembered by. */
function blockKey(log: RpcLog): string {
  return `${log.blockNumber}:${log.blockHash ?? ""}`;
}
