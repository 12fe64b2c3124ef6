// A Bitcoin Core / Litecoin Core JSON-RPC client for BTC and LTC on the merchant's own node
// (Litecoin Core forked Bitcoin Core 0.21 and speaks the same RPC; the tests run on litecoind).
//
// Auth: the URL's user:password, or a cookie file (`__cookie__:…`, the `.cookie` in the node's
// datadir, read again at every request since the node writes a new one when it restarts). Wallet
// calls go to `/wallet/NAME`. Messages name the node by host, the method and the node's own message;
// never the password.
//
// Watching. The handed-out addresses are imported into a watch-only descriptor wallet on the node
// (created if missing: `createwallet NAME disable_private_keys blank descriptors`), as `addr(A)#checksum`,
// once per address: all addresses new to a pass in `importdescriptors` requests of 100. A node built
// without SQLite (Debian's litecoind 0.21) has no descriptor wallets: there the wallet is a legacy
// watch-only one and the addresses go in by `importmulti` (watchonly, with its rescan), 100 a request as
// well. Bitcoin Core 0.21 to 28 has both. Each address is imported with the time it was handed out
// (initiate's time, less the block-time margin, sinceMarginMs) as its timestamp, and the node rescans
// the blocks from then (Core starts 2 h before the oldest timestamp of a request): an import that lands
// late (the node away at initiate, a restart before the import, a pass that imports what initiate's
// import missed) still finds a payment mined before it. A fresh address costs a rescan of the last hours'
// blocks. An address the wallet already holds with a timestamp as early (an import by an earlier run:
// getaddressinfo, one batch) is not imported again, so a restart rescans nothing for it. The same question
// is asked again of every address when the node may be another (issue 42): it went away (a refused
// connection, no cookie), its wallet is missing, or it does not know the last block read (`Block not
// found`); a node replaced or resynced from scratch at runtime then gets the addresses it lacks.
// An address is imported when it is handed out (handedOut, from initiate; the pass imports what that
// missed, as after a restart or a node that was away). A wallet learns of mempool transactions only as
// they arrive, and Core before 24 does not look at its mempool on import (Litecoin Core 0.21 does not):
// so after each import the mempool is read (`getrawmempool`, and `getrawtransaction` of each transaction
// not decoded before, in batches) for outputs to the addresses just imported, and a payment broadcast
// before its address reached the wallet is seen at 0 confirmations, not only once mined (the wallet
// then lists it from its block). A pass then costs two requests whatever the
// number of addresses: `getblockchaininfo` (the chain check, and the tip) and one `listsinceblock`
// from the block the last pass ended at, with its `removed` list (transactions of blocks reorganised
// away since then). Every wallet transaction seen is kept in memory, keyed by txid: each output to a
// watched address is a receipt `txid:vout`, as Esplora's are; confirmations come from the node
// (tip − block height + 1 for a transaction not listed again). A transaction ends (its receipts
// disappear) when the node reports it in conflict (negative confirmations: a conflicting transaction
// was mined), replaced (`replaced_by_txid`), or unconfirmed but no longer in its mempool (replaced by
// fee, double spent, or made invalid by a reorganisation): the wallet's unconfirmed transactions are
// looked up with `getmempoolentry`, all in one JSON-RPC batch, in the passes that have any. The wallet
// follows the chain a moment behind the node (it hears of blocks through the node's validation queue,
// while a block leaves the mempool at once): a transaction just mined is, for that moment, neither in
// the mempool nor confirmed in the wallet's view. So one missing from the mempool is taken as gone only
// when the wallet's last block (listsinceblock's `lastblock`) is still the node's tip after the mempool
// was read (`getbestblockhash`); otherwise it keeps its state until the next pass.
//
// Start-up checks, when the watcher starts (checkNode, before any payment) and at each pass until they pass: `getblockchaininfo`'s chain is the one
// configured (main, test, regtest, signet), and the wallet is loaded, loadable or creatable, and holds
// no private keys. Each failure is one ChainNodeError naming the variable to fix.
import { readFile } from "node:fs/promises";
import type { ObservedReceipt } from "../../core/ports.ts";
import { Decimal } from "../../core/money/amounts.ts";
import { describeFailure, fetchPrefix, hostOf, quote } from "../http/outbound.ts";
import { failureReason } from "./http.ts";
import { isExactObject, JsonNumber, parseExactJson, type ExactJson, type ExactObject } from "../prices/exact-json.ts";
import { ChainNodeError } from "./errors.ts";

/** A wallet's listing of a busy node may be large; far more is not the API we asked. */
const MAX_BODY_BYTES = 64_000_000;
/** Core's error codes that mean "no such wallet" (not found, not loaded). */
const WALLET_NOT_FOUND = -18;
/** listsinceblock's code for a block the node does not know (RPC_INVALID_ADDRESS_OR_KEY). */
const BLOCK_NOT_FOUND = -5;
/**
 * Addresses per import request. The node's time per address grows with the batch (litecoind 0.21:
 * 10,000 in one importmulti took 33 s, 500 at a time 0.25 s each; a busy machine took 14 ms an
 * address, without a rescan), and each request rescans the blocks since its oldest timestamp; a batch
 * done is remembered, so an interrupted import goes on from there.
 */
