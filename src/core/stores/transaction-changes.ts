// Change notifications: what the database announces after a commit. src/db/notifications.ts
// implements it.

/**
 * What the database announces after a commit (PostgreSQL LISTEN/NOTIFY, sent inside the writing
 * transaction, so a rolled-back change announces nothing): a transaction changed, and whether that
 * change wrote a webhook event; and, separately, that the outbox has an attempt due (`deliveries-due`).
 * `resync`: the listening connection was (re)established, so changes may have been missed meanwhile
 * and every listener should re-read what it follows.
 */
export type TransactionChange =
  | { kind: "changed"; transactionId: string; eventWritten: boolean }
  | { kind: "resync" }
  /** A webhook event or delivery became due for an attempt (written PENDING, or set back to it): dispatchers look. */
  | { kind: "deliveries-due" };

/**
 * What a subscriber hears besides `resync`: transactions' changes (live updates, event streams) or the
 * outbox's due notices (dispatchers). The database is asked only for what some subscriber hears: a
 * process with dispatchers and no live update is not sent every transaction's change.
 */
export type ChangeTopic = "changed" | "deliveries-due";
export const CHANGE_TOPICS: readonly ChangeTopic[] = ["changed", "deliveries-due"];

/** Every instance's transaction changes, in this process: one listening connection, fanned out. */
export interface TransactionChanges {
  /**
   * Calls `listener` for each change of `topics` (all by default), and for each `resync` that concerns
   * them, until the returned function is called.
   */
  subscribe(listener: (change: TransactionChange) => void, topics?: readonly ChangeTopic[]): () => void;
}
