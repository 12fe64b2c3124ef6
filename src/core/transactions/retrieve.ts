// Reading one transaction, for checkout pages (public key) and merchants (secret key).
import type { CoreDeps } from "../deps.ts";
import type { Caller } from "../merchants/credentials.ts";
import { findTransactionFor, type TransactionRecord } from "./record.ts";

export interface RetrievedTransaction {
  transaction: TransactionRecord | null;
  caller: Caller;
}

/** Null, not an error, for another merchant's or mode's transaction: it does not exist for this caller. */
export async function retrieveTransaction(
  { stores, credentials }: Pick<CoreDeps, "stores" | "credentials">,
  bearerToken: string | undefined,
  id: string,
): Promise<RetrievedTransaction> {
  const caller = await credentials.authenticateReader(bearerToken);
  const transaction = await findTransactionFor(stores.transactions, id, caller.merchant.id, caller.isLive);
  return { transaction, caller };
}

/** The customer's details are for the merchant's own servers only. */
export function customerVisibleTo(caller: Caller): boolean {
  return caller.keyKind === "SECRET";
}
