// What a transaction shows whoever reads it, whichever API they use: its currencies, the locked
// quote and how far its payment has come. REST (src/http/v1/transactions/presenters.ts) and GraphQL
// (src/graphql/resolvers.ts) only name and format these fields their own way.
import { Decimal } from "../money/amounts.ts";
import { cryptoById, fiatById, type CryptoCurrency, type FiatCurrency } from "../money/currencies.ts";
import { CHAINS, coinNetwork, networkOrDefault, type NetworkSlug } from "../networks.ts";
import { paymentStateOf, type PaymentState } from "./lifecycle.ts";
import type { LifecyclePolicy } from "../policies.ts";
import { rateSourcesOf } from "./rate-sources.ts";
import type { StoredRateSource, TransactionRecord } from "../records/transactions.ts";

export interface TransactionView {
  initializedCurrency: FiatCurrency;
  /** Null until initiate. */
  paymentCurrency: CryptoCurrency | null;
  /** The network the payment currency is paid on (core/networks.ts), with its display name in the transaction's mode; null until initiate. */
  paymentNetwork: PaymentNetworkView | null;
  /**
   * What the customer still has to send (a decimal string): the payment amount less what arrived,
   * confirmed or not, never below 0; null until initiate.
   */
  amountOwed: string | null;
  /**
   * The rate locked at initiate: fiat per one coin (a decimal string), its source and time; `sources`:
   * what each provider gave when several were asked (the median), else null.
   */
  quote: {
    rate: string;
    /** The market rate before the merchant's spread, and the spread in percent: `rate` is the market rate less the spread. */
    marketRate: string;
    spreadPercent: string;
    source: string;
    quotedAt: Date;
    sources: StoredRateSource[] | null;
  } | null;
  /**
   * Null until initiate. Amounts are decimal strings, "0" when nothing arrived. `confirmations`: of
   * the least-confirmed receipt still short of `requiredConfirmations` (null when none waits);
   * `requiredConfirmations`: what a receipt needs on this chain (null until a receipt is seen).
   */
  payment: {
    state: PaymentState;
    amountConfirmed: string;
    amountUnconfirmed: string;
    confirmations: number | null;
    requiredConfirmations: number | null;
  } | null;
}

export function viewOf(t: TransactionRecord, policy: LifecyclePolicy): TransactionView {
  const initializedCurrency = fiatById(t.initializedCurrencyId);
  // Initialize accepts catalogue currencies only: another id is a damaged row, not a client's mistake.
  if (!initializedCurrency) throw new Error(`Transaction ${t.id} has unknown fiat currency ${t.initializedCurrencyId}`);
  const state = paymentStateOf(t, policy);
  return {
    initializedCurrency,
    paymentCurrency: (t.paymentCurrencyId !== null && cryptoById(t.paymentCurrencyId)) || null,
    paymentNetwork: paymentNetworkOf(t),
    amountOwed: t.paymentAmount === null ? null : amountOwed(t.paymentAmount, t.amountPaid, t.amountUnconfirmed),
    quote:
      t.quoteRate === null || t.quoteSource === null || t.quotedAt === null
        ? null
        : {
            rate: t.quoteRate.toString(),
            // Rows from before spreads were priced at the market rate.
            marketRate: (t.quoteMarketRate ?? t.quoteRate).toString(),
            spreadPercent: t.quoteSpreadPercent === null ? "0" : new Decimal(t.quoteSpreadPercent.toString()).toFixed(),
            source: t.quoteSource,
            quotedAt: t.quotedAt,
            sources: rateSourcesOf(t.quoteSources),
          },
    payment:
      state === null
        ? null
        : {
            state,
            amountConfirmed: t.amountPaid?.toString() ?? "0",
            amountUnconfirmed: t.amountUnconfirmed?.toString() ?? "0",
            confirmations: t.confirmations,
            requiredConfirmations: t.requiredConfirmations,
          },
  };
}

/** A transaction's network as every API shows it. */
export interface PaymentNetworkView {
  slug: NetworkSlug;
  /** The display name in the transaction's mode ("Ethereum Sepolia testnet"). */
  name: string;
  /** ERC-20, BEP-20, TRC-20; null for the chain's own coin. */
  standard: string | null;
  /** EIP-155 chain id of EVM networks; null elsewhere. */
  chainId: number | null;
}

/** The network of an initiated transaction (a row from before networks has its coin's default). */
export function paymentNetworkOf(t: Pick<TransactionRecord, "paymentCurrencyId" | "paymentNetwork" | "isLive">): PaymentNetworkView | null {
  const coin = t.paymentCurrencyId === null ? undefined : cryptoById(t.paymentCurrencyId);
  if (!coin) return null;
  const slug = networkOrDefault(coin.slug, t.paymentNetwork);
  const side = CHAINS[slug][t.isLive ? "live" : "test"];
  return { slug, name: side.name, standard: coinNetwork(coin.slug, slug)?.standard ?? null, chainId: side.chainId };
}

function amountOwed(due: { toString(): string }, ...received: ({ toString(): string } | null)[]): string {
  const owed = received.reduce<Decimal>((left, r) => (r === null ? left : left.minus(r.toString())), new Decimal(due.toString()));
  return owed.isNegative() ? "0" : owed.toFixed();
}
