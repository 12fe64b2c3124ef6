// What a checkout offers before the customer picks a coin: every coin the merchant has a wallet for
// in the transaction's mode, with an indicative amount at the current price. Nothing is locked here;
// initiate locks the rate. A coin whose price cannot be had now is shown unavailable, never failing
// the whole list.
import type { CoreDeps } from "../deps.ts";
import { isDatabaseOutage } from "../errors.ts";
import type { Caller } from "../merchants/credentials.ts";
import { cryptoAmountFor, Decimal } from "../money/amounts.ts";
import { cryptoById, fiatById, type CryptoCurrency, type FiatCurrency } from "../money/currencies.ts";
import { quoteOrUnavailable } from "./initiate.ts";
import { transactionFor, type TransactionRecord } from "./record.ts";

export interface PaymentOption {
  currency: CryptoCurrency;
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
  const coins = (await deps.stores.transactions.walletCurrencies(transaction.merchantId, transaction.isLive))
    .map((id) => cryptoById(id))
    .filter((c): c is CryptoCurrency => c !== undefined);
  const fiatAmount = new Decimal(transaction.initializedAmount.toString());
  // In parallel: one slow provider holds the list for its timeout only once.
  const options = await Promise.all(
    coins.map(async (currency): Promise<PaymentOption> => {
      try {
        const quote = await quoteOrUnavailable(deps.prices, currency, fiat, transaction.isLive);
        return {
          currency,
          available: true,
          amount: cryptoAmountFor(fiatAmount, quote.rate, currency).toFixed(),
          rate: quote.rate.toFixed(),
          quotedAt: quote.quotedAt,
        };
      } catch (error) {
        // The database going away is not a missing price: the whole request answers 503.
        if (isDatabaseOutage(error)) throw error;
        return { currency, available: false, amount: null, rate: null, quotedAt: null };
      }
    }),
  );
  return { paymentOptions: { transaction, fiat, options }, caller };
}
