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
import type { ObservedReceipt } from "../../core/ports.ts";
import { ChainNodeError } from "./errors.ts";
import { hostOf } from "../http/outbound.ts";
import { requestText } from "./http.ts";
import { isExactObject, JsonNumber, parseExactJson, type ExactJson } from "../prices/exact-json.ts";
import { Recent } from "./recent.ts";
import { fromBaseUnits } from "./units.ts";

/** Satoshis (litoshis) per coin: 10^8. */
const UTXO_DECIMALS = 8;

export interface EsploraOptions {
  /** E.g. https://blockstream.info/api (no trailing slash needed). */
  baseUrl: string;
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
}

export class EsploraClient {
  readonly name: string;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly pageSize: number;
  private readonly maxPages: number;
  private readonly sinceMarginMs: number;
  private readonly tip: Recent<number>;

  constructor(options: EsploraOptions) {
    this.base = options.baseUrl.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs;
    this.name = options.name ?? `Esplora (${hostOf(options.baseUrl)})`;
    this.pageSize = options.pageSize ?? 25;
    this.maxPages = options.maxPages ?? 40;
    this.sinceMarginMs = options.sinceMarginMs ?? 6 * 3_600_000;
    this.tip = new Recent(options.tipMaxAgeMs ?? 1000, () => this.tipHeight());
  }

  /** The height of the node's best block. */
  async tipHeight(): Promise<number> {
    const text = (await this.get("/blocks/tip/height")).trim();
    if (!/^\d{1,15}$/.test(text)) throw new ChainNodeError(`${this.name}: the tip height is not a number: ${JSON.stringify(text.slice(0, 40))}`);
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

  /** Every output paying `address` on the node's best chain or in its mempool. */
  async receiptsTo(address: string, options: { since: Date }): Promise<ObservedReceipt[]> {
    const tip = await this.tip.get();
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
      throw new ChainNodeError(`${this.name}: ${path} did not answer JSON (${(error as Error).message})`);
    }
    if (!Array.isArray(body)) throw new ChainNodeError(`${this.name}: ${path} did not answer a list of transactions`);
    return body.map((tx, i) => this.parseTx(tx, `${path}[${i}]`));
  }

  private parseTx(value: ExactJson, where: string): EsploraTx {
    const bad = (what: string): never => {
      throw new ChainNodeError(`${this.name}: malformed transaction at ${where}: ${what}`);
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
    if (!confirmed) return { txid, outputs, confirmed, blockHeight: null, blockTime: null };
    const height = integer(status.get("block_height"));
    if (height === null) return bad(`${txid} is confirmed without a block_height`);
    const time = status.get("block_time");
    const blockTime = time === undefined || time === null ? null : integer(time);
    if (blockTime === null && time !== undefined && time !== null) return bad(`${txid} block_time is not a whole number`);
    return { txid, outputs, confirmed, blockHeight: height, blockTime };
  }

  private get(path: string): Promise<string> {
    return requestText(new URL(`${this.base}${path}`), { node: this.name, timeoutMs: this.timeoutMs });
  }
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
