// The query behind GET /v1/transactions, GraphQL `transactions` and the dashboard: one merchant and
// mode, newest first by (created_at, id), served by the index transactions(merchant_id, is_live,
// created_at, id); a search by e-mail by (merchant_id, is_live, customer_email_key, created_at, id).
import type { TransactionListQuery } from "../../core/stores/transactions.ts";
import type { TransactionRecord } from "../../core/records/transactions.ts";
import type { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";
import { emailKey, transactionInclude } from "./rows.ts";

export function listTransactions(db: Database, q: TransactionListQuery): Promise<TransactionRecord[]> {
  const where: Prisma.TransactionWhereInput = {
    merchantId: q.merchantId,
    isLive: q.isLive,
    ...(q.status ? { status: q.status } : {}),
    ...(q.initializedCurrencyId !== null ? { initializedCurrencyId: q.initializedCurrencyId } : {}),
    ...(q.paymentCurrencyId !== null ? { paymentCurrencyId: q.paymentCurrencyId } : {}),
    ...(q.createdGte || q.createdLt
      ? { createdAt: { ...(q.createdGte ? { gte: q.createdGte } : {}), ...(q.createdLt ? { lt: q.createdLt } : {}) } }
      : {}),
    ...(q.search && "reference" in q.search ? { reference: q.search.reference } : {}),
    ...(q.search && "id" in q.search ? { id: q.search.id } : {}),
    ...(q.search && "customerEmail" in q.search ? { customerEmailKey: emailKey(q.search.customerEmail) } : {}),
    ...(q.refunds ? { refunds: { some: q.refunds === "any" ? {} : { state: q.refunds } } } : {}),
    ...(q.after ? { OR: [{ createdAt: { lt: q.after.createdAt } }, { createdAt: q.after.createdAt, id: { lt: q.after.id } }] } : {}),
  };
  return db.transaction.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: q.limit, include: transactionInclude });
}
