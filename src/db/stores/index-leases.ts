// Wallet indexes leased to initiates (docs/wallets-and-chains.md): the lease's SQL, and the pool of
// leases one process takes a few at a time when it remembers what initiate needs (initiate-memory.ts).
import { Prisma } from "../generated/client.ts";
import { randomUUID } from "node:crypto";
import type { IndexLease, SiblingWallet, WalletOf } from "../../core/stores/transactions.ts";
import { queryDirect } from "../direct-sql.ts";
import type { Database } from "../types.ts";
import type { InitiateMemory } from "./initiate-memory.ts";
import { networkOfWallet } from "./merchants.ts";

/** A released lease's end: long past, so the next lease takes it. */
export const FREE = new Date(0);

/**
 * One statement: the wallet of the merchant's currency and mode, its free slots with the lowest
 * indexes (else empty ones, which take the wallet's next indexes), at most `count`, leased to `token`
 * until `until`. SKIP LOCKED: concurrent leases take other slots. The wallet's row lock (new indexes)
 * lasts only this statement, whose commit need not wait for the disk: the move that uses an index
 * commits after it and flushes it too, and a lease lost in a crash was never used. No row when no
 * slot is free (or the wallet has none yet, or there is no wallet).
 */
export function leaseStatement(wallet: LeaseWallet, now: Date, until: Date, token: string, count = 1): Prisma.Sql {
  const network = Prisma.sql`${networkOfWallet(wallet.currencyId, wallet.network)}`;
  return Prisma.sql`WITH ${leaseSteps(wallet, network, Prisma.sql`TRUE`, now, until, token, count)} SELECT * FROM leased ORDER BY derivation_index`;
}

/**
 * The lease as the steps of a WITH, ending in `leased` (at most `count` rows); it leases only if `when`
 * holds, on the wallet of the network `network` evaluates to. Shared by the lease alone and by
 * initiate's read of its transaction, which leases in the same statement when the transaction is
 * INITIATED (one round trip fewer per initiate).
 */
export function leaseSteps(
  wallet: Omit<WalletOf, "network">,
  network: Prisma.Sql,
  when: Prisma.Sql,
  now: Date,
  until: Date,
  token: string,
  count: number,
): Prisma.Sql {
  return Prisma.sql`
    wallet AS (
      SELECT wallet_id AS id, network FROM payment_processors
      WHERE merchant_id = ${wallet.merchantId} AND currency_id = ${wallet.currencyId} AND is_live = ${wallet.isLive}
        AND network = ${network} AND ${when}),
    chosen AS (
      SELECT wallet_id, slot, derivation_index FROM wallet_index_slots
      WHERE wallet_id = (SELECT id FROM wallet) AND leased_until <= ${now}
      ORDER BY derivation_index NULLS LAST, slot LIMIT ${count}::int
      FOR UPDATE SKIP LOCKED),
    relaxed AS (SELECT set_config('synchronous_commit', 'off', true) AS setting),
    fresh AS (SELECT slot, (row_number() OVER (ORDER BY slot))::int AS n FROM chosen WHERE derivation_index IS NULL),
    bumped AS (
      UPDATE wallets SET next_index = next_index + (SELECT count(*) FROM fresh)::int
      WHERE id = (SELECT id FROM wallet) AND EXISTS (SELECT 1 FROM fresh) AND EXISTS (SELECT 1 FROM relaxed)
      RETURNING next_index - (SELECT count(*) FROM fresh)::int AS first_index),
    -- The merchant's other wallets of the mode (a few rows): initiate refuses an EVM key two of them share.
    siblings AS (
      SELECT COALESCE(json_agg(json_build_object('walletId', w.id, 'currencyId', p.currency_id, 'network', p.network,
        'extendedPublicKey', w.extended_public_key)), '[]'::json) AS list
      FROM payment_processors p JOIN wallets w ON w.id = p.wallet_id
      WHERE p.merchant_id = ${wallet.merchantId} AND p.is_live = ${wallet.isLive} AND p.wallet_id <> (SELECT id FROM wallet)),
    leased AS (
      UPDATE wallet_index_slots s
      SET derivation_index = COALESCE(chosen.derivation_index, (SELECT first_index FROM bumped) + fresh.n - 1), token = ${token}, leased_until = ${until}
      FROM chosen LEFT JOIN fresh ON fresh.slot = chosen.slot
      WHERE s.wallet_id = chosen.wallet_id AND s.slot = chosen.slot
      RETURNING s.wallet_id, s.slot, s.derivation_index, (SELECT extended_public_key FROM wallets WHERE id = s.wallet_id) AS extended_public_key,
        (SELECT network FROM wallet) AS network, (SELECT list FROM siblings) AS siblings)`;
}

