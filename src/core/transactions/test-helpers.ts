// Test mode needs no chain: these stand in for the chain watcher and the clock, through the same
// lifecycle functions, so a merchant can rehearse every ending of a transaction.
import { z } from "zod";
import { errors } from "../errors.ts";
import type { CoreDeps } from "../deps.ts";
import { Decimal, isNumericString, MAX_CRYPTO_AMOUNT } from "../money/amounts.ts";
import { cryptoById } from "../money/currencies.ts";
import { randomToken } from "../secrets.ts";
import { applyReceipts, expireNow } from "./lifecycle.ts";
import { requiredConfirmationsOf } from "../policies.ts";
import { findTransactionFor } from "./record.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { parseBody } from "./requests.ts";

export type TestHelperDeps = Pick<CoreDeps, "stores" | "credentials" | "clock" | "lifecycle" | "prices">;

export interface TestHelperRequest {
  bearerToken: string | undefined;
  transactionId: string;
  body?: unknown;
}

export const TestPaymentBody = z.object({
  amount: z.string().trim().refine(isNumericString, 'amount must be a numeric string such as "0.0015"').optional(),
  /** How deep the payment is; 1 by default. It counts when it reaches the transaction's confirmations (1 unless set at initialize). */
  confirmations: z
    .number({ error: "confirmations must be an integer from 0 to 1000" })
    .int({ error: "confirmations must be an integer from 0 to 1000" })
    .min(0, { error: "confirmations must be an integer from 0 to 1000" })
    .max(1000, { error: "confirmations must be an integer from 0 to 1000" })
    .optional(),
});

/**
 * A test transaction of the caller's, found with a test secret key; live keys have no helpers. An
 * inactive merchant's transactions do not move, as initiate refuses them.
 */
async function testTransaction(deps: TestHelperDeps, request: TestHelperRequest): Promise<TransactionRecord> {
  const caller = await deps.credentials.authenticateSecret(request.bearerToken);
  if (caller.isLive) throw errors.testModeOnly();
  const transaction = await findTransactionFor(deps.stores.transactions, request.transactionId, caller.merchant.id, false);
  if (!transaction) throw errors.transactionNotFound(request.transactionId);
  if (!caller.merchant.active) throw errors.merchantInactive();
  return transaction;
}

/**
 * Records a confirmed payment as the chain watcher would: `amount` in the payment currency; when
 * omitted, what is still owed (the payment amount less what arrived), so the transaction completes
 * as Stripe's test helpers complete their object. Several calls make a split payment.
 */
export async function recordTestPayment(deps: TestHelperDeps, request: TestHelperRequest): Promise<TransactionRecord> {
  const parsed = parseBody(TestPaymentBody, request.body);
  if (!parsed.ok) throw errors.initiateValidation(parsed.errors);
  const transaction = await testTransaction(deps, request);
  const crypto = transaction.paymentCurrencyId === null ? undefined : cryptoById(transaction.paymentCurrencyId);
  if (!crypto || transaction.paymentAmount === null) throw errors.testPaymentBeforeInitiate();
  const amount = parsed.value.amount === undefined ? owedOn(transaction) : new Decimal(parsed.value.amount);
  if (parsed.value.amount === undefined && amount.lte(0)) throw errors.nothingOwed();
  if (amount.lte(0) || amount.gt(MAX_CRYPTO_AMOUNT) || amount.decimalPlaces() > crypto.decimals) {
    throw errors.initiateValidation([
      {
        field: "amount",
        message: `amount must be more than 0 and at most ${MAX_CRYPTO_AMOUNT.toFixed()}, with at most ${crypto.decimals} decimal places, the precision of ${crypto.slug}`,
      },
    ]);
  }
  const txHash = `test_${randomToken(32)}`;
  return applyReceipts(
    deps.stores.transactions,
    transaction.id,
    {
      receipts: [{ key: `${txHash}:0`, txHash, amount, confirmations: parsed.value.confirmations ?? 1, blockHeight: null }],
      requiredConfirmations: requiredConfirmationsOf(transaction, crypto.slug, 1),
      source: "test_helper",
      complete: false,
    },
    deps.clock.now(),
    deps.lifecycle,
    // A late payment meets the transaction's late-payment policy, as the watcher's would.
    { prices: deps.prices, merchants: deps.stores.merchants, clock: deps.clock },
  );
}

/** The payment amount less what has arrived, confirmed or not. */
function owedOn(transaction: TransactionRecord): Decimal {
  const arrived = new Decimal(transaction.amountPaid?.toString() ?? 0).plus(transaction.amountUnconfirmed?.toString() ?? 0);
  return new Decimal(transaction.paymentAmount?.toString() ?? 0).minus(arrived);
}

/** Ends the checkout window now: an open transaction becomes ABANDONED, as expiry would make it. */
export async function expireTestTransaction(deps: TestHelperDeps, request: TestHelperRequest): Promise<TransactionRecord> {
  const transaction = await testTransaction(deps, request);
  if (transaction.status !== "INITIATED" && transaction.status !== "PENDING") throw errors.transactionClosed();
  const expired = await expireNow(deps.stores.transactions, transaction.id, deps.clock.now());
  if (!expired) throw errors.transactionClosed(); // it ended in between
  return expired;
}
