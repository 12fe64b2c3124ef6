// Native coin transfers (ETH, BNB) found by reading blocks, for every watched address at once: a node
// lists no transfers by address, so the scanner reads each new block once (eth_getBlockByNumber with
// full transactions) and keeps the transfers (a transaction with a `to` and a value) of interest.
// The node requests of a pass therefore follow the blocks mined, not the addresses watched.
//
// What is kept:
// - the window: the last `windowBlocks` blocks (hash, parent hash, timestamp, every transfer), so
//   a reorganisation within it is seen (parent hashes are checked on every read) and an address
//   first asked about shortly after it was handed out finds its transfers without a new read;
// - the transfers to watched addresses, also after their block leaves the window (it is then taken
//   as final).
// An address asked about whose `since` lies before the window's first block is covered by reading
// the blocks from `since` (less the margin, at most `lookbackBlocks` back) to the window once, for
// every such address of that pass at once; older transfers are the balance fallback's (evm-rpc.ts).
//
// Transfers recorded before (the watch list's receipts keyed by a transaction hash, given with the
// pass) that the scan did not find are looked up by hash at the pass's sync: a process that starts
// (its window empty) would otherwise miss those older than the lookback, and the caller would take
// them for reorganised away. One found in a block before the window whose hash is still the
// chain's (one header per block, however many transfers it holds) is kept like the others; one the
// node knows in no block, or in a block replaced since, is gone. Within the window the window
// decides. So the requests grow with the transfers not found, not with the blocks since the restart.
//
// Each sync (one per pass, or when the last is older than `maxAgeMs`): the head number; the blocks
// after the last one read, or the head's header when none were mined; then parent hashes from the
// head down until they meet the blocks checked before. A block whose hash changed is read again and
// its transfers replace the old ones, so a transfer reorganised away disappears; a shorter chain
// drops the blocks above its head.
import { ChainNodeError } from "./errors.ts";

export interface ScannedBlock {
  number: number;
  hash: string;
  parentHash: string;
  /** Unix seconds. */
  timestamp: number;
  transfers: ScannedTransfer[];
}

export interface ScannedTransfer {
  txHash: string;
  /** Lower case. */
  to: string;
  value: bigint;
  blockNumber: number;
  blockHash: string;
  timestamp: number;
}

/** A transaction the node finds by its hash, in a block. */
export interface MinedTransaction {
  txHash: string;
  /** Lower case; null for a contract creation. */
  to: string | null;
  value: bigint;
  blockNumber: number;
  blockHash: string;
}

/** What the scanner asks of the node (EvmRpcClient). */
export interface BlockSource {
  /** Names the node in messages. */
  readonly name: string;
  blockNumber(): Promise<number>;
  /** With its transfers; a ChainNodeError when the node has no such block. */
  block(number: number): Promise<ScannedBlock>;
  /** Hash and parent only (no transactions). */
  header(number: number): Promise<Omit<ScannedBlock, "transfers">>;
  /** A block mined no later than `target` (Unix seconds), or block 0. */
  firstBlockAt(target: number, head: number): Promise<number>;
  /** The transaction of this hash with its block; null when the node knows none, or it waits in the mempool. */
  transaction(hash: string): Promise<MinedTransaction | null>;
}

export interface ScanOptions {
  windowBlocks: number;
  lookbackBlocks: number;
  /** How long one sync serves the reads outside a watcher pass. */
  maxAgeMs: number;
}

export interface ScanView {
  head: number;
  headHash: string;
  /** The hash of block `n` when it is in the window. */
  hashAt(n: number): string | undefined;
  transfers: ScannedTransfer[];
}

/** Blocks read at once when several are due. */
const PARALLEL_READS = 4;

export class BlockScanner {
  private readonly window = new Map<number, ScannedBlock>();
  private low = 0;
  private high = -1;
  /** Every parent link of the window at or below this block has been checked. */
  private checked = -1;
  /** Recipient → tx hash → transfer: everything in the window, and older transfers to watched addresses. */
  private readonly index = new Map<string, Map<string, ScannedTransfer>>();
  /** Covered addresses → the earliest instant (Unix seconds) they are read from. */
  private readonly watched = new Map<string, number>();
  /** Addresses not covered yet, read at the next sync. */
  private readonly pending = new Map<string, number>();
  /** Transfers recorded before (tx hash → recipient) not found in the index: looked up at the next sync. */
  private readonly unconfirmed = new Map<string, string>();
  private syncing: Promise<void> | null = null;
  private started = 0;
  private completed = 0;
  private syncedAt = Number.NEGATIVE_INFINITY;
  /** A pass began: the next read syncs, whatever its age. */
  private passBegan = false;

  constructor(
    private readonly source: BlockSource,
    private readonly options: ScanOptions,
  ) {}

