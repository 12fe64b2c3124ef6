// How a transaction ends (spec 3 names the states, not the moves): PENDING → SUCCESSFUL when the
// confirmed receipts cover the locked amount; INITIATED or PENDING → ABANDONED when its window
// closes unpaid. Receipts after the end are still recorded. Every move goes through the outbox
// hook, so each sends its event (payment.received, payment.abandoned) exactly once.
//
// After SUCCESSFUL the transaction is watched until its chain receipts are `finalityConfirmations`
// deep (then `final_at` is set and the watcher lets it go). A counted receipt that leaves the chain
// meanwhile (a reorganisation, a double spend, a replacement) is REVERSED; when what is left on the
// chain, confirmed or not, no longer covers the payment, the transaction is reversed: `reversed_at`
// is set, once, and the outbox sends payment.reversed (an extension of spec 6). The status stays
// SUCCESSFUL (spec 3's four states are the contract); `meta.payment` reads `reversed`. A receipt that
// only fell back into the mempool (a shallow reorganisation) is SEEN again, not a reversal.
import { quoteOptionsOf } from "../merchants/pricing.ts";
import { Decimal } from "../money/amounts.ts";
import { cryptoById, fiatById } from "../money/currencies.ts";
import type { Clock, ObservedReceipt, PriceFeed } from "../ports.ts";
import type { ReceiptStatus, TransactionStatus } from "../records/rows.ts";
import type { MerchantStore } from "../stores/merchants.ts";
import type { ExpiryCandidate, LockedPayment, ReceiptTotals, ReceiptWrite, TransactionStore } from "../stores/transactions.ts";
import { DEFAULT_LIFECYCLE, type LifecyclePolicy, toleranceOf } from "../policies.ts";
import type { LatePaymentDecision, TransactionRecord } from "../records/transactions.ts";

/**
 * What the receipts say about a payment, shown as `data.meta.payment`:
 * awaiting_payment, confirming (enough seen, not yet confirmed), underpaid (too little so far, or at
 * expiry), paid, overpaid, expired (nothing came), paid_late (covered after the window closed),
 * reversed (SUCCESSFUL, then its counted payment left the chain and what is left does not cover it).
 */
export type PaymentState = "awaiting_payment" | "confirming" | "underpaid" | "paid" | "overpaid" | "expired" | "paid_late" | "reversed";

export type PaymentAmounts = Pick<TransactionRecord, "status" | "paymentAmount" | "amountPaid" | "amountUnconfirmed"> & {
  /** Absent on records that cannot be reversed (an expiry candidate). */
  reversedAt?: Date | null;
  /** The transaction's own tolerance in percent (initialize's policy); null or absent: the operator's. */
  policyUnderpaymentTolerance?: { toString(): string } | null;
};

export function paymentStateOf(t: PaymentAmounts, policy: LifecyclePolicy = DEFAULT_LIFECYCLE): PaymentState | null {
  if (t.paymentAmount === null) return null;
  const due = new Decimal(t.paymentAmount.toString());
  const confirmed = new Decimal(t.amountPaid?.toString() ?? 0);
  const seen = confirmed.plus(t.amountUnconfirmed?.toString() ?? 0);
  const tolerance = toleranceOf(t.policyUnderpaymentTolerance, policy.underpaymentTolerance);
  const covers = (amount: Decimal) => covered(amount, due, tolerance);
  switch (t.status) {
    case "SUCCESSFUL":
      // Reversed and still not covered; a chain that brought the money back shows it paid again.
      if (t.reversedAt && !covers(seen)) return "reversed";
      return confirmed.gt(due) ? "overpaid" : "paid";
    case "ABANDONED":
      if (covers(confirmed)) return "paid_late";
      return seen.isZero() ? "expired" : "underpaid";
    default:
      if (seen.isZero()) return "awaiting_payment";
      return covers(seen) ? "confirming" : "underpaid";
  }
}

function covered(amount: Decimal, due: Decimal, tolerance: Decimal): boolean {
  return amount.gte(due.times(new Decimal(1).minus(tolerance)));
}

