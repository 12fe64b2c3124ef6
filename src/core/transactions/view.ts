// What a transaction shows whoever reads it, whichever API they use: its currencies, the locked
// quote and how far its payment has come. REST (src/http/presenters.ts) and GraphQL
// (src/graphql/resolvers.ts) only name and format these fields their own way.
import { cryptoById, fiatById, type CryptoCurrency, type FiatCurrency } from "../money/currencies.ts";
import { paymentStateOf, type LifecyclePolicy, type PaymentState } from "./lifecycle.ts";
import type { TransactionRecord } from "./record.ts";

export interface TransactionView {
  initializedCurrency: FiatCurrency;
  /** Null until initiate. */
  paymentCurrency: CryptoCurrency | null;
  /** The rate locked at initiate: fiat per one coin (a decimal string), its source and time. */
  quote: { rate: string; source: string; quotedAt: Date } | null;
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
    quote:
      t.quoteRate === null || t.quoteSource === null || t.quotedAt === null
        ? null
        : { rate: t.quoteRate.toString(), source: t.quoteSource, quotedAt: t.quotedAt },
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