const IMPORT_BATCH = 100;
/**
 * The wait for an import request: the node answers once its rescan of the blocks since the oldest
 * timestamp is done (seconds for recent blocks), longer than the node timeout. An import that fails is
 * made again rather than trusted (importAgain): its rescan may have been cut short.
 */
const IMPORT_TIMEOUT_MS = 120_000;
/** Addresses asked per getaddressinfo batch (whether the wallet already watches them). */
const KNOWN_BATCH = 1_000;
/** getmempoolentry's code for a transaction the mempool does not hold. */
const NOT_IN_MEMPOOL = -5;
/** Mempool transactions decoded per request (getrawtransaction batches) when an import looks for earlier payments. */
const MEMPOOL_DECODE_BATCH = 200;
/** An input's nSequence below this signals replaceability (BIP 125). */
const BIP125_FINAL_SEQUENCE = 0xfffffffe;
const HASH = /^[0-9a-f]{64}$/;
const AMOUNT = /^\d{1,12}(\.\d{1,8})?$/;

export type CoreChain = "main" | "test" | "regtest" | "signet";

export interface CoreRpcOptions {
  /** http://user:password@host:port (credentials optional with a cookie file). */
  url: string;
  /** The node's `.cookie` file: used instead of the URL's credentials. */
  cookieFile?: string | undefined;
  /** The watch-only wallet that holds the handed-out addresses. */
  wallet: string;
  /** The chain the node must be on (getblockchaininfo's `chain`). */
  chain: CoreChain;
  timeoutMs: number;
  /** Names the node in messages. Default "Core RPC (host)". */
  name?: string;
  /** The variables named in messages. */
  variables: { url: string; cookieFile: string; wallet: string; chain?: string };
  /** How far before `since` a block's timestamp may lie and its transactions still count. Default 6 h. */
  sinceMarginMs?: number;
}

interface WalletOutput {
  address: string;
  vout: number;
  amount: Decimal;
}

interface WalletTx {
  outputs: WalletOutput[];
  /** From the node's answer; negative: in conflict with a mined transaction. */
  confirmations: number;
  blockHeight: number | null;
  blockTime: number | null;
  /** Replaced by another (replaced_by_txid): ended. */
  replaced: boolean;
  /** The node's `bip125-replaceable` is "yes" (an input, or an unconfirmed parent, signals BIP 125). */
  replaceable: boolean;
  /** Unconfirmed: whether the node's mempool still holds it (checkMempool). */
  inMempool: boolean;
}

/** One JSON-RPC call's failure as the node said it (an RPC error), to tell "no such wallet" apart. */
export class CoreRpcError extends ChainNodeError {
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message, { reason: "rpc_error" });
    this.name = "CoreRpcError";
  }
}

export class CoreRpcClient {
  readonly name: string;
  /** Node requests made so far (tests and benchmarks measure a pass with it). */
  requests = 0;
  private readonly base: string;
  private readonly auth: { user: string; password: string } | null;
  private readonly options: CoreRpcOptions;
  private readonly sinceMarginMs: number;
  private id = 0;
  private walletReady = false;
  /** getblockchaininfo found the configured chain, and the node has not been unreachable since. */
  private chainChecked = false;
  /** The wallet being opened (ensureWallet). */
  private walletOpening: Promise<void> | null = null;
  /** A descriptor wallet (importdescriptors); else a legacy one (importmulti). */
  private descriptors = true;
  /**
   * Addresses the pass wants watched, each with its import timestamp (UNIX seconds: when it was handed
   * out, less sinceMarginMs); imported ones; refused ones with the node's reason.
   */
  private readonly wanted = new Map<string, number>();
  private readonly imported = new Set<string>();
  private readonly refused = new Map<string, string>();
  /** Imported, but the mempool not yet read for them (scanMempool). */
  private readonly unscanned = new Set<string>();
  /**
   * To import without asking the wallet first: handed out by this process (new to the wallet), or an
   * import of them that failed (the node may hold them with its rescan cut short).
   */
  private readonly importAgain = new Set<string>();
  private readonly txs = new Map<string, WalletTx>();
  /** Txids by the address they pay: an address's look-up costs its own transactions, not the whole wallet's history. */
  private readonly txidsByAddress = new Map<string, Set<string>>();
  private lastBlock: string | null = null;
  private tip = 0;
  /** Imports one after another (a pass's and handedOut's), so an address is imported and its mempool read once. */
  private importQueue: Promise<void> = Promise.resolve();
  /**
   * Mempool transactions decoded so far (txid → every output with an address, and whether an input
   * signals BIP 125): each is fetched once while it stays in the mempool, whatever the imports.
   */
  private readonly mempoolDecoded = new Map<string, { outputs: WalletOutput[]; replaceable: boolean }>();
  /** This pass's reading of the node; null: read at the next receiptsTo. */
  private pass: Promise<void> | null = null;