export interface ReceiptUpdate {
  receipts: ObservedReceipt[];
  requiredConfirmations: number;
  /**
   * How deep a SUCCESSFUL transaction's chain receipts must be before it is final and leaves the
   * watch list; at least requiredConfirmations (the default: final as soon as counted).
   */
  finalityConfirmations?: number;
  source: "chain" | "test_helper";
  /**
   * The receipts are the node's whole current view of the address: earlier ones now absent were
   * reorganised away. False for the test helper, which adds one receipt at a time.
   */
  complete: boolean;
}

/** What recording receipts writes through: the receipts under the row lock, and a late payment's decision. */
export type ReceiptWriter = Pick<TransactionStore, "withLockedPayment" | "settleLatePayment">;

/**
 * Records what arrived at a transaction's address and moves it on: amount_paid is the sum of
 * confirmed receipts, and a PENDING transaction they cover becomes SUCCESSFUL. It reads and writes
 * under the transaction's row lock, so a concurrent expiry or another watcher sees the result, not a half.
 */
export async function applyReceipts(
  transactions: ReceiptWriter,
  transactionId: string,
  update: ReceiptUpdate,
  now: Date,
  policy: LifecyclePolicy = DEFAULT_LIFECYCLE,
  late?: LatePaymentDeps,
): Promise<TransactionRecord> {
  const recorded = await recordReceipts(transactions, transactionId, update, now, policy);
  return late ? settleLatePayment({ ...late, transactions, lifecycle: policy }, recorded) : recorded;
}

function recordReceipts(
  transactions: ReceiptWriter,
  transactionId: string,
  update: ReceiptUpdate,
  now: Date,
  policy: LifecyclePolicy,
): Promise<TransactionRecord> {
  const rows = update.receipts.map((r) => ({
    ...r,
    replaceable: r.confirmations === 0 && r.replaceable === true,
    confirmed: counts(r, update.requiredConfirmations),
  }));
  const finality = Math.max(update.requiredConfirmations, update.finalityConfirmations ?? 0);
  const rules = receiptRules(finality, policy, update.complete ? finalByNode(update.receipts, finality) : undefined);
  return transactions.withLockedPayment(transactionId, (locked) =>
    recordLocked(
      locked,
      { source: update.source, rows, dropOthers: update.complete, requiredConfirmations: update.requiredConfirmations },
      now,
      rules,
    ),
  );
}

/**
 * Under the row lock: upserts the receipts, marks the source's other receipts dropped or reversed when
 * `dropOthers` (absent from the node's whole view), totals them, and writes the totals, the
 * confirmations of the least-confirmed unconfirmed receipt with the number required, and the moves
 * the rules decide. The number required is set with the first receipt: a transaction without it has none (mayHaveReceipts).
 */
async function recordLocked(
  locked: LockedPayment,
  receipts: { source: "chain" | "test_helper"; rows: ReceiptWrite[]; dropOthers: boolean; requiredConfirmations: number },
  now: Date,
  rules: ReceiptRules,
): Promise<TransactionRecord> {
  const { current } = locked;
  await locked.upsertReceipts(receipts.source, receipts.rows, now);
  let reversed = 0;
  if (receipts.dropOthers) {
    const gone = await locked.onChainExcept(
      receipts.source,
      receipts.rows.map((r) => r.key),
    );
    for (const state of ["DROPPED", "REVERSED"] as const) {
      const keys = gone.filter((r) => rules.vanished(current.status, r) === state).map((r) => r.key);
      if (keys.length === 0) continue;
      await locked.markReceipts(keys, state, now);
      if (state === "REVERSED") reversed = keys.length;
    }
  }
  const sums = await locked.sums();
  const totals: ReceiptTotals = {
    status: current.status,
    paymentAmount: current.paymentAmount,
    confirmed: sums.confirmed,
    unconfirmed: sums.unconfirmed,
    reversed,
    leastChainConfirmations: sums.leastChainConfirmations,
    reversedAt: current.reversedAt,
    policyUnderpaymentTolerance: current.policyUnderpaymentTolerance,
  };
  const moves = rules.moves(totals);
  return locked.write({
    amountPaid: totals.confirmed.isZero() ? null : totals.confirmed,
    amountUnconfirmed: totals.unconfirmed.isZero() ? null : totals.unconfirmed,
    confirmations: sums.leastUnconfirmedConfirmations,
    requiredConfirmations: receipts.requiredConfirmations,
    ...(moves.completes ? { status: "SUCCESSFUL" as const } : {}),
    // The reversal's event is written by the outbox hook with this row (payment-events.ts).
    ...(moves.reverses ? { reversedAt: now } : {}),
    ...(moves.final && current.finalAt === null ? { finalAt: now } : {}),
  });
}

