// What a checkout offers before the customer picks a coin: every coin the merchant has a wallet for
// in the transaction's mode, with an indicative amount at the current price. Nothing is locked here;
// initiate locks the rate. A coin whose price cannot be had now is shown unavailable, never failing
// the whole list.
import { quoteOptionsOf, rateWithSpread } from "../merchants/pricing.ts";
import type { CoreDeps } from "../deps.ts";
import { isDatabaseOutage } from "../errors.ts";
import type { Caller } from "../credentials.ts";
import { cryptoAmountFor, Decimal } from "../money/amounts.ts";
import { cryptoById, fiatById, type CryptoCurrency, type FiatCurrency } from "../money/currencies.ts";
import {
  CHAINS,
  COIN_NETWORKS,
  coinNetwork,
  isNetworkSlug,
  tokenContractOf,
  type CoinNetwork,
  type FeeLevel,
  type NetworkSlug,
} from "../networks.ts";
import type { PriceQuote } from "../ports.ts";
import { quoteOrUnavailable } from "./initiate.ts";
import { transactionFor } from "./record.ts";
import type { TransactionRecord } from "../records/transactions.ts";

/** A network a coin is offered on, as a checkout shows it. */
export interface OptionNetwork {
  slug: NetworkSlug;
  /** The display name in the transaction's mode. */
  name: string;
  /** ERC-20, BEP-20, TRC-20; null for the chain's own coin. */
  standard: string | null;
  chainId: number | null;
  /** A rough level of what a transfer costs there. */
  feeLevel: FeeLevel;
  /** The coin the network's fees are paid in. */
  feeCoin: string;
  /** The token's contract in the transaction's mode; null for the chain's own coin. */
  contract: string | null;
  /** The contract's page on the network's block explorer; null for the chain's own coin. */
  contractUrl: string | null;
}

export interface PaymentOption {
  currency: CryptoCurrency;
  network: OptionNetwork;
  available: boolean;
  /** The crypto amount at `rate`, rounded up as initiate does; null when unavailable. */
  amount: string | null;
  /** Fiat per one coin, a decimal string; null when unavailable. */
  rate: string | null;
  quotedAt: Date | null;
}

export interface PaymentOptions {
  transaction: TransactionRecord;
  fiat: FiatCurrency;
  options: PaymentOption[];
}

export interface PaymentOptionsResult {
  /** Null when the caller cannot reach the transaction (another merchant's, mode's, or client secret's). */
  paymentOptions: PaymentOptions | null;
  caller: Caller;
}

export async function paymentOptions(
  deps: Pick<CoreDeps, "stores" | "credentials" | "prices">,
  bearerToken: string | undefined,
  transactionId: string,
): Promise<PaymentOptionsResult> {
  const caller = await deps.credentials.authenticateReader(bearerToken);
  const transaction = await transactionFor(deps.stores.transactions, caller, transactionId);
  if (!transaction) return { paymentOptions: null, caller };
  const fiat = fiatById(transaction.initializedCurrencyId);
  if (!fiat) throw new Error(`Transaction ${transaction.id} has unknown fiat currency ${transaction.initializedCurrencyId}`);
  // Coin × network the merchant has a wallet for: per coin, the merchant's default network for the
  // mode first (what a request without `network` is paid on), then the networks table's order.
  const held = await deps.stores.transactions.walletCurrencies(transaction.merchantId, transaction.isLive);
  const merchantDefaults = new Map(
    (await deps.stores.merchants.defaultNetworks(transaction.merchantId))
      .filter((d) => d.isLive === transaction.isLive)
      .map((d) => [d.currencyId, d.network]),
  );
  const rank = (currency: CryptoCurrency, row: CoinNetwork) => (merchantDefaults.get(currency.id) === row.network ? -1 : COIN_NETWORKS.indexOf(row));
  const rows = held
    .map(({ currencyId, network }) => ({ currency: cryptoById(currencyId), network }))
    .flatMap(({ currency, network }) => (currency && isNetworkSlug(network) ? [{ currency, row: coinNetwork(currency.slug, network) }] : []))
    .filter((o): o is { currency: CryptoCurrency; row: CoinNetwork } => o.row !== undefined)
    .sort((a, b) => a.currency.id - b.currency.id || rank(a.currency, a.row) - rank(b.currency, b.row));
  const fiatAmount = new Decimal(transaction.initializedAmount.toString());
  // One quote per coin, whatever its networks; in parallel: one slow provider holds the list for its timeout only once.
  const quotes = new Map<number, Promise<PriceQuote>>();
  // Priced as initiate prices: the merchant's providers and spread (merchant pricing).
  const pricing = rows.length > 0 ? await deps.stores.merchants.pricing(transaction.merchantId) : null;
  const spread = pricing?.spreadPercent == null ? "0" : new Decimal(pricing.spreadPercent.toString()).toFixed();
  for (const { currency } of rows) {
    if (!quotes.has(currency.id)) {
      const quoting = quoteOrUnavailable(deps.prices, currency, fiat, transaction.isLive, quoteOptionsOf(pricing)).then((q) => ({
        ...q,
        rate: rateWithSpread(q.rate, spread),
      }));
      quoting.catch(() => {}); // Read below, per option.
      quotes.set(currency.id, quoting);
    }
  }
  const options = await Promise.all(
    rows.map(async ({ currency, row }): Promise<PaymentOption> => {
      const side = CHAINS[row.network][transaction.isLive ? "live" : "test"];
      const network: OptionNetwork = {
        slug: row.network,
        name: side.name,
        standard: row.standard,
        chainId: side.chainId,
        feeLevel: CHAINS[row.network].feeLevel,
        feeCoin: CHAINS[row.network].feeCoin,
        contract: tokenContractOf(currency.slug, row.network, transaction.isLive)?.contract ?? null,
        contractUrl: tokenContractOf(currency.slug, row.network, transaction.isLive)?.url ?? null,
      };
      try {
        const quote = await (quotes.get(currency.id) as Promise<PriceQuote>);
        return {
          currency,
          network,
          available: true,
          amount: cryptoAmountFor(fiatAmount, quote.rate, currency).toFixed(),
          rate: quote.rate.toFixed(),
          quotedAt: quote.quotedAt,
        };
      } catch (error) {
        // The database going away is not a missing price: the whole request answers 503.
        if (isDatabaseOutage(error)) throw error;
        return { currency, network, available: false, amount: null, rate: null, quotedAt: null };
      }
    }),
  );
  return { paymentOptions: { transaction, fiat, options }, caller };
}
