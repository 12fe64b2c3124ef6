// Idempotency-Keys on Prisma. The insert is one SQL fragment, so initialize's and initiate's
// one-statement writes remember a key the same way.
import type { IdempotencyRecord, IdempotencyStore } from "../../core/stores/idempotency.ts";
import { Prisma } from "../generated/client.ts";
import type { Database } from "../types.ts";

export function idempotencyStore(db: Database): IdempotencyStore {
  return {
    find: (merchantId, isLive, key) =>
      db.idempotencyKey.findUnique({
        where: { merchantId_isLive_key: { merchantId, isLive, key } },
        select: { operation: true, fingerprint: true, transactionId: true, refundId: true },
      }),
    async pruneBefore(before) {
      const { count } = await db.idempotencyKey.deleteMany({ where: { createdAt: { lt: before } } });
      return count;
    },
  };
}

/**
 * `INSERT … SELECT` of a key for the transaction `transactionId` (a value, or a column of a CTE: the
 * caller may append a FROM). A key already taken fails the statement on the primary key.
 */
export function rememberIdempotencyKey(key: IdempotencyRecord, transactionId: Prisma.Sql, createdAt: Date): Prisma.Sql {
  return Prisma.sql`INSERT INTO idempotency_keys (merchant_id, is_live, key, operation, fingerprint, transaction_id, created_at)
      SELECT ${key.merchantId}, ${key.isLive}, ${key.key}, ${key.operation}, ${key.fingerprint}, ${transactionId}, ${createdAt}`;
}