/**
 * Whether a receipt of a SUCCESSFUL transaction is final: its node's finality checkpoint covers it
 * where the node tells (an EVM `finalized` tag), else it is `finality` confirmations deep.
 */
export function isFinal(r: Pick<ObservedReceipt, "confirmations" | "finalized">, finality: number): boolean {
  return r.finalized ?? r.confirmations >= finality;
}

/** Where the node tells of its finality checkpoint: whether every receipt of a complete view is final; else undefined (depth decides). */
function finalByNode(receipts: readonly ObservedReceipt[], finality: number): boolean | undefined {
  if (!receipts.some((r) => r.finalized !== undefined)) return undefined;
  return receipts.every((r) => isFinal(r, finality));
}

/**
 * Whether a receipt counts towards amount_paid: its confirmations reached the required number, and
 * one at 0 confirmations (BTC, LTC or USDT set to accept them) does not signal replaceability (BIP
 * 125): its sender could replace it at will, so it waits for its first confirmation.
 */
export function counts(r: Pick<ObservedReceipt, "confirmations" | "replaceable">, requiredConfirmations: number): boolean {
  if (r.confirmations < requiredConfirmations) return false;
  return r.confirmations > 0 || r.replaceable !== true;
}

/**
 * Receipts seen only through an EVM balance (`balance:…`): a part the next read may split otherwise
 * (a transfer found by its hash takes it over) and that a sweep of the address lowers. Their end is
 * not a reversal.
 */
const BALANCE_KEY = /^balance:/;

/** The lifecycle's rules for receipts, applied under the transaction's row lock (recordLocked). */
export interface ReceiptRules {
  /** What a receipt absent from a complete view becomes. */
  vanished(transaction: TransactionStatus, receipt: { key: string; status: ReceiptStatus }): "DROPPED" | "REVERSED";
  /** The transaction's moves given the totals: SUCCESSFUL, reversed (payment.reversed), final (leaves the watch list). */
  moves(totals: ReceiptTotals): { completes: boolean; reverses: boolean; final: boolean };
}

/**
 * The rules applied under the transaction's row lock; `finality`: the depth at which a
 * SUCCESSFUL transaction is final, unless `finalizedByNode` says whether the node's checkpoint covers
 * all its chain receipts (then that decides).
 */
export function receiptRules(finality: number, policy: LifecyclePolicy = DEFAULT_LIFECYCLE, finalizedByNode?: boolean): ReceiptRules {
  return {
    vanished: (transaction: TransactionStatus, receipt: { key: string; status: ReceiptStatus }) =>
      transaction === "SUCCESSFUL" && receipt.status === "CONFIRMED" && !BALANCE_KEY.test(receipt.key) ? "REVERSED" : "DROPPED",
    moves(totals: ReceiptTotals) {
      const due = totals.paymentAmount;
      const tolerance = toleranceOf(totals.policyUnderpaymentTolerance, policy.underpaymentTolerance);
      const completes = totals.status === "PENDING" && due !== null && covered(totals.confirmed, due, tolerance);
      const reverses =
        totals.status === "SUCCESSFUL" &&
        totals.reversedAt === null &&
        totals.reversed > 0 &&
        due !== null &&
        !covered(totals.confirmed.plus(totals.unconfirmed), due, tolerance);
      const successful = completes || totals.status === "SUCCESSFUL";
      const deep = totals.leastChainConfirmations === null || totals.leastChainConfirmations >= finality;
      const final = successful && (totals.leastChainConfirmations === null || (finalizedByNode ?? deep));
      return { completes, reverses, final };
    },
  };
}

