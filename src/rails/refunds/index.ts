// The RefundPayments port (issue 26; docs/refunds.md, Paying a refund): what a merchant signs in its
// own wallet to pay a refund, since paygate holds no key.
//
//   BTC, LTC      an unsigned PSBT (psbt.ts) spending the payment's outputs, with key origins taken
//                 from the wallet's setting (`[fingerprint/84'/0'/0']xpub…`), and a BIP 21 URI.
//   EVM coins     the unsigned transaction from the paid address (evm.ts): a native transfer, or the
//                 token's transfer(to, amount), the chain's id, a gas estimate, and the native coin
//                 the gas costs; an EIP-681 URI.
//   TRON (USDT)   the payment URI (TRON's form); the TRX its energy costs, stated.
//
// The nodes the payment watcher reads (src/rails/chains) are asked for what makes it better: a paid
// transaction's raw bytes (hardware wallets want them), a fee estimate, a gas estimate and price.
// Every such answer is optional: without a node the instructions are still complete.
import type { HDKey } from "@scure/bip32";
import { keyOriginMissingText, parseStoredKeyOrigin } from "../../core/merchants/key-origin.ts";
import { errors } from "../../core/errors.ts";
import { Decimal } from "../../core/money/amounts.ts";
import { cryptoBySlug, type CryptoCurrency } from "../../core/money/currencies.ts";
import { CHAINS, isNetworkSlug, type NetworkSlug } from "../../core/networks.ts";
import type { PaymentRails, RefundInstructions, RefundPayments, RefundSpendRequest } from "../../core/ports.ts";
import type { ChainClient, ChainWatchers } from "../chains/index.ts";
import { isExactObject, JsonNumber } from "../prices/exact-json.ts";
import { readExtendedKey } from "../wallets/extended-keys.ts";
import { buildCoinNetworkTable, rowKey, type CurrencyNetworks, type NetworkOptions, type UtxoNetwork } from "../wallets/networks.ts";
import { evmRefund } from "./evm.ts";
import type { PaidOutput } from "./psbt.ts";
import { fromBaseUnits, toBaseUnits } from "./units.ts";

/** A wallet's key and stored origin (MerchantStore.walletKey). */
export type WalletKeyLookup = (walletId: number) => Promise<{ extendedPublicKey: string; keyOrigin: string | null } | null>;

export interface RefundRailsOptions extends NetworkOptions {
  /** The payment rails (payment URIs, address checks). */
  rails: PaymentRails;
  wallets: WalletKeyLookup;
  /** The payment watcher's nodes; absent: no node is asked. */
  chains?: Pick<ChainWatchers, "clientOf" | "tronToken">;
}

/** sat/vB when the merchant chose none and no node estimates: enough to confirm within hours on most days. */
const DEFAULT_FEE_RATE: Record<string, string> = { BTC: "10", LTC: "2" };
/** Confirmation target (blocks) of the node's fee estimate. */
const FEE_TARGET_BLOCKS = 6;
/** TRX a TRC-20 transfer burns without staked energy when no TRON node can estimate it (about 130,000 energy to a new holder at 210 sun). */
const TRON_TOKEN_TRANSFER_TRX = "30";
const UTXO_DECIMALS = 8;
/** A chain receipt's key that a transaction can spend: `txid:vout`. */
export const OUTPOINT = /^([0-9a-f]{64}):(\d{1,9})$/;

export class RefundRails implements RefundPayments {
  private readonly networks: ReadonlyMap<string, CurrencyNetworks>;

  constructor(private readonly options: RefundRailsOptions) {
    this.networks = buildCoinNetworkTable(options);
  }

  async instructions(request: RefundSpendRequest): Promise<RefundInstructions> {
    const currency = cryptoBySlug(request.coin);
    if (currency === undefined || !isNetworkSlug(request.network)) throw new Error(`no refund rails for ${request.coin} on ${request.network}`);
    const network = request.network;
    const family = CHAINS[network].family;
    if (family === "utxo") return this.utxo(currency, network, request);
    if (family === "evm") {
      const entry = this.entry(currency, network);
      const chain = request.isLive ? entry.live : entry.test;
      if (chain.family !== "evm") throw new Error(`${currency.slug} on ${network} is not an EVM row`);
      const client = this.options.chains?.clientOf(currency, request.isLive, network);
      return evmRefund({
        currency,
        network,
        chain,
        request,
        rails: this.options.rails,
        node: client?.kind === "evm" ? client.client : undefined,
      });
    }
    const amount = new Decimal(request.amount);
    return {
      uri: this.options.rails.paymentUri(currency, request.isLive, request.destination, amount, network),
      psbt: null,
      networkFee: null,
      amountToCustomer: amount.toFixed(),
      evmTransaction: null,
      gasNeeded: { coin: CHAINS[network].feeCoin, amount: await this.tronTransferTrx(currency, network, request) },
      keyOriginMissing: null,
    };
  }

  /** The TRX the token transfer burns, as the TRON node estimates it; the usual figure when no node is configured or it cannot tell. */
  private async tronTransferTrx(currency: CryptoCurrency, network: NetworkSlug, request: RefundSpendRequest): Promise<string> {
    const client = this.options.chains?.clientOf(currency, request.isLive, network);
    const token = this.options.chains?.tronToken(currency, request.isLive);
    if (client?.kind !== "tron" || token === undefined) return TRON_TOKEN_TRANSFER_TRX;
    try {
      const cost = await client.client.tokenTransferCost(
        token,
        request.paymentAddress,
        request.destination,
        toBaseUnits(request.amount, token.decimals),
      );
      return cost.trx.toFixed();
    } catch {
      return TRON_TOKEN_TRANSFER_TRX;
    }
  }