  /**
   * A watcher pass begins with these addresses (lower case → Unix seconds from which they are read):
   * the others are forgotten, the new ones are covered together at the next sync. `known`: the
   * transfers to them recorded before (tx hash → recipient, lower case); those the scan does not
   * find are looked up by hash at that sync.
   */
  beginPass(addresses: Map<string, number>, known: Map<string, string> = new Map()): void {
    this.passBegan = true;
    for (const address of [...this.watched.keys(), ...this.pending.keys()]) {
      if (!addresses.has(address)) this.forget(address);
    }
    for (const [address, from] of addresses) this.want(address, from);
    this.unconfirmed.clear();
    for (const [hash, to] of known) if (addresses.has(to) && !this.index.get(to)?.has(hash)) this.unconfirmed.set(hash, to);
  }

  /** The view's blocks may have left the chain (a balance at its head's hash was refused): the next read syncs, whatever its age. */
  resync(): void {
    this.passBegan = true;
  }

  /** The transfers to `address` in blocks mined from `from` (Unix seconds) to the head. */
  async transfersTo(address: string, from: number): Promise<ScanView> {
    this.want(address, from);
    // The sync that serves this read: the last one while it is fresh; else the one under way (its
    // head is at most one sync old), or a new one; after beginPass, one started since.
    const fresh = Date.now() - this.syncedAt < this.options.maxAgeMs;
    const needed = this.passBegan ? this.started + 1 : fresh ? this.completed : Math.max(this.started, this.completed + 1);
    while (this.completed < needed || this.pending.has(address)) {
      this.syncing ??= this.sync().finally(() => {
        this.syncing = null;
      });
      await this.syncing;
    }
    const head = this.window.get(this.high);
    if (head === undefined) throw new Error("the scanner has no head after a sync");
    const transfers = [...(this.index.get(address)?.values() ?? [])].filter((t) => t.timestamp >= from && t.blockNumber <= head.number);
    return {
      head: head.number,
      headHash: head.hash,
      hashAt: (n) => this.window.get(n)?.hash,
      transfers: transfers.sort((a, b) => a.blockNumber - b.blockNumber || (a.txHash < b.txHash ? -1 : 1)),
    };
  }

  private want(address: string, from: number): void {
    const known = Math.min(this.watched.get(address) ?? Number.POSITIVE_INFINITY, this.pending.get(address) ?? Number.POSITIVE_INFINITY);
    if (from < known) this.pending.set(address, from);
  }

  private forget(address: string): void {
    this.pending.delete(address);
    this.watched.delete(address);
    const found = this.index.get(address);
    if (found === undefined) return;
    for (const [key, t] of found) if (!this.window.has(t.blockNumber)) found.delete(key);
    if (found.size === 0) this.index.delete(address);
  }

  private async sync(): Promise<void> {
    const number = ++this.started;
    this.passBegan = false;
    const covering = new Map(this.pending);
    const known = new Map(this.unconfirmed);
    const head = await this.source.blockNumber();
    await this.follow(head, covering);
    await this.cover(head, covering);
    for (const [address, from] of covering) {
      const wanted = this.pending.get(address);
      if (wanted === undefined && !this.watched.has(address)) continue; // forgotten meanwhile
      if (wanted === from) this.pending.delete(address); // an earlier `from` asked meanwhile stays pending
      this.watched.set(address, Math.min(from, this.watched.get(address) ?? from));
    }
    await this.confirm(known);
    for (const [hash, to] of known) if (this.unconfirmed.get(hash) === to) this.unconfirmed.delete(hash);
    this.completed = number;
    this.syncedAt = Date.now();
  }

  /** Brings the window to `head`, checking parent hashes down to the blocks checked before. */
  private async follow(head: number, covering: Map<string, number>): Promise<void> {
    if (this.high < 0 || head - this.high > this.options.lookbackBlocks || head < this.low) {
      // First sync, the node away longer than the lookback, or a chain shorter than the window: start
      // afresh, and cover every address again.
      this.clearWindow(head);
      for (const [address, from] of this.watched) if (!covering.has(address)) covering.set(address, from);
      const from = earliest(covering.values());
      const lowest = Math.max(0, head - this.options.windowBlocks + 1);
      const start = from === undefined ? head : Math.max(lowest, await this.source.firstBlockAt(from, head));
      this.low = start;
      this.high = start - 1;
    }
    for (let n = this.high; n > head; n--) this.drop(n);
    if (head > this.high) {
      await this.eachBlock(this.high + 1, head, (block) => {
        this.put(block);
        if (this.high - this.low + 1 > this.options.windowBlocks) this.trim();
      });
    } else {
      const top = await this.source.header(head);
      if (top.hash !== this.window.get(head)?.hash) this.put(await this.source.block(head));
    }
    let n = head;
    let reread = false;
    while (n > this.low) {
      const child = this.window.get(n);
      const parent = this.window.get(n - 1);
      if (child === undefined || parent === undefined) throw new Error(`the scanner's window lacks block ${n}`);
      if (parent.hash === child.parentHash) {
        if (n - 1 <= this.checked) break;
        n--;
        reread = false;
      } else if (reread) {
        throw new ChainNodeError(`${this.source.name}: block ${n - 1} changed again while the chain was read; it is read again at the next pass`);
      } else {
        this.put(await this.source.block(n - 1));
        reread = true;
      }
    }
    this.checked = head;
  }

