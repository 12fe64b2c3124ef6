// An Esplora HTTP API client (Blockstream's electrs, mempool.space, litecoinspace.org) for the
// UTXO chains, BTC and LTC:
//
//   GET {base}/blocks/tip/height                    → 840000                  (text)
//   GET {base}/address/{address}/txs                → up to 50 mempool txs, then the newest 25 confirmed
//   GET {base}/address/{address}/txs/chain/{txid}   → the next 25 confirmed txs older than {txid}
//
// Each tx is { txid, vout: [{ scriptpubkey_address, value (satoshis) }, …],
// status: { confirmed, block_height, block_hash, block_time } }. Every output paying the address is
// one receipt, keyed `txid:vout`. The body is read with the exact JSON parser, so a value that is
// not a whole number of satoshis is refused rather than rounded.
//
// Paging: older confirmed txs are fetched until a page comes back empty or short (electrs serves
// 25 per page, `pageSize`), or its oldest tx was mined before `since` minus `sinceMarginMs` (block
// timestamps may lag real time by about an hour; the default margin is six hours). Confirmed txs
// mined before that instant are left out: the address was handed out later, so they are a previous
// use of it, not this payment. An address with more than `maxPages` pages of history since then is
// refused with an error rather than read in part.
//
// The tip is read before the history: a tx the history shows confirmed above that tip (a block found
// in between) counts 1 confirmation, so a race never overstates confirmations.
//
// Network check. With `network` set, `GET {base}/block-height/0` (the genesis block's hash) is asked
// before the first read and again after a connection failure: a server of another network (a
// mainnet API configured for test mode, a Litecoin API for Bitcoin) is refused with a ChainNodeError
// naming the network it serves, the one expected and the variable to fix, and nothing is read from
// it (asked again a minute later), as the EVM (eth_chainId) and Core (getblockchaininfo) checks do.
import type { Decimal } from "../../core/money/amounts.ts";
import type { ObservedReceipt } from "../../core/ports.ts";
import { ChainNodeError } from "./errors.ts";
import { hostOf, quote } from "../http/outbound.ts";
import { requestText } from "./http.ts";
import { NodePool, type NodePoolOptions, type PoolNode } from "./node-pool.ts";
import { isExactObject, JsonNumber, parseExactJson, type ExactJson } from "../prices/exact-json.ts";
import { Recent } from "./recent.ts";
import { fromBaseUnits } from "./units.ts";

/** Settled addresses whose last read is kept (oldest dropped first); a dropped one is read again. */
const SETTLED_READS_KEPT = 100_000;
/** Satoshis (litoshis) per coin: 10^8. */
const UTXO_DECIMALS = 8;
/** How long a server found on the wrong network is refused before its genesis block is asked again. */
const WRONG_NETWORK_RETRY_MS = 60_000;

/** Block 0's hash of each network an Esplora server may serve (`/block-height/0`). */
export const GENESIS = {
  bitcoinMain: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
  bitcoinTestnet3: "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
  bitcoinTestnet4: "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043",
  bitcoinSignet: "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
  bitcoinRegtest: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
  litecoinMain: "12a765e31ffd4059bada1e25190f6e98c99d9714d334efa41a195a7e7e04bfe2",
  litecoinTestnet4: "4966625a4b2851d9fdee139e56211a0d88575f59ed816ff5e6a63deb4e3e29a0",
  litecoinRegtest: "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9",
} as const;

const NETWORK_NAMES = new Map<string, string>([
  [GENESIS.bitcoinMain, "Bitcoin mainnet"],
  [GENESIS.bitcoinTestnet3, "Bitcoin testnet3"],
  [GENESIS.bitcoinTestnet4, "Bitcoin testnet4"],
  [GENESIS.bitcoinSignet, "Bitcoin signet"],
  [GENESIS.bitcoinRegtest, "Bitcoin regtest"],
  [GENESIS.litecoinMain, "Litecoin mainnet"],
  [GENESIS.litecoinTestnet4, "Litecoin testnet4"],
  [GENESIS.litecoinRegtest, "Litecoin regtest"],
]);

