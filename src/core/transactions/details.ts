// What every API shows of a transaction, made in one place: the use cases answer with it, and the
// adapters (REST presenters, GraphQL resolvers) only name and format its fields. One call of the
// gateway gives a reply all it shows: the view, the payment URI and QR image, the checkout link and
// the receipts (one query for a whole page).
import type { CoreDeps } from "../deps.ts";
import { checkoutOf, type CheckoutLink } from "./checkout.ts";
import { paymentRequestOf, type PaymentRequest } from "./payment-request.ts";
import { Decimal } from "../money/amounts.ts";
import type { TransactionStore } from "../stores/transactions.ts";
import { mayHaveReceipts, receiptsOf, type TransactionReceipt } from "./receipts.ts";
import type { TransactionRecord } from "../records/transactions.ts";
import { viewOf, type TransactionView } from "./view.ts";

export interface TransactionDetails {
  transaction: TransactionRecord;
  /** Its currencies, locked quote and payment state. */
  view: TransactionView;
  /** The payment URI and its QR image; null until initiated (or when the caller did not ask for it). */
  paymentRequest: PaymentRequest | null;
  /** The client secret and checkout URL; null when the caller is not shown them (then the secret is not opened either). */
  checkout: CheckoutLink | null;
  /** What arrived at its address, first seen first. */
  receipts: TransactionReceipt[];
}

/** A use case's answer, marked when an earlier request with the same Idempotency-Key made it. */
export type DetailedOutcome = TransactionDetails & { replayed?: true };

/**
 * What a reply shows. `clientSecret`: retrieve.ts's rule for the caller. `paymentRequest`: false when
 * the reply has no QR image (a GraphQL selection without it), which then is not rendered.
 */
export interface Shown {
  clientSecret: boolean;
  paymentRequest?: boolean;
  /** False: the reply shows no receipts (a GraphQL selection without them): none are read, the row as read. */
  receipts?: boolean;
}

/** Parts of the details a caller leaves out, to make them itself when asked for (GraphQL's fields): false leaves one out. */
export interface ReplyParts {
  paymentRequest?: boolean;
  checkout?: boolean;
  receipts?: boolean;
}

export type DetailsDeps = Pick<CoreDeps, "stores" | "secrets" | "publicUrl" | "rails" | "qr" | "lifecycle">;

/** The details of each transaction, in order; the receipts of them all in one query (none when none can have any). */
export async function detailsOf(deps: DetailsDeps, transactions: readonly TransactionRecord[], shown: Shown): Promise<TransactionDetails[]> {
  const [{ rows, receipts }, parts] = await Promise.all([
    shown.receipts === false
      ? { rows: [...transactions], receipts: new Map<string, TransactionReceipt[]>() }
      : alikeReceipts(deps.stores.transactions, transactions),
    Promise.all(
      transactions.map((t) =>
        Promise.all([shown.paymentRequest === false ? null : paymentRequestOf(deps, t), shown.clientSecret ? checkoutOf(deps, t) : null]),
      ),
    ),
  ]);
  return rows.map((transaction, i) => {
    const [paymentRequest, checkout] = parts[i] ?? [null, null];
    return { transaction, view: viewOf(transaction, deps.lifecycle), paymentRequest, checkout, receipts: receipts.get(transaction.id) ?? [] };
  });
}

/** Reads of a row and its receipts, at most, until they agree (a watcher that records every moment could otherwise keep them apart). */
const ALIKE_READS = 3;

/**
 * The receipts of the transactions, with each transaction as of the same moment. A row and its receipts
 * change together, in one database transaction (recordReceipts), but they are read by two statements:
 * a write committed between them would show, say, a DROPPED receipt beside a payment still confirming.
 * A row whose totals disagree with its receipts is read again, with its receipts.
 */
async function alikeReceipts(
  store: TransactionStore,
  transactions: readonly TransactionRecord[],
): Promise<{ rows: TransactionRecord[]; receipts: Map<string, TransactionReceipt[]> }> {
  let rows = [...transactions];
  const receipts = await receiptsOf(store, rows);
  for (let read = 1; read < ALIKE_READS; read++) {
    const apart = rows.filter((t) => !agrees(t, receipts.get(t.id) ?? []));
    if (apart.length === 0) break;
    const again = (await Promise.all(apart.map((t) => store.findFor(t.id, t.merchantId, t.isLive)))).filter((t) => t !== null);
    const byId = new Map(again.map((t) => [t.id, t]));
    rows = rows.map((t) => byId.get(t.id) ?? t);
    for (const [id, list] of await receiptsOf(store, again)) receipts.set(id, list);
  }
  return { rows, receipts };
}

/** Whether the row's totals are those of its receipts (what recordReceipts writes with them): paid, unconfirmed, least confirmations. */
function agrees(t: TransactionRecord, receipts: readonly TransactionReceipt[]): boolean {
  if (!mayHaveReceipts(t)) return true;
  const total = (state: TransactionReceipt["state"]) =>
    receipts.filter((r) => r.state === state).reduce((sum, r) => sum.plus(r.amount), new Decimal(0));
  const same = (stored: { toString(): string } | null, sum: Decimal) => new Decimal(stored?.toString() ?? 0).eq(sum);
  const waiting = receipts.filter((r) => r.state === "SEEN").map((r) => r.confirmations);
  const least = waiting.length === 0 ? null : Math.min(...waiting);
  return same(t.amountPaid, total("CONFIRMED")) && same(t.amountUnconfirmed, total("SEEN")) && t.confirmations === least;
}

export async function detailOf(deps: DetailsDeps, transaction: TransactionRecord, shown: Shown): Promise<TransactionDetails> {
  const [details] = await detailsOf(deps, [transaction], shown);
  if (!details) throw new Error("detailsOf answered nothing for one transaction");
  return details;
}

/** A use case's transaction with its details, keeping the idempotent replay's mark. */
export async function detailedOutcome(deps: DetailsDeps, outcome: TransactionRecord & { replayed?: true }, shown: Shown): Promise<DetailedOutcome> {
  const { replayed, ...transaction } = outcome;
  const details = await detailOf(deps, transaction, shown);
  return replayed ? { ...details, replayed } : details; // spread: replays only
}