  /** Reads the blocks before the window that addresses handed out earlier need, once for all of them. */
  private async cover(head: number, covering: Map<string, number>): Promise<void> {
    const first = this.window.get(this.low);
    if (first === undefined || this.low === 0) return;
    const early = [...covering].filter(([, from]) => from < first.timestamp);
    const from = earliest(early.map(([, f]) => f));
    if (from === undefined) return;
    const start = Math.max(0, head - this.options.lookbackBlocks + 1, await this.source.firstBlockAt(from, head));
    const recipients = new Set(early.map(([address]) => address));
    await this.eachBlock(start, this.low - 1, (block) => {
      for (const t of block.transfers) if (recipients.has(t.to) || this.watched.has(t.to)) this.add(t);
    });
  }

  /**
   * Looks up by hash the transfers recorded before that the scan did not find, and keeps those in a
   * block before the window that is still the chain's (the window's own blocks were all read: a
   * transfer not found there is not in them). One header per block, however many transfers it holds.
   */
  private async confirm(known: Map<string, string>): Promise<void> {
    const missing = [...known].filter(([hash, to]) => this.watched.has(to) && !this.index.get(to)?.has(hash));
    const looked = await inGroups(missing, ([hash]) => this.source.transaction(hash));
    const older = missing.flatMap(([, to], i) => {
      const tx = looked[i];
      return tx && tx.to === to && tx.value > 0n && tx.blockNumber < this.low ? [{ ...tx, to }] : [];
    });
    const numbers = [...new Set(older.map((tx) => tx.blockNumber))];
    const headers = new Map((await inGroups(numbers, (n) => this.source.header(n))).map((header) => [header.number, header]));
    for (const tx of older) {
      const header = headers.get(tx.blockNumber);
      if (header?.hash !== tx.blockHash) continue; // its block was replaced: the transfer is gone
      this.add({ txHash: tx.txHash, to: tx.to, value: tx.value, blockNumber: tx.blockNumber, blockHash: tx.blockHash, timestamp: header.timestamp });
    }
  }

  /** Reads blocks `from` to `to` in order, a few at once, handing each to `visit` as it comes. */
  private async eachBlock(from: number, to: number, visit: (block: ScannedBlock) => void): Promise<void> {
    for (let at = from; at <= to; at += PARALLEL_READS) {
      const batch = Array.from({ length: Math.min(PARALLEL_READS, to - at + 1) }, (_, i) => this.source.block(at + i));
      for (const block of await Promise.all(batch)) visit(block);
    }
  }

  /** Puts a block read now in the window, replacing the one of its number. */
  private put(block: ScannedBlock): void {
    const old = this.window.get(block.number);
    if (old !== undefined) {
      if (old.hash === block.hash) return;
      for (const t of old.transfers) this.remove(t);
    }
    this.window.set(block.number, block);
    for (const t of block.transfers) this.add(t);
    this.low = Math.min(this.low, block.number);
    this.high = Math.max(this.high, block.number);
    this.checked = Math.min(this.checked, block.number - 1);
  }

  private drop(n: number): void {
    const block = this.window.get(n);
    if (block !== undefined) for (const t of block.transfers) this.remove(t);
    this.window.delete(n);
    this.high = n - 1;
    this.checked = Math.min(this.checked, n - 1);
  }

  /** The window's oldest block leaves it; its transfers to watched addresses stay. */
  private trim(): void {
    const block = this.window.get(this.low);
    this.window.delete(this.low);
    this.low++;
    for (const t of block?.transfers ?? []) if (!this.watched.has(t.to) && !this.pending.has(t.to)) this.remove(t);
  }

  /** Empties the window; transfers to watched addresses stay, unless above `head` (a shorter chain). */
  private clearWindow(head: number): void {
    for (const block of this.window.values()) for (const t of block.transfers) if (!this.watched.has(t.to)) this.remove(t);
    for (const found of this.index.values()) for (const t of found.values()) if (t.blockNumber > head) this.remove(t);
    this.window.clear();
    this.low = 0;
    this.high = -1;
    this.checked = -1;
  }

  private add(t: ScannedTransfer): void {
    const found = this.index.get(t.to) ?? new Map<string, ScannedTransfer>();
    this.index.set(t.to, found);
    found.set(t.txHash, t);
  }

  private remove(t: ScannedTransfer): void {
    const found = this.index.get(t.to);
    if (found?.get(t.txHash) !== t) return;
    found.delete(t.txHash);
    if (found.size === 0) this.index.delete(t.to);
  }
}

/** `read` of every item, a few at once; the answers in the items' order. */
async function inGroups<T, R>(items: readonly T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const answers: R[] = [];
  for (let at = 0; at < items.length; at += PARALLEL_READS) answers.push(...(await Promise.all(items.slice(at, at + PARALLEL_READS).map(read))));
  return answers;
}

function earliest(values: Iterable<number>): number | undefined {
  let min: number | undefined;
  for (const v of values) if (min === undefined || v < min) min = v;
  return min;
}