/** The network(s) an Esplora server must serve. */
export interface EsploraNetwork {
  /** As said in messages, e.g. "Bitcoin mainnet". */
  name: string;
  /** The genesis block hashes accepted. */
  genesis: readonly string[];
  /** The variable that names the server. */
  variable: string;
}

/** What a coin's server must serve in a mode: the main network live; any of its test networks (regtest included) in test mode. */
export function esploraNetwork(coin: "BTC" | "LTC", mode: "live" | "test", variable: string): EsploraNetwork {
  if (coin === "BTC") {
    return mode === "live"
      ? { name: "Bitcoin mainnet", genesis: [GENESIS.bitcoinMain], variable }
      : {
          name: "a Bitcoin test network (testnet3, testnet4, signet or regtest)",
          genesis: [GENESIS.bitcoinTestnet3, GENESIS.bitcoinTestnet4, GENESIS.bitcoinSignet, GENESIS.bitcoinRegtest],
          variable,
        };
  }
  return mode === "live"
    ? { name: "Litecoin mainnet", genesis: [GENESIS.litecoinMain], variable }
    : { name: "a Litecoin test network (testnet4 or regtest)", genesis: [GENESIS.litecoinTestnet4, GENESIS.litecoinRegtest], variable };
}

export interface EsploraOptions {
  /** E.g. https://blockstream.info/api (no trailing slash needed); or several servers of one network, read in that order (failover). */
  baseUrl: string | readonly string[];
  /** Several servers: one whose tip is more than this many blocks behind the highest is set aside. Default 2. */
  maxLagBlocks?: number;
  /** Several servers: how often their tips are compared, and the back-off of one set aside (node-pool.ts). */
  pool?: Pick<NodePoolOptions, "probeIntervalMs" | "backoffMs" | "now">;
  timeoutMs: number;
  /** Names the node in messages. Default: "Esplora (host)". */
  name?: string;
  /** Confirmed txs per history page; a shorter page is the last. Default 25, electrs's page size. */
  pageSize?: number;
  /** History pages read after the first answer before giving up. Default 40 (1000 txs). */
  maxPages?: number;
  /** How far before `since` a block's timestamp may lie and its txs still count. Default 6 h. */
  sinceMarginMs?: number;
  /**
   * How long one tip height serves every address read (a watcher pass reads many). An older tip only
   * understates confirmations. Default 1000 ms; 0 reads it for every address.
   */
  tipMaxAgeMs?: number;
  /** The network the server must serve (its genesis block); unset: not checked. */
  network?: EsploraNetwork;
}

export interface EsploraOutput {
  index: number;
  address: string | null;
  sats: bigint;
}

export interface EsploraTx {
  txid: string;
  outputs: EsploraOutput[];
  confirmed: boolean;
  blockHeight: number | null;
  /** Unix seconds of the block, when the server tells it. */
  blockTime: number | null;
  /** Unconfirmed, with an input whose nSequence is below 0xfffffffe: it signals replaceability (BIP 125). */
  replaceable: boolean;
}

export class EsploraClient {
  readonly name: string;
  /** The servers every request goes through. */
  readonly pool: NodePool;
  private readonly timeoutMs: number;
  private readonly pageSize: number;
  private readonly maxPages: number;
  private readonly sinceMarginMs: number;
  private readonly tip: Recent<number>;
  /** Settled addresses' last reads, with the tip they were read at (receiptsTo). */
  private readonly settledReads = new Map<string, { tip: number; receipts: ObservedReceipt[] }>();
  private readonly network: EsploraNetwork | undefined;
  /** Per server: the network check under way or done (absent: ask at its next request), and when it found another network. */
  private readonly networkChecks = new Map<number, { check: Promise<string>; wrongAt: number }>();

  constructor(options: EsploraOptions) {
    const urls = (typeof options.baseUrl === "string" ? [options.baseUrl] : options.baseUrl).map((url) => url.replace(/\/+$/, ""));
    this.timeoutMs = options.timeoutMs;
    this.name = options.name ?? `Esplora (${urls.map(hostOf).join(", ")})`;
    this.pool = new NodePool({
      ...options.pool,
      name: this.name,
      urls,
      maxLagBlocks: options.maxLagBlocks ?? 2,
      probe: async (node) => {
        if (this.network !== undefined) await this.checkNetwork(node, this.network);
        return this.parseTip(node, await this.request(node, "/blocks/tip/height"));
      },
    });
    this.pageSize = options.pageSize ?? 25;
    this.maxPages = options.maxPages ?? 40;
    this.sinceMarginMs = options.sinceMarginMs ?? 6 * 3_600_000;
    this.tip = new Recent(options.tipMaxAgeMs ?? 1000, () => this.tipHeight());
    this.network = options.network;
  }