  private async utxo(currency: CryptoCurrency, network: NetworkSlug, request: RefundSpendRequest): Promise<RefundInstructions> {
    const entry = this.entry(currency, network);
    const chain = (request.isLive ? entry.live : entry.test) as UtxoNetwork;
    // A UTXO payment is always at an index of the key (forwarders and own addresses are account networks').
    if (request.derivationIndex === null) throw errors.refundNotSpendable("the payment address is at no index of the merchant's key");
    const derivationIndex = request.derivationIndex;
    const wallet = await this.options.wallets(request.walletId);
    if (wallet === null) throw errors.refundNotSpendable("the wallet that received the payment is no longer known");
    const read = readExtendedKey(wallet.extendedPublicKey);
    if (read.kind !== "public") throw errors.refundNotSpendable("the wallet's extended public key no longer parses");
    const keyOrigin = parseStoredKeyOrigin(wallet.keyOrigin);
    const client = this.options.chains?.clientOf(currency, request.isLive, network);
    const outputs = await this.paidOutputs(request, client);
    const feeRate = request.feeRate ?? (await this.estimatedFeeRate(client)) ?? DEFAULT_FEE_RATE[currency.slug] ?? "10";
    // @scure/btc-signer loads with the first refund or consolidation, not with every start (docs/operations.md, Memory).
    const { buildRefundPsbt } = await import("./psbt.ts");
    const built = buildRefundPsbt({
      network: chain,
      account: read.node as HDKey,
      keyOrigin,
      derivationIndex,
      outputs,
      destination: request.destination,
      amount: toBaseUnits(request.amount, UTXO_DECIMALS),
      feeRate,
      deductNetworkFee: request.deductNetworkFee,
    });
    const coin = (units: bigint) => `${fromBaseUnits(units, UTXO_DECIMALS)} ${currency.slug}`;
    if (!built.ok) {
      if (built.problem === "not_covered") {
        throw errors.refundNotSpendable(`the payment's outputs hold ${coin(built.total)}, less than the refund's ${request.amount} ${currency.slug}`);
      }
      throw errors.refundBelowDust(coin(built.toCustomer), coin(built.fee), coin(built.dust), built.toCustomer <= 0n);
    }
    const mode = request.isLive ? "live" : "test";
    const accountPath = (request.isLive ? entry.liveAccountPath : entry.testAccountPath).replace(/^m\//, "");
    const toCustomer = fromBaseUnits(built.toCustomer, UTXO_DECIMALS);
    return {
      uri: this.options.rails.paymentUri(currency, request.isLive, request.destination, new Decimal(toCustomer), network),
      psbt: built.psbt,
      networkFee: fromBaseUnits(built.fee, UTXO_DECIMALS),
      amountToCustomer: toCustomer,
      evmTransaction: null,
      gasNeeded: null,
      keyOriginMissing: keyOrigin === null ? keyOriginMissingText(currency.slug, mode, read.format.prefix, accountPath) : null,
    };
  }

  /** The payment's outputs at its address (receipts keyed `txid:vout`), with their raw transactions when an own node has them. */
  private async paidOutputs(request: RefundSpendRequest, client: ChainClient | undefined): Promise<PaidOutput[]> {
    const outputs: PaidOutput[] = [];
    for (const receipt of request.receipts) {
      const outpoint = OUTPOINT.exec(receipt.key);
      if (!outpoint) continue;
      const [, txid = "", vout = "0"] = outpoint;
      outputs.push({
        txid,
        vout: Number(vout),
        value: toBaseUnits(receipt.amount, UTXO_DECIMALS),
        rawTransaction: await rawTransaction(client, txid),
      });
    }
    if (outputs.length === 0) {
      throw errors.refundNotSpendable("none of the payment's receipts is a chain output (txid:vout) that a transaction can spend");
    }
    return outputs;
  }

  /** sat/vB the own node estimates for FEE_TARGET_BLOCKS; null without an own node or an estimate (regtest has none). */
  private async estimatedFeeRate(client: ChainClient | undefined): Promise<string | null> {
    if (client?.kind !== "core") return null;
    try {
      const answer = await client.client.call("estimatesmartfee", [FEE_TARGET_BLOCKS]);
      const rate = isExactObject(answer) ? answer.get("feerate") : undefined;
      if (!(rate instanceof JsonNumber)) return null;
      // BTC per kvB → sat/vB, to the thousandth (feeFor's precision).
      const perVb = new Decimal(rate.text).times(100_000).toDecimalPlaces(3, Decimal.ROUND_UP);
      return perVb.gt(0) ? perVb.toFixed() : null;
    } catch {
      return null;
    }
  }

  private entry(currency: CryptoCurrency, network: NetworkSlug): CurrencyNetworks {
    const entry = this.networks.get(rowKey(currency.slug, network));
    if (!entry) throw new Error(`${currency.slug} on ${network} has no wallet rails`);
    return entry;
  }
}

/** The raw transaction (hex) from an own node: its index (txindex) or the watch-only wallet that saw it; undefined otherwise. */
export async function rawTransaction(client: ChainClient | undefined, txid: string): Promise<string | undefined> {
  if (client?.kind !== "core") return undefined;
  try {
    const raw = await client.client.call("getrawtransaction", [txid]);
    if (typeof raw === "string" && /^[0-9a-f]+$/.test(raw)) return raw;
  } catch {
    // No txindex: the wallet has it, as it watched the address.
  }
  try {
    const tx = await client.client.call("gettransaction", [txid, true], true);
    const raw = isExactObject(tx) ? tx.get("hex") : undefined;
    if (typeof raw === "string" && /^[0-9a-f]+$/.test(raw)) return raw;
  } catch {
    // The PSBT is complete without it for software wallets.
  }
  return undefined;
}
