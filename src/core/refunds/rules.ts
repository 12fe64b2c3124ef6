// The rules of a refund (issue 26; docs/refunds.md), in one place: what a refund request may ask,
// what is left to refund, how an amount is reached and valued, and where the money may go.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { errors, type FieldError } from "../errors.ts";
import { Decimal, isNumericString, MAX_CRYPTO_AMOUNT } from "../money/amounts.ts";
import type { CryptoCurrency, FiatCurrency } from "../money/currencies.ts";
import { FEE_RATE_COINS, feeRateProblem } from "../money/fee-rates.ts";
import type { NetworkSlug } from "../networks.ts";
import type { PaymentRails } from "../ports.ts";
import type { RefundAmountKind, RefundState, RefundValuation, Transaction } from "../records/rows.ts";
import { isStorableText } from "../transactions/requests.ts";

export const REFUND_ID = /^re_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** `re_` and a UUID, as transactions are UUIDs. */
export const newRefundId = () => `re_${randomUUID()}`;
export const isRefundId = (id: string) => REFUND_ID.test(id);

/** The claim link's token: 32 base62 characters (190 bits); only its SHA-256 is kept. */
export const CLAIM_TOKEN = /^[0-9A-Za-z]{32}$/;
/** Days a claim link stays valid unless the operator says otherwise (PAYGATE_REFUND_CLAIM_DAYS). */
export const DEFAULT_CLAIM_DAYS = 30;

const decimalText = z.union([z.string().trim(), z.number().transform(String)]);

export const RefundBody = z.object({
  amount_kind: z.enum(["full", "overpaid", "custom"], { error: "amount_kind must be one of full, overpaid, custom" }).default("full"),
  amount: decimalText.refine(isNumericString, 'amount must be a positive decimal such as "25.00" or "0.0015"').optional(),
  amount_currency: z.string().trim().refine(isStorableText, "amount_currency must be a currency slug").optional(),
  valuation: z.enum(["locked_rate", "current_rate"], { error: "valuation must be locked_rate or current_rate" }).default("locked_rate"),
  fee_rate: decimalText.refine(isNumericString, 'fee_rate must be a positive number of sat/vB such as "5"').nullish(),
  deduct_network_fee: z.boolean({ error: "deduct_network_fee must be true or false" }).default(false),
});
export type RefundRequestBody = z.output<typeof RefundBody>;

/** Field problems a schema cannot see alone (amount with custom only, fee_rate for UTXO coins only). */
export function bodyProblems(body: RefundRequestBody, crypto: CryptoCurrency): FieldError[] {
  const problems: FieldError[] = [];
  if (body.amount_kind === "custom") {
    if (body.amount === undefined) problems.push({ field: "amount", message: "amount is required when amount_kind is custom" });
    if (body.amount_currency === undefined) {
      problems.push({
        field: "amount_currency",
        message: "amount_currency is required when amount_kind is custom (the fiat or the coin of the transaction)",
      });
    }
  } else {
    if (body.amount !== undefined)
      problems.push({ field: "amount", message: `amount is given only when amount_kind is custom (${body.amount_kind} sets it)` });
    if (body.amount_currency !== undefined)
      problems.push({ field: "amount_currency", message: "amount_currency is given only when amount_kind is custom" });
  }
  if (body.fee_rate !== undefined && body.fee_rate !== null) {
    if (!FEE_RATE_COINS.includes(crypto.slug)) {
      problems.push({ field: "fee_rate", message: `fee_rate (sat/vB) applies to BTC and LTC only, not ${crypto.slug}` });
    } else {
      const problem = feeRateProblem(body.fee_rate);
      if (problem !== null) problems.push({ field: "fee_rate", message: problem });
    }
  }
  return problems;
}

/** What counted towards the payment and may be given back: the confirmed amount paid. */
export function receivedOf(t: Pick<Transaction, "amountPaid">): Decimal {
  return new Decimal(t.amountPaid?.toString() ?? 0);
}

/** The refunds that count against what may be refunded: those not canceled. */
export const COUNTED_REFUND_STATES: readonly RefundState[] = ["pending", "succeeded"];