  /** The height of the node's best block. */
  async tipHeight(): Promise<number> {
    return this.pool.use(async (node) => this.parseTip(node, await this.getFrom(node, "/blocks/tip/height")));
  }

  private parseTip(node: PoolNode, answer: string): number {
    const text = answer.trim();
    if (!/^\d{1,15}$/.test(text))
      throw new ChainNodeError(`${node.name}: the tip height is not a number: ${JSON.stringify(text.slice(0, 40))}`, { reason: "malformed" });
    return Number(text);
  }

  /** The txs touching `address` that may have been sent since `since`, newest first (mempool first). */
  async history(address: string, since: Date): Promise<EsploraTx[]> {
    const path = `/address/${encodeURIComponent(normaliseAddress(address))}/txs`;
    const cutoff = since.getTime() - this.sinceMarginMs;
    const seen = new Map<string, EsploraTx>();
    let page = await this.page(path);
    for (let pages = 0; ; pages++) {
      for (const tx of page) if (!seen.has(tx.txid)) seen.set(tx.txid, tx);
      const confirmed = page.filter((tx) => tx.confirmed);
      const oldest = confirmed.at(-1);
      if (oldest === undefined || confirmed.length < this.pageSize) break;
      if (oldest.blockTime !== null && oldest.blockTime * 1000 < cutoff) break;
      if (pages >= this.maxPages) {
        throw new ChainNodeError(
          `${this.name}: ${address} has more than ${this.maxPages} pages of history since ${new Date(cutoff).toISOString()}; not reading it in part`,
        );
      }
      page = await this.page(`${path}/chain/${oldest.txid}`);
    }
    return [...seen.values()];
  }

  /**
   * Every output paying `address` on the node's best chain or in its mempool. `settled`: the payment
   * succeeded and is only watched until final (lifecycle.ts): its history is read again only once a
   * block came since its last read, so watching it costs one request per block, not one per pass
   * (a double spend of a settled payment shows at the next block, where it is decided).
   */
  async receiptsTo(address: string, options: { since: Date; settled?: boolean }): Promise<ObservedReceipt[]> {
    const tip = await this.tip.get();
    const last = this.settledReads.get(address);
    if (options.settled && last?.tip === tip) return last.receipts;
    const receipts = await this.read(address, options.since, tip);
    this.settledReads.delete(address);
    if (options.settled) {
      this.settledReads.set(address, { tip, receipts });
      if (this.settledReads.size > SETTLED_READS_KEPT) this.settledReads.delete(this.settledReads.keys().next().value as string);
    }
    return receipts;
  }

  private async read(address: string, since: Date, tip: number): Promise<ObservedReceipt[]> {
    const options = { since };
    const txs = await this.history(address, options.since);
    const cutoff = options.since.getTime() - this.sinceMarginMs;
    const wanted = normaliseAddress(address);
    const receipts: ObservedReceipt[] = [];
    for (const tx of txs) {
      if (tx.confirmed && tx.blockTime !== null && tx.blockTime * 1000 < cutoff) continue;
      for (const output of tx.outputs) {
        if (output.address === null || normaliseAddress(output.address) !== wanted || output.sats === 0n) continue;
        receipts.push({
          key: `${tx.txid}:${output.index}`,
          txHash: tx.txid,
          amount: fromBaseUnits(output.sats, UTXO_DECIMALS),
          confirmations: tx.confirmed && tx.blockHeight !== null ? Math.max(1, tip - tx.blockHeight + 1) : 0,
          blockHeight: tx.confirmed ? tx.blockHeight : null,
          ...(tx.replaceable ? { replaceable: true } : {}),
        });
      }
    }
    return receipts.sort(byHeightThenKey);
  }