export interface LeaseRow {
  wallet_id: number;
  slot: number;
  derivation_index: number | null;
  extended_public_key: string | null;
  network: string;
  /** JSON: parsed by the driver, or its text (PGlite's raw queries). */
  siblings: SiblingWallet[] | string | null;
}

/** A leased row as a lease; null when the wallet went away meanwhile (no index or key). */
export function leaseOf(row: LeaseRow, token: string): IndexLease | null {
  const { wallet_id: walletId, slot, derivation_index: index, extended_public_key: extendedPublicKey } = row;
  const siblings: SiblingWallet[] = typeof row.siblings === "string" ? JSON.parse(row.siblings) : (row.siblings ?? []);
  return index === null || extendedPublicKey === null ? null : { walletId, slot, index, extendedPublicKey, token, siblings };
}

/** Leases given back in one statement (their slots keep their indexes for the next lease). */
export async function releaseLeases(db: Database, leases: IndexLease[]): Promise<void> {
  if (leases.length === 0) return;
  await queryDirect(
    db,
    Prisma.sql`UPDATE wallet_index_slots s SET leased_until = ${FREE}
      FROM unnest(${leases.map((l) => l.walletId)}::int[], ${leases.map((l) => l.slot)}::int[], ${leases.map((l) => l.token)}::text[]) AS r(wallet_id, slot, token)
      WHERE s.wallet_id = r.wallet_id AND s.slot = r.slot AND s.token = r.token`,
  );
}

/** Leases of one process kept for its next initiates, at most this many per wallet. */
const POOL_CAP = 8;

/** A wallet as leases name it: the network as stored (the coin's default when absent). */
type LeaseWallet = Omit<WalletOf, "network"> & { network?: string };
type PoolWallet = Required<LeaseWallet>;

/**
 * The pool: a lease is taken from it while at least half its window is left; when none is, one statement
 * per wallet at a time fills it (the initiates that find it running wait for it).
 */
export function leasePool(db: Database, memory: InitiateMemory) {
  const refills = new Map<string, Promise<number>>();
  // The merchant's wallet of a coin, network and mode; its key starts with the merchant (InitiateMemory.forgetMerchant).
  const keyOf = (w: PoolWallet) => `${w.merchantId}:${w.currencyId}:${networkOfWallet(w.currencyId, w.network)}:${w.isLive}`;
  return {
    pooled(wallet: PoolWallet, now: Date, until: Date): IndexLease | null {
      return memory.takeLease(keyOf(wallet), now, (until.getTime() - now.getTime()) / 2);
    },
    /**
     * A pooled lease, else one of the pool's next statement: one statement at a time per wallet leases a
     * full pool, and the initiates that find it running wait for it. Null when no slot was free.
     */
    async take(wallet: PoolWallet, now: Date, until: Date): Promise<IndexLease | null> {
      const key = keyOf(wallet);
      for (let round = 0; round < 3; round++) {
        const pooled = this.pooled(wallet, now, until);
        if (pooled) return pooled;
        const running = refills.get(key);
        if (running) {
          await running.catch(() => 0);
          continue;
        }
        const refill = this.refill(wallet, now, until);
        refills.set(key, refill);
        try {
          if ((await refill) === 0) return null;
        } finally {
          refills.delete(key);
        }
      }
      return null;
    },
    /** Leases as many as the pool has room for, into the pool: how many. */
    async refill(wallet: PoolWallet, now: Date, until: Date): Promise<number> {
      const count = Math.max(1, POOL_CAP - memory.pooledCount(keyOf(wallet)));
      const token = randomUUID();
      const rows = await queryDirect<LeaseRow>(db, leaseStatement(wallet, now, until, token, count));
      const leases = rows.map((row) => leaseOf(row, token)).filter((lease): lease is IndexLease => lease !== null);
      memory.poolLeases(
        keyOf(wallet),
        leases.map((lease) => ({ lease, until })),
      );
      return leases.length;
    },
    /** A lease the initiate did not use: back to the pool it came from (the next take checks its time), else freed. */
    async giveBack(lease: IndexLease): Promise<void> {
      if (!memory.returnLease(lease)) await releaseLeases(db, [lease]);
    },
    /**
     * A lease found lost, or its wallet is no longer the merchant's: it and every pooled lease of the wallet are
     * freed (by token: one another process took meanwhile is not touched).
     */
    async drop(lost: IndexLease): Promise<void> {
      await releaseLeases(db, [lost, ...memory.drainWallet(lost.walletId)]);
    },
  };
}

export type LeasePool = ReturnType<typeof leasePool>;