/**
 * Abandons open transactions whose window has closed, at most `limit` at a time; returns them.
 * One whose unconfirmed receipts already cover it waits for its confirmations instead (it is
 * passed over, and looked at again at the next tick). Safe to run on every instance at once: the
 * store's state condition lets each transaction move once.
 */
export async function expireDue(
  transactions: TransactionStore,
  now: Date,
  limit = 500,
  policy: LifecyclePolicy = DEFAULT_LIFECYCLE,
): Promise<TransactionRecord[]> {
  const due: string[] = [];
  let after: ExpiryCandidate | undefined;
  while (due.length < limit) {
    const page = await transactions.openPastDue(now, limit, after && { expiresAt: after.expiresAt ?? now, id: after.id });
    for (const candidate of page) {
      if (due.length < limit && !waitsForConfirmations(candidate, policy)) due.push(candidate.id);
    }
    if (page.length < limit) break;
    after = page[page.length - 1];
  }
  if (due.length === 0) return [];
  return transactions.abandon(due);
}

/** A PENDING transaction whose receipts, confirmed or not, already cover it: the customer paid in time. */
function waitsForConfirmations(t: ExpiryCandidate, policy: LifecyclePolicy): boolean {
  return t.status === "PENDING" && paymentStateOf(t, policy) === "confirming";
}

/** Ends the window of one open transaction now (the test helper); null when it is not open. */
export async function expireNow(transactions: TransactionStore, id: string, now: Date): Promise<TransactionRecord | null> {
  const [row] = await transactions.abandon([id], now);
  return row ?? null;
}

/** What the late-payment policy needs: the price port (the rate now) and the merchant's pricing (its providers). */
export interface LatePaymentDeps {
  prices: PriceFeed;
  merchants: Pick<MerchantStore, "pricing">;
  clock: Clock;
}

/**
 * The late-payment policy (initialize's late_payment), once a payment covers an ABANDONED transaction
 * (paid_late): the market rate now against the market rate locked at initiate (both before the
 * merchant's spread). Moved less than the policy's percent: the payment is accepted, the transaction
 * becomes SUCCESSFUL (payment.received). Otherwise it stays ABANDONED, paid_late, for the merchant.
 * Decided once and recorded (transactions.late_payment); without a price now, nothing is decided and
 * the watcher's next pass asks again.
 */
export async function settleLatePayment(
  deps: LatePaymentDeps & { transactions: Pick<TransactionStore, "settleLatePayment">; lifecycle: LifecyclePolicy },
  t: TransactionRecord,
): Promise<TransactionRecord> {
  if (t.status !== "ABANDONED" || t.policyLatePaymentPercent === null || (t.latePayment !== null && t.latePayment !== undefined)) return t;
  if (paymentStateOf(t, deps.lifecycle) !== "paid_late") return t;
  const crypto = t.paymentCurrencyId === null ? undefined : cryptoById(t.paymentCurrencyId);
  const fiat = fiatById(t.initializedCurrencyId);
  const lockedRate = t.quoteMarketRate ?? t.quoteRate;
  if (!crypto || !fiat || lockedRate === null) return t;
  const locked = new Decimal(lockedRate.toString());
  const pricing = await deps.merchants.pricing(t.merchantId);
  let market: Decimal;
  try {
    market = (await deps.prices.quote(crypto, fiat, t.isLive, quoteOptionsOf(pricing))).rate;
  } catch {
    return t; // No price now: the next pass decides.
  }
  const moved = market.minus(locked).abs().div(locked).times(100);
  const accepted = moved.lt(t.policyLatePaymentPercent.toString());
  const now = deps.clock.now();
  const decision: LatePaymentDecision = {
    accepted,
    lockedRate: locked.toFixed(),
    marketRate: market.toFixed(),
    movedPercent: moved.toDecimalPlaces(4, Decimal.ROUND_HALF_UP).toFixed(),
    checkedAt: now.toISOString(),
  };
  return (await deps.transactions.settleLatePayment(t.id, decision, accepted)) ?? t;
}