  private async page(path: string): Promise<EsploraTx[]> {
    const text = await this.get(path);
    let body: ExactJson;
    try {
      body = parseExactJson(text);
    } catch (error) {
      throw new ChainNodeError(`${this.name}: ${path} did not answer JSON (${(error as Error).message})`, { reason: "malformed" });
    }
    if (!Array.isArray(body)) throw new ChainNodeError(`${this.name}: ${path} did not answer a list of transactions`, { reason: "malformed" });
    return body.map((tx, i) => this.parseTx(tx, `${path}[${i}]`));
  }

  private parseTx(value: ExactJson, where: string): EsploraTx {
    const bad = (what: string): never => {
      throw new ChainNodeError(`${this.name}: malformed transaction at ${where}: ${what}`, { reason: "malformed" });
    };
    if (!isExactObject(value)) return bad("not an object");
    const txid = value.get("txid");
    if (typeof txid !== "string" || !/^[0-9a-fA-F]{64}$/.test(txid)) return bad("no 64-hex-digit txid");
    const vout = value.get("vout");
    if (!Array.isArray(vout)) return bad(`${txid} has no vout list`);
    const outputs = vout.map((output, index): EsploraOutput => {
      if (!isExactObject(output)) return bad(`${txid} vout ${index} is not an object`);
      const address = output.get("scriptpubkey_address");
      if (address !== undefined && address !== null && typeof address !== "string") return bad(`${txid} vout ${index} has a non-string address`);
      const amount = output.get("value");
      if (!(amount instanceof JsonNumber) || !/^\d{1,20}$/.test(amount.text))
        return bad(`${txid} vout ${index} value is not a whole number of satoshis`);
      return { index, address: address ?? null, sats: BigInt(amount.text) };
    });
    const status = value.get("status");
    if (!isExactObject(status)) return bad(`${txid} has no status`);
    const confirmed = status.get("confirmed");
    if (typeof confirmed !== "boolean") return bad(`${txid} status.confirmed is not a boolean`);
    if (!confirmed)
      return { txid, outputs, confirmed, blockHeight: null, blockTime: null, replaceable: signalsReplaceability(value.get("vin"), bad, txid) };
    const height = integer(status.get("block_height"));
    if (height === null) return bad(`${txid} is confirmed without a block_height`);
    const time = status.get("block_time");
    const blockTime = time === undefined || time === null ? null : integer(time);
    if (blockTime === null && time !== undefined && time !== null) return bad(`${txid} block_time is not a whole number`);
    return { txid, outputs, confirmed, blockHeight: height, blockTime, replaceable: false };
  }

  /**
   * The start-up check (the watcher asks it when it starts, before any payment): the network check the
   * first read makes, shared with it. The network served, for the log; else a ChainNodeError naming the variable.
   */
  /**
   * What `address` holds now: what its outputs received less what was spent from them, on the best
   * chain and in the mempool (GET /address/:address's chain_stats and mempool_stats), in coin units.
   */
  async balance(address: string): Promise<Decimal> {
    const text = await this.get(`/address/${encodeURIComponent(normaliseAddress(address))}`);
    let body: ExactJson;
    try {
      body = parseExactJson(text);
    } catch {
      throw new ChainNodeError(`${this.name}: /address/${address} is not JSON: ${quote(text.slice(0, 200))}`, { reason: "malformed" });
    }
    const sats = (part: string, field: string): bigint => {
      const stats = isExactObject(body) ? body.get(part) : undefined;
      const value = isExactObject(stats) ? stats.get(field) : undefined;
      if (!(value instanceof JsonNumber) || !/^\d{1,20}$/.test(value.text)) {
        throw new ChainNodeError(`${this.name}: /address/${address} has no ${part}.${field}`, { reason: "malformed" });
      }
      return BigInt(value.text);
    };
    const held =
      sats("chain_stats", "funded_txo_sum") -
      sats("chain_stats", "spent_txo_sum") +
      sats("mempool_stats", "funded_txo_sum") -
      sats("mempool_stats", "spent_txo_sum");
    return fromBaseUnits(held < 0n ? 0n : held, UTXO_DECIMALS);
  }