  constructor(options: CoreRpcOptions) {
    const url = new URL(options.url);
    this.auth = url.username === "" ? null : { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
    url.username = "";
    url.password = "";
    this.base = url.toString().replace(/\/+$/, "");
    this.options = options;
    this.name = options.name ?? `Core RPC (${hostOf(options.url)})`;
    this.sinceMarginMs = options.sinceMarginMs ?? 6 * 3_600_000;
  }

  /** One JSON-RPC call; `wallet`: to the watch-only wallet's endpoint. */
  async call(method: string, params: unknown[] = [], wallet = false, timeoutMs = this.options.timeoutMs): Promise<ExactJson> {
    const where = `${this.name}: ${method}`;
    const { status, body } = await this.post(where, { jsonrpc: "1.0", id: ++this.id, method, params }, wallet, timeoutMs);
    if (!isExactObject(body)) throw new ChainNodeError(`${where}: HTTP ${status}, not a JSON-RPC answer`, { reason: answerReason(status) });
    this.walletGone(body, wallet, where);
    if (status < 200 || status >= 300) throw new ChainNodeError(`${where}: HTTP ${status}`, { reason: "http_status" });
    return result(body, where);
  }

  /** One method with many parameter lists in one request (a JSON-RPC batch): each answer, or the node's error for it. */
  async batch(method: string, paramLists: unknown[][], wallet = false): Promise<(ExactJson | CoreRpcError)[]> {
    const where = `${this.name}: ${method}`;
    const first = this.id + 1;
    const payload = paramLists.map((params) => ({ jsonrpc: "1.0", id: ++this.id, method, params }));
    const { status, body } = await this.post(where, payload, wallet, this.options.timeoutMs);
    if (!Array.isArray(body)) {
      if (isExactObject(body)) this.walletGone(body, wallet, where);
      throw new ChainNodeError(`${where}: HTTP ${status}, not a JSON-RPC batch answer`, { reason: answerReason(status) });
    }
    const answers = new Map<number, ExactObject>();
    for (const answer of body) {
      const id = isExactObject(answer) ? wholeNumber(answer.get("id")) : null;
      if (id !== null && isExactObject(answer)) answers.set(id, answer);
    }
    return paramLists.map((_, i) => {
      const answer = answers.get(first + i);
      if (answer === undefined)
        throw new ChainNodeError(`${where}: the batch answer lacks request ${i + 1} of ${paramLists.length}`, { reason: "malformed" });
      try {
        rpcError(answer, where);
      } catch (error) {
        if (error instanceof CoreRpcError) return error;
        throw error;
      }
      return result(answer, where);
    });
  }

  /**
   * Throws the node's error of one answer. "No such wallet" at the wallet's endpoint: the node lost it
   * (replaced, or restarted without loading it), so the next read opens it again and checks the imports.
   */
  private walletGone(answer: ExactObject, wallet: boolean, where: string): void {
    try {
      rpcError(answer, where);
    } catch (error) {
      if (wallet && error instanceof CoreRpcError && error.code === WALLET_NOT_FOUND) this.walletReady = false;
      throw error;
    }
  }

  private async post(where: string, payload: unknown, wallet: boolean, timeoutMs: number): Promise<{ status: number; body: ExactJson }> {
    const url = wallet ? `${this.base}/wallet/${encodeURIComponent(this.options.wallet)}` : this.base;
    let authorization: string | null;
    try {
      authorization = await this.authorization();
    } catch (error) {
      // No cookie: the node is stopped, and the one that writes it next may be another (as for a refused connection).
      this.walletReady = false;
      this.chainChecked = false;
      throw error;
    }
    this.requests++;
    const outcome = await fetchPrefix(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...(authorization ? { authorization } : {}) },
      body: JSON.stringify(payload),
      timeoutMs,
      maxBytes: MAX_BODY_BYTES,
    });
    if (!outcome.ok) {
      // The node may have restarted without the wallet loaded: it is looked at again at the next read.
      if (outcome.failure.kind === "transport") {
        this.walletReady = false;
        this.chainChecked = false;
      }
      throw new ChainNodeError(`${where}: ${describeFailure(outcome.failure)}`, { reason: failureReason(outcome.failure) });
    }
    const { status, text } = outcome.value;
    if (status === 401 || status === 403) {
      const variable = this.options.cookieFile ? this.options.variables.cookieFile : this.options.variables.url;
      throw new ChainNodeError(`${where}: the node refused the credentials (HTTP ${status}); check ${variable}`, { reason: "refused" });
    }
    try {
      return { status, body: parseExactJson(text) };
    } catch {
      throw new ChainNodeError(`${where}: HTTP ${status}, not a JSON-RPC answer: ${quote(text.slice(0, 400))}`, { reason: answerReason(status) });
    }
  }

  /**
   * An address was just handed out (initiate, at `since`): it is imported now rather than at the next
   * pass, and the mempool read for a payment already sent to it. Never rejects: what fails here the next
   * pass imports (the address is wanted, with the same timestamp) and says.
   */
  async handedOut(address: string, since: Date): Promise<void> {
    this.want(address, since);
    this.importAgain.add(address);
    try {
      // The chain is checked once (and again after the node was unreachable), not at every address handed out.
      if (!this.chainChecked) await this.chainInfo();
      await this.ensureWallet();
      // Queued behind an import under way, which may take this address too: a burst of initiates costs few imports.
      await this.importNew();
    } catch {
      // The next pass imports it and reports the node's failure.
    }
  }

  /** A pass begins: these addresses, handed out at `since`, are watched (imported at the pass's first read), and the node is read anew. */
  beginPass(addresses: readonly { address: string; since: Date }[]): void {
    for (const { address, since } of addresses) this.want(address, since);
    this.pass = null;
  }

  /** `address` is watched from `since` on: its import's timestamp, the earliest asked. */
  private want(address: string, since: Date): void {
    // Block timestamps may lag (sinceMarginMs, as receiptsTo counts them); never before the epoch.
    const timestamp = Math.max(0, Math.floor((since.getTime() - this.sinceMarginMs) / 1000));
    const known = this.wanted.get(address);
    if (known === undefined || timestamp < known) this.wanted.set(address, timestamp);
  }

  /** Every output paying `address` in the wallet's view: on the best chain, or unconfirmed in the mempool. */
  async receiptsTo(address: string, options: { since: Date }): Promise<ObservedReceipt[]> {
    if (!this.wanted.has(address)) {
      this.want(address, options.since);
      this.pass = null;
    }
    this.pass ??= this.read();
    await this.pass;
    const reason = this.refused.get(address);
    if (reason !== undefined) throw new ChainNodeError(`${this.name}: the node refused to watch ${address}: ${reason}`);
    const cutoff = options.since.getTime() - this.sinceMarginMs;
    const receipts: ObservedReceipt[] = [];
    for (const txid of this.txidsByAddress.get(address) ?? []) {
      const tx = this.txs.get(txid);
      if (tx === undefined || tx.replaced || tx.confirmations < 0 || (tx.confirmations === 0 && !tx.inMempool)) continue;
      if (tx.blockTime !== null && tx.blockTime * 1000 < cutoff) continue;
      const confirmations = tx.blockHeight === null ? 0 : Math.max(1, this.tip - tx.blockHeight + 1);
      for (const output of tx.outputs) {
        if (output.address !== address || output.amount.isZero()) continue;
        receipts.push({
          key: `${txid}:${output.vout}`,
          txHash: txid,
          amount: output.amount,
          confirmations,
          blockHeight: tx.blockHeight,
          ...(confirmations === 0 && tx.replaceable ? { replaceable: true } : {}),
        });
      }
    }
    return receipts.sort(
      (a, b) => (a.blockHeight ?? Number.MAX_SAFE_INTEGER) - (b.blockHeight ?? Number.MAX_SAFE_INTEGER) || (a.key < b.key ? -1 : 1),
    );
  }

  /**
   * What `address` holds now (its unspent outputs, unconfirmed ones too) in the watch-only wallet's
   * view. The wallet knows the addresses the watcher imported; one it does not know is refused rather
   * than shown as empty.
   */
  async balance(address: string): Promise<Decimal> {
    await this.ensureWallet();
    const info = await this.call("getaddressinfo", [address], true);
    const known = isExactObject(info) && (info.get("ismine") === true || info.get("iswatchonly") === true);
    if (!known) throw new ChainNodeError(`${this.name}: ${address} is not in the watch-only wallet ${JSON.stringify(this.options.wallet)}`);
    const unspent = await this.call("listunspent", [0, 9_999_999, [address], true], true);
    if (!Array.isArray(unspent)) throw new ChainNodeError(`${this.name}: listunspent did not answer a list`, { reason: "malformed" });
    let held = new Decimal(0);
    for (const output of unspent) {
      const amount = isExactObject(output) ? output.get("amount") : undefined;
      if (!(amount instanceof JsonNumber) || !AMOUNT.test(amount.text)) {
        throw new ChainNodeError(`${this.name}: listunspent gave an output without a whole number of satoshis`, { reason: "malformed" });
      }
      held = held.plus(amount.text);
    }
    return held;
  }

  /**
   * The start-up check (the watcher asks it when it starts, before any payment): the node's chain and
   * the watch-only wallet, as a pass checks them. What it found, for the log; else a ChainNodeError naming the variable.
   */
  async checkNode(): Promise<string> {
    await this.chainInfo();
    await this.ensureWallet();
    return `chain ${this.options.chain}, ${this.descriptors ? "descriptor" : "legacy"} watch-only wallet ${JSON.stringify(this.options.wallet)}`;
  }

  /** getblockchaininfo, refused unless on the configured chain. */
  private async chainInfo(): Promise<ExactObject> {
    const info = object(await this.call("getblockchaininfo"), "getblockchaininfo");
    const chain = info.get("chain");
    if (chain !== this.options.chain) {
      this.chainChecked = false;
      const variables = [this.options.variables.url, this.options.variables.chain].filter(Boolean).join(" or ");
      throw new ChainNodeError(
        `${this.name}: the node is on chain ${JSON.stringify(chain)}, not ${JSON.stringify(this.options.chain)}: nothing is read from it (fix ${variables})`,
        { reason: "wrong_network" },
      );
    }
    this.chainChecked = true;
    return info;
  }

  /** The wallet opened once, however many ask at the same time (the start-up check and a first pass): one createwallet, not two racing. */
  private ensureWallet(): Promise<void> {
    if (this.walletReady) return Promise.resolve();
    this.walletOpening ??= this.openWallet().finally(() => {
      this.walletOpening = null;
    });
    return this.walletOpening;
  }

  /** One pass's reading: the chain check and tip, the wallet (once), new addresses, what changed since the last block read. */
  private async read(): Promise<void> {
    const info = await this.chainInfo();
    const tip = wholeNumber(info.get("blocks"));
    if (tip === null) throw new ChainNodeError(`${this.name}: getblockchaininfo: no block count`, { reason: "malformed" });
    await this.ensureWallet();
    await this.importNew();
    let since: ExactObject;
    try {
      since = object(await this.call("listsinceblock", [this.lastBlock, 1, true, true], true), "listsinceblock");
    } catch (error) {
      if (!(error instanceof CoreRpcError && error.code === BLOCK_NOT_FOUND && this.lastBlock !== null)) throw error;
      // The node does not know the last block read: another node (replaced, or synced from scratch on a
      // new datadir) whose wallet may hold none of the addresses. Checked and imported again, then read whole.
      this.checkImportsAgain();
      await this.importNew();
      this.lastBlock = null;
      since = object(await this.call("listsinceblock", [null, 1, true, true], true), "listsinceblock");
    }
    const listed = this.parseList(since.get("transactions"), "transactions");
    for (const txid of this.parseList(since.get("removed"), "removed").keys()) {
      if (!listed.has(txid)) this.putTx(txid, null);
    }
    const last = since.get("lastblock");
    if (typeof last !== "string" || !HASH.test(last))
      throw new ChainNodeError(`${this.name}: listsinceblock: no lastblock hash`, { reason: "malformed" });
    for (const [txid, tx] of listed) {
      // Until a mempool read settles it (checkMempool), a transaction keeps what was known of it.
      tx.inMempool = this.txs.get(txid)?.inMempool ?? true;
      this.putTx(txid, tx);
    }
    await this.checkMempool(last);
    this.lastBlock = last;
    this.tip = tip;
  }

  /** Keeps `tx` under `txid` (null: forgets it), with the index by address. */
  private putTx(txid: string, tx: WalletTx | null): void {
    for (const { address } of this.txs.get(txid)?.outputs ?? []) {
      const txids = this.txidsByAddress.get(address);
      txids?.delete(txid);
      if (txids?.size === 0) this.txidsByAddress.delete(address);
    }
    if (tx === null) {
      this.txs.delete(txid);
      return;
    }
    this.txs.set(txid, tx);
    for (const { address } of tx.outputs) {
      const txids = this.txidsByAddress.get(address) ?? new Set<string>();
      txids.add(txid);
      this.txidsByAddress.set(address, txids);
    }
  }

  /**
   * Which unconfirmed transactions are still in the node's mempool, all asked in one batch: one that
   * left it (replaced by fee, double spent, made invalid by a reorganisation) is gone. The wallet keeps
   * such a transaction at 0 confirmations, and a watch-only wallet learns of no replacement.
   * `walletBlock`: the wallet's last block when it listed them. A transaction just mined has left the
   * mempool before the wallet hears of its block: one missing is gone only if the node's tip, read
   * after the mempool, is still that block (else it keeps its state, and the next pass decides).
   */
  private async checkMempool(walletBlock: string): Promise<void> {
    const unconfirmed = [...this.txs].filter(([, tx]) => tx.confirmations === 0 && !tx.replaced);
    if (unconfirmed.length === 0) return;
    const answers = await this.batch(
      "getmempoolentry",
      unconfirmed.map(([txid]) => [txid]),
    );
    const missing: WalletTx[] = [];
    answers.forEach((answer, i) => {
      const tx = (unconfirmed[i] as [string, WalletTx])[1];
      if (answer instanceof CoreRpcError) {
        if (answer.code !== NOT_IN_MEMPOOL) throw answer;
        missing.push(tx);
        return;
      }
      tx.inMempool = true;
      // The mempool's own word (ancestors included) where it gives one: a transaction found by the mempool read has no wallet entry.
      const replaceable = isExactObject(answer) ? answer.get("bip125-replaceable") : undefined;
      if (typeof replaceable === "boolean") tx.replaceable = replaceable;
    });
    if (missing.length === 0) return;
    const tip = await this.call("getbestblockhash");
    if (tip !== walletBlock) return; // a block came, or the wallet is still taking one in: not known yet
    for (const tx of missing) tx.inMempool = false;
  }

  /**
   * After an import: the mempool's transactions paying `addresses`, which the wallet did not see arrive
   * (Core before 24 looks at no mempool on import). Each mempool transaction is decoded once
   * (getrawtransaction, no -txindex needed for the mempool); those found are kept as unconfirmed wallet
   * transactions, looked after by checkMempool and replaced by the wallet's entry once it lists them.
   */
  private async scanMempool(addresses: ReadonlySet<string>): Promise<void> {
    const pool = await this.call("getrawmempool");
    if (!Array.isArray(pool) || !pool.every((txid): txid is string => typeof txid === "string" && HASH.test(txid)))
      throw new ChainNodeError(`${this.name}: getrawmempool: not a list of txids`, { reason: "malformed" });
    const current = new Set(pool);
    for (const txid of this.mempoolDecoded.keys()) if (!current.has(txid)) this.mempoolDecoded.delete(txid);
    const fresh = pool.filter((txid) => !this.mempoolDecoded.has(txid));
    for (let at = 0; at < fresh.length; at += MEMPOOL_DECODE_BATCH) {
      const chunk = fresh.slice(at, at + MEMPOOL_DECODE_BATCH);
      const answers = await this.batch(
        "getrawtransaction",
        chunk.map((txid) => [txid, true]),
      );
      answers.forEach((answer, i) => {
        if (answer instanceof CoreRpcError) {
          if (answer.code !== NOT_IN_MEMPOOL) throw answer;
          return; // left the mempool meanwhile (mined: the wallet lists it from its block)
        }
        this.mempoolDecoded.set(chunk[i] as string, this.decodeRaw(answer));
      });
    }
    for (const txid of pool) {
      const decoded = this.mempoolDecoded.get(txid);
      if (decoded === undefined || this.txs.has(txid)) continue;
      const outputs = decoded.outputs.filter((o) => addresses.has(o.address));
      if (outputs.length === 0) continue;
      this.putTx(txid, {
        outputs,
        confirmations: 0,
        blockHeight: null,
        blockTime: null,
        replaced: false,
        replaceable: decoded.replaceable,
        inMempool: true,
      });
    }
  }

  /** getrawtransaction's decoded transaction: its outputs to an address (Core 22+ `address`, before it `addresses`), and whether an input signals BIP 125. */
  private decodeRaw(value: ExactJson): { outputs: WalletOutput[]; replaceable: boolean } {
    const bad = (what: string): never => {
      throw new ChainNodeError(`${this.name}: getrawtransaction: ${what}`, { reason: "malformed" });
    };
    if (!isExactObject(value)) return bad("not an object");
    const vin = value.get("vin");
    const vout = value.get("vout");
    if (!Array.isArray(vin) || !Array.isArray(vout)) return bad("no vin or vout");
    const replaceable = vin.some((input) => {
      const sequence = isExactObject(input) ? input.get("sequence") : undefined;
      return sequence instanceof JsonNumber && /^\d{1,10}$/.test(sequence.text) && Number(sequence.text) < BIP125_FINAL_SEQUENCE;
    });
    const outputs: WalletOutput[] = [];
    for (const output of vout) {
      if (!isExactObject(output)) return bad("an output is not an object");
      const n = wholeNumber(output.get("n"));
      const amount = output.get("value");
      const script = output.get("scriptPubKey");
      if (n === null || !(amount instanceof JsonNumber) || !AMOUNT.test(amount.text) || !isExactObject(script))
        return bad("an output has no n, value or script");
      const single = script.get("address");
      const several = script.get("addresses");
      const address = typeof single === "string" ? single : Array.isArray(several) && several.length === 1 ? several[0] : undefined;
      if (typeof address === "string") outputs.push({ address, vout: n, amount: new Decimal(amount.text) });
    }
    return { outputs, replaceable };
  }

  /** The watch-only descriptor wallet: loaded, else loaded from disk, else created blank. */
  private async openWallet(): Promise<void> {
    const variable = this.options.variables.wallet;
    const wallet = JSON.stringify(this.options.wallet);
    let info: ExactObject;
    try {
      info = object(await this.call("getwalletinfo", [], true), "getwalletinfo");
    } catch (error) {
      if (!(error instanceof CoreRpcError && error.code === WALLET_NOT_FOUND)) throw error;
      try {
        await this.call("loadwallet", [this.options.wallet]);
      } catch (loadError) {
        if (!(loadError instanceof CoreRpcError && loadError.code === WALLET_NOT_FOUND)) {
          throw new ChainNodeError(`${(loadError as Error).message} (the wallet ${wallet} of ${variable})`);
        }
        try {
          await this.call("createwallet", [this.options.wallet, true, true, "", false, true, true]);
        } catch (createError) {
          // A node built without SQLite (Debian's litecoind) has no descriptor wallets: a legacy watch-only one serves.
          try {
            await this.call("createwallet", [this.options.wallet, true, true, "", false, false, true]);
          } catch {
            throw new ChainNodeError(`${(createError as Error).message}: the wallet ${wallet} (${variable}) could not be created`);
          }
        }
      }
      info = object(await this.call("getwalletinfo", [], true), "getwalletinfo");
    }
    if (info.get("private_keys_enabled") !== false) {
      throw new ChainNodeError(
        `${this.name}: the wallet ${wallet} holds private keys, not only watched addresses: set ${variable} to a new name (it is created) or to a watch-only wallet`,
      );
    }
    this.descriptors = info.get("descriptors") === true;
    // Opened again after the node went away or lost the wallet: it may be another node's, or a new one.
    this.checkImportsAgain();
    this.walletReady = true;
  }

  /**
   * Every address imported so far is asked of the wallet again at the next import (getaddressinfo, a
   * batch per 1,000), and what it does not watch from its hand-out time is imported with it and rescanned:
   * a node replaced or resynced from scratch at runtime holds none of them. Refusals are asked again too.
   */
  private checkImportsAgain(): void {
    this.imported.clear();
    this.refused.clear();
  }

  /**
   * Imports the addresses not yet in the wallet, IMPORT_BATCH a request (the oldest first, so that each
   * request's rescan starts near its own addresses' time), then reads the mempool for payments to them
   * (scanMempool); one the node refuses is remembered with its reason. Imports run one after another.
   * A batch done is remembered (an interrupted import goes on from there); an address counts as
   * imported once the mempool was read for it too.
   */
  private importNew(): Promise<void> {
    const run = this.importQueue.then(async () => {
      const fresh = [...this.wanted]
        .filter(([a]) => !this.imported.has(a) && !this.refused.has(a) && !this.unscanned.has(a))
        .sort(([, a], [, b]) => a - b);
      for (const address of await this.alreadyWatched(fresh)) this.unscanned.add(address);
      const missing = fresh.filter(([a]) => !this.unscanned.has(a));
      for (let at = 0; at < missing.length; at += IMPORT_BATCH) {
        const batch = missing.slice(at, at + IMPORT_BATCH);
        for (const [address] of batch) this.importAgain.add(address);
        for (const address of await this.importBatch(batch)) this.unscanned.add(address);
        for (const [address] of batch) this.importAgain.delete(address);
      }
      if (this.unscanned.size === 0) return;
      await this.scanMempool(this.unscanned);
      for (const address of this.unscanned) this.imported.add(address);
      this.unscanned.clear();
    });
    this.importQueue = run.catch(() => {});
    return run;
  }

  /**
   * Of `fresh` (address, import timestamp), those the wallet already watches from that timestamp or
   * earlier: imported (and rescanned) by an earlier run, so importing them again would only rescan. The
   * ones handed out by this process, or whose import failed, are not asked (importAgain).
   */
  private async alreadyWatched(fresh: readonly [string, number][]): Promise<string[]> {
    const ask = fresh.filter(([a]) => !this.importAgain.has(a));
    const watched: string[] = [];
    for (let at = 0; at < ask.length; at += KNOWN_BATCH) {
      const chunk = ask.slice(at, at + KNOWN_BATCH);
      const answers = await this.batch(
        "getaddressinfo",
        chunk.map(([address]) => [address]),
        true,
      );
      answers.forEach((answer, i) => {
        const [address, timestamp] = chunk[i] as [string, number];
        if (answer instanceof CoreRpcError || !isExactObject(answer)) return; // the import says what is wrong
        const held = answer.get("iswatchonly") === true || answer.get("ismine") === true;
        const since = wholeNumber(answer.get("timestamp"));
        if (held && since !== null && since <= timestamp) watched.push(address);
      });
    }
    return watched;
  }

  /** One import request of (address, timestamp) pairs, the node rescanning from the oldest; the addresses the node took. */
  private async importBatch(fresh: readonly [string, number][]): Promise<string[]> {
    const method = this.descriptors ? "importdescriptors" : "importmulti";
    const results = await this.call(
      method,
      this.descriptors
        ? [fresh.map(([address, timestamp]) => ({ desc: withChecksum(`addr(${address})`), timestamp }))]
        : [fresh.map(([address, timestamp]) => ({ scriptPubKey: { address }, timestamp, watchonly: true })), { rescan: true }],
      true,
      Math.max(this.options.timeoutMs, IMPORT_TIMEOUT_MS),
    );
    if (!Array.isArray(results) || results.length !== fresh.length)
      throw new ChainNodeError(`${this.name}: ${method}: not one result per address`, { reason: "malformed" });
    const accepted: string[] = [];
    results.forEach((result, i) => {
      const [address] = fresh[i] as [string, number];
      if (isExactObject(result) && result.get("success") === true) {
        accepted.push(address);
        return;
      }
      const error = isExactObject(result) ? result.get("error") : undefined;
      const message = isExactObject(error) ? error.get("message") : undefined;
      this.refused.set(address, typeof message === "string" ? quote(message) : "no reason given");
    });
    return accepted;
  }

  /** listsinceblock's entries grouped by txid: the outputs received, and the transaction's state. */
  private parseList(value: ExactJson | undefined, field: string): Map<string, WalletTx> {
    const bad = (what: string): never => {
      throw new ChainNodeError(`${this.name}: listsinceblock: malformed ${field} entry: ${what}`, { reason: "malformed" });
    };
    if (value === undefined && field === "removed") return new Map();
    if (!Array.isArray(value)) return bad("not a list");
    const txs = new Map<string, WalletTx>();
    for (const entry of value) {
      if (!isExactObject(entry)) return bad("not an object");
      const txid = entry.get("txid");
      if (typeof txid !== "string" || !HASH.test(txid)) return bad("no txid");
      const confirmations = entry.get("confirmations");
      if (!(confirmations instanceof JsonNumber) || !/^-?\d{1,9}$/.test(confirmations.text)) return bad(`${txid} has no confirmations`);
      const depth = Number(confirmations.text);
      const height = depth > 0 ? wholeNumber(entry.get("blockheight")) : null;
      if (depth > 0 && height === null) return bad(`${txid} is confirmed without a blockheight`);
      const replaced = entry.get("replaced_by_txid");
      const tx = txs.get(txid) ?? {
        outputs: [],
        confirmations: depth,
        blockHeight: height,
        blockTime: depth > 0 ? wholeNumber(entry.get("blocktime")) : null,
        replaced: typeof replaced === "string",
        replaceable: entry.get("bip125-replaceable") === "yes",
        inMempool: true,
      };
      txs.set(txid, tx);
      if (entry.get("category") !== "receive") continue;
      const address = entry.get("address");
      const vout = wholeNumber(entry.get("vout"));
      const amount = entry.get("amount");
      if (typeof address !== "string" || vout === null) return bad(`${txid} has no address or vout`);
      if (!(amount instanceof JsonNumber) || !AMOUNT.test(amount.text)) return bad(`${txid}:${vout} amount is not a whole number of satoshis`);
      tx.outputs.push({ address, vout, amount: new Decimal(amount.text) });
    }
    return txs;
  }

  private async authorization(): Promise<string | null> {
    let credentials: string;
    if (this.options.cookieFile) {
      try {
        credentials = (await readFile(this.options.cookieFile, "utf8")).trim();
      } catch (error) {
        throw new ChainNodeError(
          `${this.name}: the cookie file ${this.options.cookieFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"}); check ${this.options.variables.cookieFile}`,
          // The node deletes its cookie when it stops: most often, it is down.
          { reason: "unreachable" },
        );
      }
    } else if (this.auth) {
      credentials = `${this.auth.user}:${this.auth.password}`;
    } else {
      return null;
    }
    return `Basic ${Buffer.from(credentials).toString("base64")}`;
  }
}

