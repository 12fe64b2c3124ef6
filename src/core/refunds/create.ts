// Making a refund (issue 26; docs/refunds.md): POST /v1/transaction/:id/refunds and the dashboard's
// Refund action, with the Idempotency-Key's replay; the amount is checked again under the
// transaction's lock as the refund is written.
import { errors } from "../errors.ts";
import { refundEvent } from "./refund-events.ts";
import { earlierRefundId, type IdempotencyScope, requestProblems, scopeOf } from "../transactions/idempotency.ts";
import { Decimal } from "../money/amounts.ts";
import { type CryptoCurrency, cryptoById, type FiatCurrency, fiatById } from "../money/currencies.ts";
import { networkOrDefault } from "../networks.ts";
import { hashKey, randomToken } from "../secrets.ts";
import { findTransactionFor, transactionNotFoundFor } from "../transactions/record.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { parseBody } from "../transactions/requests.ts";
import {
  amountOf,
  bodyProblems,
  DEFAULT_CLAIM_DAYS,
  destinationProblem,
  leftText,
  newRefundId,
  RefundBody,
  type RefundRequestBody,
  refundableOf,
  receivedOf,
} from "./rules.ts";
import { auditOf, type RefundDeps, type RefundOutcome, type RefundOwner } from "./owners.ts";
import { instructionsFor, refusedAtCreation, shown } from "./payment-view.ts";

/** What a refund is made from, by the API or the dashboard: the transaction, the REST body, its Idempotency-Key. */
export interface RefundRequest {
  transactionId: string;
  body: unknown;
  idempotencyKey?: string;
}

const DAY_MS = 86_400_000;

/** A transaction's coin, network and fiat; null before a coin was chosen. */
function currenciesOf(t: TransactionRecord): { crypto: CryptoCurrency; fiat: FiatCurrency } | null {
  const crypto = t.paymentCurrencyId === null ? undefined : cryptoById(t.paymentCurrencyId);
  const fiat = fiatById(t.initializedCurrencyId);
  return crypto && fiat ? { crypto, fiat } : null;
}

/**
 * POST /v1/transaction/:id/refunds, and the dashboard's Refund action (manage_refunds) with the
 * Idempotency-Key its form sends (one per form shown), so a double submission makes one refund.
 */
export async function createRefund(deps: RefundDeps, owner: RefundOwner, request: RefundRequest): Promise<RefundOutcome> {
  const caller = { merchant: { id: owner.merchantId }, isLive: owner.isLive };
  const parsed = parseBody(RefundBody, request.body);
  const problems = requestProblems(parsed, request.idempotencyKey);
  if (!parsed.ok || problems.length > 0) throw errors.refundValidation(problems);
  const body = parsed.value;
  const transaction = await findTransactionFor(deps.stores.transactions, request.transactionId, caller.merchant.id, caller.isLive);
  if (!transaction) throw await transactionNotFoundFor(deps.stores.transactions, caller, request.transactionId);

  const scope = scopeOf(request.idempotencyKey, caller, `refund:${transaction.id}`, body);
  const earlier = scope && (await replayOf(deps, scope));
  if (earlier) return earlier;
  try {
    return await newRefund(deps, owner, transaction, body, scope);
  } catch (error) {
    // The same key sent twice at once (a double click): the request that took the key made the refund,
    // and this one failed on the key or found nothing left to refund. It answers with that one.
    const winner = scope && (await replayOf(deps, scope));
    if (winner) return winner;
    throw error;
  }
}