  async checkNode(): Promise<string> {
    const { network } = this;
    if (network === undefined) return `tip at block ${await this.tipHeight()}`;
    return this.pool.use(async (node) => `${await this.checkNetwork(node, network)}${this.pool.size > 1 ? ` at ${node.name}` : ""}`);
  }

  /** One read from the first healthy server; its network is checked first. */
  private get(path: string): Promise<string> {
    return this.pool.use((node) => this.getFrom(node, path));
  }

  private async getFrom(node: PoolNode, path: string): Promise<string> {
    if (this.network !== undefined) await this.checkNetwork(node, this.network);
    return this.request(node, path);
  }

  /**
   * The genesis block's hash, at the first read and after a connection failure: a server of another
   * network is refused (nothing is read from it), and asked again a minute later.
   */
  private checkNetwork(node: PoolNode, expected: EsploraNetwork): Promise<string> {
    const done = this.networkChecks.get(node.index);
    if (done !== undefined && (done.wrongAt === 0 || Date.now() - done.wrongAt < WRONG_NETWORK_RETRY_MS)) return done.check;
    const entry = { check: Promise.resolve(""), wrongAt: 0 };
    entry.check = (async () => {
      let hash: string;
      try {
        hash = (await this.request(node, "/block-height/0")).trim();
        if (!/^[0-9a-f]{64}$/.test(hash)) {
          throw new ChainNodeError(`${node.name}: /block-height/0 did not answer a block hash: ${JSON.stringify(quote(hash))}`, {
            reason: "malformed",
          });
        }
      } catch (error) {
        this.networkChecks.delete(node.index);
        throw error;
      }
      if (expected.genesis.includes(hash)) return NETWORK_NAMES.get(hash) ?? `block 0 ${hash}`;
      entry.wrongAt = Date.now();
      const served = NETWORK_NAMES.get(hash) ?? `a network this gateway does not know (block 0 is ${hash})`;
      throw new ChainNodeError(
        `${node.name}: the server is on ${served}, not ${expected.name}: nothing is read from it (set ${expected.variable} to an Esplora API of ${expected.name})`,
        { reason: "wrong_network" },
      );
    })();
    this.networkChecks.set(node.index, entry);
    return entry.check;
  }

  private async request(node: PoolNode, path: string): Promise<string> {
    try {
      return await requestText(new URL(`${node.url.href.replace(/\/+$/, "")}${path}`), { node: node.name, timeoutMs: this.timeoutMs });
    } catch (error) {
      // The server may come back as another one: its network is checked again.
      if (error instanceof ChainNodeError && (error.reason === "unreachable" || error.reason === "timeout")) this.networkChecks.delete(node.index);
      throw error;
    }
  }
}

/** Below this an input's nSequence signals replaceability (BIP 125). */
const FINAL_SEQUENCE_FLOOR = 0xfffffffe;

/**
 * Whether an unconfirmed transaction signals BIP 125 by its own inputs (`vin[].sequence`). Inherited
 * signalling (an unconfirmed parent that signals) is not seen here; an own node (core-rpc.ts) tells it.
 */
function signalsReplaceability(vin: ExactJson | undefined, bad: (what: string) => never, txid: string): boolean {
  if (!Array.isArray(vin)) return bad(`${txid} has no vin list`);
  return vin.some((input, index) => {
    const sequence = isExactObject(input) ? integer(input.get("sequence")) : null;
    if (sequence === null) return bad(`${txid} vin ${index} has no whole-number sequence`);
    return sequence < FINAL_SEQUENCE_FLOOR;
  });
}

function integer(value: ExactJson | undefined): number | null {
  return value instanceof JsonNumber && /^\d{1,15}$/.test(value.text) ? Number(value.text) : null;
}

/** Bech32 addresses are case-insensitive and Esplora writes them in lower case. */
function normaliseAddress(address: string): string {
  return /^(bc|tb|bcrt|ltc|tltc|rltc)1/i.test(address) ? address.toLowerCase() : address;
}

function byHeightThenKey(a: ObservedReceipt, b: ObservedReceipt): number {
  const ha = a.blockHeight ?? Number.MAX_SAFE_INTEGER;
  const hb = b.blockHeight ?? Number.MAX_SAFE_INTEGER;
  return ha !== hb ? ha - hb : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