/** An answer that is no JSON-RPC: an error page (a proxy's) when the status says so, else garbage. */
function answerReason(status: number): "http_status" | "malformed" {
  return status >= 200 && status < 300 ? "malformed" : "http_status";
}

/** Throws the node's error of one answer, if it has one. */
function rpcError(answer: ExactObject, where: string): void {
  const error = answer.get("error");
  if (!isExactObject(error)) return;
  const message = error.get("message");
  const code = error.get("code");
  throw new CoreRpcError(
    `${where}: ${typeof message === "string" ? quote(message) : "error"}`,
    code instanceof JsonNumber && /^-?\d+$/.test(code.text) ? Number(code.text) : null,
  );
}

function result(answer: ExactObject, where: string): ExactJson {
  const value = answer.get("result");
  if (value === undefined) throw new ChainNodeError(`${where}: the answer has no result`, { reason: "malformed" });
  return value;
}

function object(value: ExactJson, method: string): ExactObject {
  if (!isExactObject(value)) throw new ChainNodeError(`${method}: the result is not an object`, { reason: "malformed" });
  return value;
}

function wholeNumber(value: ExactJson | undefined): number | null {
  return value instanceof JsonNumber && /^\d{1,15}$/.test(value.text) ? Number(value.text) : null;
}

// Output descriptor checksums (Bitcoin Core's descriptor.cpp, DescriptorChecksum): computed here, so
// importing an address costs no getdescriptorinfo request.
const INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
const CHECKSUM_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(c: bigint, value: number): bigint {
  const top = c >> 35n;
  let next = ((c & 0x7ffffffffn) << 5n) ^ BigInt(value);
  GENERATOR.forEach((g, i) => {
    if ((top >> BigInt(i)) & 1n) next ^= g;
  });
  return next;
}

/** `descriptor#checksum`. */
export function withChecksum(descriptor: string): string {
  let c = 1n;
  let cls = 0;
  let count = 0;
  for (const ch of descriptor) {
    const position = INPUT_CHARSET.indexOf(ch);
    if (position < 0) throw new RangeError(`a descriptor cannot hold ${JSON.stringify(ch)}`);
    c = polymod(c, position & 31);
    cls = cls * 3 + (position >> 5);
    if (++count === 3) {
      c = polymod(c, cls);
      cls = 0;
      count = 0;
    }
  }
  if (count > 0) c = polymod(c, cls);
  for (let i = 0; i < 8; i++) c = polymod(c, 0);
  c ^= 1n;
  let checksum = "";
  for (let j = 0; j < 8; j++) checksum += CHECKSUM_CHARSET[Number((c >> BigInt(5 * (7 - j))) & 31n)];
  return `${descriptor}#${checksum}`;
}
