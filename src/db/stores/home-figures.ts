// The dashboard home's figures (src/core/stores/home-figures.ts): four grouped queries over one
// merchant and mode, run together, so the database sums and counts and only the groups come back.
// Sums are numeric cast to text: exact on PostgreSQL and PGlite alike, never a float on the way.
// The list's index transactions(merchant_id, is_live, created_at, id) narrows each to the window.
import type { CoinRow, DailyVolumeRow, FailingEndpointRow, HomeFiguresStore, StatusCountRow } from "../../core/stores/home-figures.ts";
import type { Database } from "../types.ts";

export function homeFiguresStore(db: Database): HomeFiguresStore {
  return {
    async figures({ merchantId, isLive, since }) {
      const [volume, statuses, coins, failingEndpoints] = await Promise.all([
        db.$queryRaw<DailyVolumeRow[]>`
          SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "day",
                 initialized_currency_id AS "currencyId",
                 SUM(initialized_amount)::text AS "amount",
                 COUNT(*)::int AS "payments"
          FROM transactions
          WHERE merchant_id = ${merchantId} AND is_live = ${isLive} AND created_at >= ${since} AND status = 'SUCCESSFUL'
          GROUP BY 1, 2
          ORDER BY 1, 2`,
        db.$queryRaw<StatusCountRow[]>`
          SELECT status::text AS "status", COUNT(*)::int AS "count"
          FROM transactions
          WHERE merchant_id = ${merchantId} AND is_live = ${isLive} AND created_at >= ${since}
          GROUP BY status`,
        db.$queryRaw<CoinRow[]>`
          SELECT payment_currency_id AS "currencyId",
                 COUNT(*)::int AS "checkouts",
                 (COUNT(*) FILTER (WHERE status = 'SUCCESSFUL'))::int AS "payments",
                 COALESCE(SUM(amount_paid) FILTER (WHERE status = 'SUCCESSFUL'), 0)::text AS "amountPaid"
          FROM transactions
          WHERE merchant_id = ${merchantId} AND is_live = ${isLive} AND created_at >= ${since} AND payment_currency_id IS NOT NULL
          GROUP BY payment_currency_id
          ORDER BY payment_currency_id`,
        // A delivery still failing: given up (FAILED) or waiting for a retry (PENDING) after a failed last attempt,
        // to any endpoint of the mode, the first one (the merchant's URL) included.
        db.$queryRaw<FailingEndpointRow[]>`
          SELECT f.url AS "url",
                 (COUNT(*) FILTER (WHERE f.state = 'FAILED'))::int AS "failed",
                 (COUNT(*) FILTER (WHERE f.state = 'PENDING'))::int AS "retrying",
                 MAX(f.attempted_at) AS "lastAttemptAt",
                 (array_agg(f.status_code ORDER BY f.attempted_at DESC, f.id DESC))[1] AS "lastStatusCode",
                 (array_agg(f.error ORDER BY f.attempted_at DESC, f.id DESC))[1] AS "lastError"
          FROM (
            SELECT d.state, a.id, a.url, a.status_code, a.error, a.attempted_at
            FROM webhook_endpoints p
            JOIN webhook_deliveries d ON d.endpoint_id = p.id
            CROSS JOIN LATERAL (
              SELECT id, url, status_code, error, succeeded, attempted_at FROM webhook_delivery_attempts
              WHERE delivery_id = d.id ORDER BY attempted_at DESC, id DESC LIMIT 1
            ) a
            WHERE p.merchant_id = ${merchantId} AND p.is_live = ${isLive} AND d.created_at >= ${since}
              AND d.state IN ('FAILED', 'PENDING') AND NOT a.succeeded
          ) f
          GROUP BY f.url
          ORDER BY MAX(f.attempted_at) DESC`,
      ]);
      return { volume, statuses, coins, failingEndpoints };
    },
  };
}