/** The sum of the refunds that count (COUNTED_REFUND_STATES). */
export function countedRefundsOf(refunds: readonly { state: RefundState; amount: { toString(): string } }[]): Decimal {
  return refunds.filter((r) => COUNTED_REFUND_STATES.includes(r.state)).reduce((sum, r) => sum.plus(r.amount.toString()), new Decimal(0));
}

/** What is left to refund: what arrived and counts, less the refunds pending or succeeded. */
export function refundableOf(t: Pick<Transaction, "amountPaid">, alreadyRefunded: Decimal): Decimal {
  const left = receivedOf(t).minus(alreadyRefunded);
  return left.isNegative() ? new Decimal(0) : left;
}

/** "0.0004 BTC": what is left, for a message. */
export const leftText = (left: Decimal, crypto: CryptoCurrency) => `${left.toFixed()} ${crypto.slug}`;

export interface RefundAmount {
  /** In the payment coin. */
  crypto: Decimal;
  fiat: Decimal;
}

/**
 * The refund's amount in the coin and its value in the transaction's fiat at `rate` (fiat per coin).
 * A fiat amount becomes coin rounded down, so a refund never gives back more than asked.
 */
export function amountOf(
  kind: RefundAmountKind,
  body: RefundRequestBody,
  t: Pick<Transaction, "amountPaid" | "paymentAmount">,
  crypto: CryptoCurrency,
  fiat: FiatCurrency,
  rate: Decimal,
  refundable: Decimal,
): RefundAmount {
  let coin: Decimal;
  if (kind === "full") coin = receivedOf(t);
  else if (kind === "overpaid") {
    coin = receivedOf(t).minus(t.paymentAmount?.toString() ?? 0);
    if (coin.lte(0)) throw errors.refundOverLimit(leftText(refundable, crypto), "nothing_overpaid");
  } else {
    const given = new Decimal(body.amount ?? 0);
    const currency = (body.amount_currency ?? "").toUpperCase();
    if (currency === crypto.slug) {
      if (given.decimalPlaces() > crypto.decimals) {
        throw errors.refundValidation([
          { field: "amount", message: `amount has more than ${crypto.decimals} decimal places, the precision of ${crypto.slug}` },
        ]);
      }
      coin = given;
    } else if (currency === fiat.slug) {
      if (given.decimalPlaces() > fiat.decimals) {
        throw errors.refundValidation([
          { field: "amount", message: `amount has more than ${fiat.decimals} decimal places, the precision of ${fiat.slug}` },
        ]);
      }
      coin = given.div(rate).toDecimalPlaces(crypto.decimals, Decimal.ROUND_DOWN);
    } else {
      throw errors.refundValidation([
        {
          field: "amount_currency",
          message: `amount_currency must be ${fiat.slug} (the transaction's currency) or ${crypto.slug} (the coin it was paid in)`,
        },
      ]);
    }
    if (coin.lte(0) || coin.gt(MAX_CRYPTO_AMOUNT)) {
      throw errors.refundValidation([{ field: "amount", message: `amount must be more than 0 ${crypto.slug} once converted` }]);
    }
  }
  if (coin.gt(refundable)) throw errors.refundOverLimit(leftText(refundable, crypto));
  return { crypto: coin, fiat: coin.times(rate).toDecimalPlaces(fiat.decimals, Decimal.ROUND_DOWN) };
}

/** Which rate values the refund: the transaction's locked quote, or the feed's price now. */
export type Valuation = RefundValuation;

/**
 * The transaction's refund_address checked again for the coin and network in its mode (a wallet or
 * network setting may have changed since initiate); the message is initiate's.
 */
export function destinationProblem(
  rails: PaymentRails,
  crypto: CryptoCurrency,
  isLive: boolean,
  network: NetworkSlug,
  address: string,
  field: string,
): FieldError | null {
  if (rails.isValidAddress(crypto, isLive, address, network)) return null;
  const problem = rails.addressProblem?.(crypto, isLive, address, network) ?? null;
  return {
    field,
    message: `${field} is not a valid ${crypto.slug} address on ${network} for ${isLive ? "live" : "test"} mode${problem ? `: it ${problem}` : ""}`,
  };
}