async function newRefund(
  deps: RefundDeps,
  owner: RefundOwner,
  transaction: TransactionRecord,
  body: RefundRequestBody,
  scope: IdempotencyScope | null,
): Promise<RefundOutcome> {
  const caller = { merchant: { id: owner.merchantId }, isLive: owner.isLive };
  const currencies = currenciesOf(transaction);
  if (!currencies || receivedOf(transaction).lte(0)) throw errors.nothingReceived();
  const { crypto, fiat } = currencies;
  const fieldProblems = bodyProblems(body, crypto);
  const network = networkOrDefault(crypto.slug, transaction.paymentNetwork);
  let destination: string | null = null;
  if (transaction.refundAddress !== null) {
    const problem = destinationProblem(deps.rails, crypto, transaction.isLive, network, transaction.refundAddress, "refund_address");
    if (problem) fieldProblems.push({ ...problem, message: `the transaction's ${problem.message}; this refund cannot be sent there` });
    destination = transaction.refundAddress;
  }
  if (fieldProblems.length > 0) throw errors.refundValidation(fieldProblems);

  const rate = await rateFor(deps, body.valuation, transaction, crypto, fiat);
  const already = (await deps.stores.refunds.refundedAmounts([transaction.id])).get(transaction.id) ?? new Decimal(0);
  // Checked here for the message, and again under the transaction's lock as the refund is written.
  const amount = amountOf(body.amount_kind, body, transaction, crypto, fiat, rate, refundableOf(transaction, already));

  const now = deps.clock.now();
  const token = destination === null ? randomToken(32) : null;
  const days = deps.refundClaimDays ?? DEFAULT_CLAIM_DAYS;
  const feeRate = body.fee_rate === undefined || body.fee_rate === null ? null : new Decimal(body.fee_rate);
  const id = newRefundId();
  const instructions =
    destination === null
      ? null
      : await instructionsFor(deps, transaction, crypto, network, destination, amount.crypto, feeRate, body.deduct_network_fee);
  refusedAtCreation(instructions);
  const built = instructions?.ok ? instructions.value : null;
  const created = await deps.stores.refunds.create(
    {
      id,
      transactionId: transaction.id,
      merchantId: caller.merchant.id,
      isLive: caller.isLive,
      state: "pending",
      amountKind: body.amount_kind,
      amount: amount.crypto,
      fiatAmount: amount.fiat,
      fiatCurrencyId: fiat.id,
      valuation: body.valuation,
      rate,
      deductNetworkFee: body.deduct_network_fee,
      networkFee: built?.networkFee ? new Decimal(built.networkFee) : null,
      amountToCustomer: built ? new Decimal(built.amountToCustomer) : amount.crypto,
      feeRate,
      destination,
      claimTokenHash: token === null ? null : hashKey(token),
      claimTokenEnc: token === null ? null : deps.secrets.seal(token),
      claimExpiresAt: token === null ? null : new Date(now.getTime() + days * DAY_MS),
      createdAt: now,
    },
    (alreadyRefunded) => {
      const left = refundableOf(transaction, alreadyRefunded);
      if (amount.crypto.gt(left)) throw errors.refundOverLimit(leftText(left, crypto));
    },
    (record) => refundEvent("refund.created", record),
    scope && { ...scope },
    auditOf(deps, owner, "refund.create", `${id} of ${amount.crypto.toFixed()} ${crypto.slug} on transaction ${transaction.id}`),
  );
  const refundUrl = token === null ? null : `${deps.publicUrl}/refund/${token}`;
  return { merchantId: caller.merchant.id, refund: await shown(deps, created, instructions, refundUrl) };
}

/** The refund an earlier request with this key made, as a replay; null for a new key (409 for other parameters). */
async function replayOf(deps: RefundDeps, scope: IdempotencyScope): Promise<RefundOutcome | null> {
  const earlier = await earlierRefundId(deps.stores.idempotency, scope);
  const found = earlier === null ? null : await deps.stores.refunds.findFor(earlier, scope.merchantId, scope.isLive);
  return found && { merchantId: scope.merchantId, refund: await shown(deps, found), replayed: true };
}

/** Fiat per coin: the transaction's locked quote, or the price feed's now. */
async function rateFor(
  deps: RefundDeps,
  valuation: "locked_rate" | "current_rate",
  t: TransactionRecord,
  crypto: CryptoCurrency,
  fiat: FiatCurrency,
) {
  if (valuation === "current_rate") return (await deps.prices.quote(crypto, fiat, t.isLive)).rate;
  if (t.quoteRate === null) throw errors.nothingReceived();
  return new Decimal(t.quoteRate.toString());
}
